"""The families `make-tiny-model` builds: special tokens, chat template, config and processor each.

Every builder takes the trained tokenizer, the text sizes (token ids filled in) and the vision
sizes, and returns `(model, processor)`. The chat templates follow each family's real one in
shape (turn markers, where image placeholders go, how system text is carried), cut down to what
the pipeline sends: text and image parts, system text, `add_generation_prompt`.

Families whose processor owns a video processor (Qwen-VL, SmolVLM, LLaVA-OneVision, InternVL)
or is torchvision-only (Pixtral) need torchvision; `needs_torchvision` says which, so a caller
without it can skip them instead of failing deep inside transformers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Builder = Callable[[Any, dict[str, Any], dict[str, Any]], tuple[Any, Any]]


@dataclass(frozen=True)
class TinyFamily:
    """How to build one family's tiny model."""

    arch: str
    builder: Builder
    named_tokens: dict[str, str] = field(default_factory=dict)  # tokenizer.<name> attributes
    turn_tokens: tuple[str, ...] = ()  # special tokens of the chat template
    extra_tokens: tuple[str, ...] = ()  # other special tokens (tile positions, ...)
    end_of_turn: str | None = None  # also stops generation, as the real generation configs do
    needs_torchvision: bool = False
    vision: dict[str, Any] = field(default_factory=dict)  # overrides of the default tiny vision


def _loop(turn: str, content: str, *, system: str = "") -> str:
    """A Jinja chat template: every message becomes `turn`, whose CONTENT renders the message's
    parts with `content` (one part is `c`); a system message becomes `system` where given."""
    body = turn.replace(
        "CONTENT",
        "{%- if message['content'] is string -%}{{ message['content'] }}"
        "{%- else -%}{%- for c in message['content'] -%}" + content + "{%- endfor -%}{%- endif -%}",
    )
    if system:
        body = "{%- if message['role'] == 'system' -%}" + system + "{%- else -%}" + body
        body += "{%- endif -%}"
    return "{%- for message in messages -%}" + body + "{%- endfor -%}"


def _parts(image: str) -> str:
    return (
        "{%- if c['type'] == 'image' -%}" + image + "{%- elif c['type'] == 'text' -%}"
        "{{ c['text'] }}{%- endif -%}"
    )


NL = "{{ '\\n' }}"


# ChatML (Qwen, InternVL, LLaVA-OneVision and the generic llava/idefics3 tiny models)
def _chatml(image: str) -> str:
    return (
        _loop(
            "<|im_start|>{{ message['role'] }}" + NL + "CONTENT<|im_end|>" + NL,
            _parts(image),
        )
        + "{%- if add_generation_prompt -%}<|im_start|>assistant"
        + NL
        + "{%- endif -%}"
    )


# SmolVLM: "<|im_start|>User:<image>question<end_of_utterance>\nAssistant:"
_SMOLVLM_TEMPLATE = (
    "<|im_start|>"
    + _loop(
        "{{ message['role'] | capitalize }}:CONTENT<end_of_utterance>" + NL,
        _parts("<image>"),
    )
    + "{%- if add_generation_prompt -%}Assistant:{%- endif -%}"
)

# Gemma 3: no system role; system text opens the first user turn. Roles: user / model.
_GEMMA3_TEMPLATE = (
    "{{ bos_token }}"
    "{%- set ns = namespace(system='') -%}"
    + _loop(
        "<start_of_turn>{{ 'model' if message['role'] == 'assistant' else message['role'] }}"
        + NL
        + "{%- if ns.system -%}{{ ns.system }}"
        + NL
        + NL
        + "{%- set ns.system = '' -%}{%- endif -%}CONTENT<end_of_turn>"
        + NL,
        _parts("<start_of_image>"),
        system="{%- for c in message['content'] -%}{%- set ns.system = ns.system + c['text'] -%}"
        "{%- endfor -%}",
    )
    + "{%- if add_generation_prompt -%}<start_of_turn>model"
    + NL
    + "{%- endif -%}"
)

# Mistral 3: [SYSTEM_PROMPT]...[/SYSTEM_PROMPT][INST]...[/INST]answer</s>
_MISTRAL3_TEMPLATE = "{{ bos_token }}" + _loop(
    "{%- if message['role'] == 'user' -%}[INST]CONTENT[/INST]"
    "{%- else -%}CONTENT{{ eos_token }}{%- endif -%}",
    _parts("[IMG]"),
    system="[SYSTEM_PROMPT]{%- for c in message['content'] -%}{{ c['text'] }}{%- endfor -%}"
    "[/SYSTEM_PROMPT]",
)


# --- builders ------------------------------------------------------------------------------------


def _build_llava(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    from transformers import (
        CLIPImageProcessorPil,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    size, patch = vision["image_size"], vision["patch_size"]
    config = LlavaConfig(
        vision_config=CLIPVisionConfig(projection_dim=vision["hidden_size"], **vision),
        text_config=LlamaConfig(**text),
        image_token_index=tokenizer.image_token_id,
        image_seq_length=(size // patch) ** 2,
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    image_processor = CLIPImageProcessorPil(
        size={"shortest_edge": size}, crop_size={"height": size, "width": size}
    )
    processor = LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=patch,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=_chatml("<image>"),
    )
    return LlavaForConditionalGeneration(config), processor


def _idefics3_parts(vision: dict[str, Any]) -> tuple[int, int, dict[str, Any]]:
    size, patch = vision["image_size"], vision["patch_size"]
    scale = 2 if (size // patch) % 2 == 0 else 3  # pixel shuffle; SmolVLM: 3 on 27x27 patches
    sizes = {"size": {"longest_edge": 2 * size}, "max_image_size": {"longest_edge": size}}
    return scale, (size // patch) ** 2 // scale**2, sizes


def _build_idefics3(
    tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]
) -> tuple[Any, Any]:
    from transformers import (
        Idefics3Config,
        Idefics3ForConditionalGeneration,
        Idefics3ImageProcessorPil,
        Idefics3Processor,
        Idefics3VisionConfig,
        LlamaConfig,
    )

    scale, seq_len, sizes = _idefics3_parts(vision)
    config = Idefics3Config(
        vision_config=Idefics3VisionConfig(**vision),
        text_config=LlamaConfig(**text).to_dict(),
        image_token_id=tokenizer.image_token_id,
        scale_factor=scale,
    )
    processor = Idefics3Processor(
        image_processor=Idefics3ImageProcessorPil(do_image_splitting=True, **sizes),
        tokenizer=tokenizer,
        image_seq_len=seq_len,
        chat_template=_chatml("<image>"),
    )
    return Idefics3ForConditionalGeneration(config), processor


def _build_smolvlm(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    from transformers import (
        Idefics3VisionConfig,
        LlamaConfig,
        SmolVLMConfig,
        SmolVLMForConditionalGeneration,
        SmolVLMImageProcessorPil,
        SmolVLMProcessor,
        SmolVLMVideoProcessor,
    )

    scale, seq_len, sizes = _idefics3_parts(vision)
    config = SmolVLMConfig(
        vision_config=Idefics3VisionConfig(**vision),
        text_config=LlamaConfig(**text).to_dict(),
        image_token_id=tokenizer.image_token_id,
        scale_factor=scale,
    )
    processor = SmolVLMProcessor(
        image_processor=SmolVLMImageProcessorPil(do_image_splitting=True, **sizes),
        tokenizer=tokenizer,
        # the processor insists on one (None -> TypeError); only videos use it
        video_processor=SmolVLMVideoProcessor(**sizes),
        image_seq_len=seq_len,
        chat_template=_SMOLVLM_TEMPLATE,
    )
    return SmolVLMForConditionalGeneration(config), processor


_QWEN_TOKENS = {
    "image_token": "<|image_pad|>",
    "video_token": "<|video_pad|>",
    "vision_start_token": "<|vision_start|>",
    "vision_end_token": "<|vision_end|>",
}
_QWEN_IMAGE = "<|vision_start|><|image_pad|><|vision_end|>"


def _qwen_ids(tokenizer: Any) -> dict[str, Any]:
    return {
        "image_token_id": tokenizer.image_token_id,
        "video_token_id": tokenizer.video_token_id,
        "vision_start_token_id": tokenizer.vision_start_token_id,
        "vision_end_token_id": tokenizer.vision_end_token_id,
    }


def _qwen_pixels(vision: dict[str, Any]) -> dict[str, Any]:
    """Image processor sizes: between 4 and `max_tokens` merged tokens per image."""
    unit = vision["patch_size"] * 2  # patch x spatial merge
    return {
        "size": {"shortest_edge": 4 * unit * unit, "longest_edge": vision["max_tokens"] * unit**2},
        "patch_size": vision["patch_size"],
        "merge_size": 2,
        "temporal_patch_size": 2,
    }


def _qwen_text(text: dict[str, Any], *, interleaved: bool = False) -> dict[str, Any]:
    head_dim = text["hidden_size"] // text["num_attention_heads"]
    third = head_dim // 2 // 3  # mrope sections (t, h, w) sum to head_dim / 2
    section = [head_dim // 2 - 2 * third, third, third]
    rope: dict[str, Any] = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": section}
    if interleaved:
        rope["mrope_interleaved"] = True
    return {**text, "head_dim": head_dim, "rope_parameters": rope}


def _build_qwen2_5_vl(
    tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]
) -> tuple[Any, Any]:
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessorPil,
        Qwen2VLVideoProcessor,
    )

    width = vision["hidden_size"]
    config = Qwen2_5_VLConfig(
        text_config=_qwen_text(text),
        vision_config={
            "depth": vision["num_hidden_layers"],
            "hidden_size": width,
            "intermediate_size": vision["intermediate_size"],
            "num_heads": vision["num_attention_heads"],
            "patch_size": vision["patch_size"],
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "window_size": vision["patch_size"] * 2 * 2,  # 2x2 merged tokens per window
            "out_hidden_size": text["hidden_size"],
            "fullatt_block_indexes": [vision["num_hidden_layers"] - 1],
        },
        **_qwen_ids(tokenizer),
    )
    pixels = _qwen_pixels(vision)
    processor = Qwen2_5_VLProcessor(
        image_processor=Qwen2VLImageProcessorPil(**pixels),
        tokenizer=tokenizer,
        video_processor=Qwen2VLVideoProcessor(**pixels),
        chat_template=_chatml(_QWEN_IMAGE),
    )
    return Qwen2_5_VLForConditionalGeneration(config), processor


def _build_qwen3_vl(
    tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]
) -> tuple[Any, Any]:
    from transformers import (
        Qwen2VLImageProcessorPil,
        Qwen3VLConfig,
        Qwen3VLForConditionalGeneration,
        Qwen3VLProcessor,
        Qwen3VLVideoProcessor,
    )

    layers = vision["num_hidden_layers"]
    config = Qwen3VLConfig(
        text_config=_qwen_text(text, interleaved=True),
        vision_config={
            "depth": layers,
            "hidden_size": vision["hidden_size"],
            "intermediate_size": vision["intermediate_size"],
            "num_heads": vision["num_attention_heads"],
            "patch_size": vision["patch_size"],
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "out_hidden_size": text["hidden_size"],
            "num_position_embeddings": 64,  # an 8x8 grid, interpolated to each image's
            "deepstack_visual_indexes": list(range(layers - 1)),
        },
        **_qwen_ids(tokenizer),
    )
    pixels = _qwen_pixels(vision)
    processor = Qwen3VLProcessor(
        image_processor=Qwen2VLImageProcessorPil(**pixels),
        tokenizer=tokenizer,
        video_processor=Qwen3VLVideoProcessor(**pixels),
        chat_template=_chatml(_QWEN_IMAGE),
    )
    return Qwen3VLForConditionalGeneration(config), processor


def _build_llava_onevision(
    tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]
) -> tuple[Any, Any]:
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessorPil,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
        Qwen2Config,
        SiglipVisionConfig,
    )

    size, patch = vision["image_size"], vision["patch_size"]
    # anyres: the image is tiled on the best of these grids (in pixels) plus one overview tile
    pinpoints = [[size * r, size * c] for r in (1, 2) for c in (1, 2)]
    config = LlavaOnevisionConfig(
        vision_config=SiglipVisionConfig(**vision),
        text_config=Qwen2Config(**text).to_dict(),
        image_token_index=tokenizer.image_token_id,
        video_token_index=tokenizer.video_token_id,
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
        image_grid_pinpoints=pinpoints,
    )
    square = {"height": size, "width": size}
    processor = LlavaOnevisionProcessor(
        image_processor=LlavaOnevisionImageProcessorPil(
            size=square, image_grid_pinpoints=pinpoints
        ),
        tokenizer=tokenizer,
        video_processor=LlavaOnevisionVideoProcessor(size=square),
        num_image_tokens=(size // patch) ** 2,
        vision_feature_select_strategy="full",
        vision_aspect_ratio="anyres_max_9",
        chat_template=_chatml("<image>"),
    )
    return LlavaOnevisionForConditionalGeneration(config), processor


def _build_gemma3(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    from transformers import (
        Gemma3Config,
        Gemma3ForConditionalGeneration,
        Gemma3ImageProcessorPil,
        Gemma3Processor,
        Gemma3TextConfig,
        SiglipVisionConfig,
    )

    size, patch = vision["image_size"], vision["patch_size"]
    tokens_per_image = ((size // patch) // 2) ** 2  # 2x2 average pooling of the patch grid
    head_dim = text["hidden_size"] // text["num_attention_heads"]
    text_config = Gemma3TextConfig(
        **{k: v for k, v in text.items() if k != "max_position_embeddings"},
        max_position_embeddings=text["max_position_embeddings"],
        head_dim=head_dim,
        query_pre_attn_scalar=head_dim,
        sliding_window=32,  # shorter than most prompts, so the local layers really slide
        layer_types=["sliding_attention", "full_attention"],
        rope_parameters={
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
            "full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
        },
    )
    config = Gemma3Config(
        text_config=text_config,
        vision_config=SiglipVisionConfig(**vision),
        mm_tokens_per_image=tokens_per_image,
        boi_token_index=tokenizer.boi_token_id,
        eoi_token_index=tokenizer.eoi_token_id,
        image_token_index=tokenizer.image_token_id,
    )
    processor = Gemma3Processor(
        image_processor=Gemma3ImageProcessorPil(size={"height": size, "width": size}),
        tokenizer=tokenizer,
        image_seq_length=tokens_per_image,
        chat_template=_GEMMA3_TEMPLATE,
    )
    return Gemma3ForConditionalGeneration(config), processor


def _build_internvl(
    tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]
) -> tuple[Any, Any]:
    from transformers import (
        GotOcr2ImageProcessorPil,
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLProcessor,
        InternVLVideoProcessor,
        InternVLVisionConfig,
        Qwen2Config,
    )

    size, patch = vision["image_size"], vision["patch_size"]
    seq_len = (size // patch) ** 2 // 4  # pixel shuffle with downsample ratio 0.5
    config = InternVLConfig(
        vision_config=InternVLVisionConfig(
            **{**vision, "image_size": [size, size], "patch_size": [patch, patch]}
        ),
        text_config=Qwen2Config(**text).to_dict(),
        image_token_id=tokenizer.context_image_token_id,
        image_seq_length=seq_len,
        downsample_ratio=0.5,
        vision_feature_layer=-1,
        vision_feature_select_strategy="default",
    )
    square = {"height": size, "width": size}
    processor = InternVLProcessor(
        # dynamic tiling: up to 4 tiles by aspect ratio, plus a thumbnail when tiled
        image_processor=GotOcr2ImageProcessorPil(
            size=square, crop_to_patches=True, min_patches=1, max_patches=4
        ),
        tokenizer=tokenizer,
        video_processor=InternVLVideoProcessor(size=square),
        image_seq_length=seq_len,
        chat_template=_chatml("<IMG_CONTEXT>"),
    )
    return InternVLForConditionalGeneration(config), processor


def _build_mistral3(
    tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]
) -> tuple[Any, Any]:
    from transformers import (
        Mistral3Config,
        Mistral3ForConditionalGeneration,
        MistralConfig,
        PixtralImageProcessorPil,
        PixtralProcessor,
        PixtralVisionConfig,
    )

    patch = vision["patch_size"]
    config = Mistral3Config(
        vision_config=PixtralVisionConfig(
            **vision,
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0},
        ),
        text_config=MistralConfig(**text, sliding_window=None),
        image_token_index=tokenizer.convert_tokens_to_ids("[IMG]"),
        spatial_merge_size=2,
        vision_feature_layer=-1,
        multimodal_projector_bias=False,
    )
    processor = PixtralProcessor(
        # any aspect ratio, the longer side up to `image_size` (Pixtral's variable resolution)
        image_processor=PixtralImageProcessorPil(
            size={"longest_edge": vision["image_size"]}, patch_size=patch
        ),
        tokenizer=tokenizer,
        patch_size=patch,
        spatial_merge_size=2,
        chat_template=_MISTRAL3_TEMPLATE,
    )
    return Mistral3ForConditionalGeneration(config), processor


_IDEFICS3_TOKENS = {
    "image_token": "<image>",
    "fake_image_token": "<fake_token_around_image>",
    "global_image_token": "<global-img>",
    "end_of_utterance_token": "<end_of_utterance>",
}
_TILE_TOKENS = tuple(f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7))
_CHATML_TOKENS = ("<|im_start|>", "<|im_end|>")
_QWEN_VISION = {"patch_size": 8, "max_tokens": 16}  # 16x16 px per merged token, 4-16 per image

FAMILIES: dict[str, TinyFamily] = {
    f.arch: f
    for f in (
        TinyFamily(
            "llava",
            _build_llava,
            {"image_token": "<image>"},
            _CHATML_TOKENS,
        ),
        TinyFamily(
            "idefics3",
            _build_idefics3,
            _IDEFICS3_TOKENS,
            _CHATML_TOKENS,
            _TILE_TOKENS,
        ),
        TinyFamily(
            "smolvlm",
            _build_smolvlm,
            _IDEFICS3_TOKENS,
            _CHATML_TOKENS,
            _TILE_TOKENS,
            end_of_turn="<end_of_utterance>",
            needs_torchvision=True,
        ),
        TinyFamily(
            "qwen2_5_vl",
            _build_qwen2_5_vl,
            _QWEN_TOKENS,
            _CHATML_TOKENS,
            end_of_turn="<|im_end|>",
            needs_torchvision=True,
            vision=_QWEN_VISION,
        ),
        TinyFamily(
            "qwen3_vl",
            _build_qwen3_vl,
            _QWEN_TOKENS,
            _CHATML_TOKENS,
            end_of_turn="<|im_end|>",
            needs_torchvision=True,
            vision=_QWEN_VISION,
        ),
        TinyFamily(
            "llava_onevision",
            _build_llava_onevision,
            {"image_token": "<image>", "video_token": "<video>"},
            _CHATML_TOKENS,
            end_of_turn="<|im_end|>",
            needs_torchvision=True,
        ),
        TinyFamily(
            "gemma3",
            _build_gemma3,
            {
                "image_token": "<image_soft_token>",
                "boi_token": "<start_of_image>",
                "eoi_token": "<end_of_image>",
            },
            ("<start_of_turn>", "<end_of_turn>"),
            end_of_turn="<end_of_turn>",
        ),
        TinyFamily(
            "internvl",
            _build_internvl,
            {
                "start_image_token": "<img>",
                "end_image_token": "</img>",
                "context_image_token": "<IMG_CONTEXT>",
                "video_token": "<video>",
            },
            _CHATML_TOKENS,
            end_of_turn="<|im_end|>",
            needs_torchvision=True,
        ),
        TinyFamily(
            "mistral3",
            _build_mistral3,
            {},
            ("[INST]", "[/INST]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]"),
            ("[IMG]", "[IMG_BREAK]", "[IMG_END]"),
            needs_torchvision=True,
            vision={"image_size": 64},  # longest side; 8 px patches merged 2x2: up to 4x4 tokens
        ),
    )
}
