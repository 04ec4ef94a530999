"""The families `make-tiny-model` builds: each one's special tokens, chat template and builder.

A family's text side lives here, as data: the special tokens its tokenizer is trained with and the
chat template that writes them, kept side by side because each must match the other. Its model
side, config and processor from the sizes, is a builder in `tiny_builders`. The chat templates
follow each family's real one in shape (turn markers, where image placeholders go, how system
text is carried), cut down to what the pipeline sends: text and image parts, system text,
`add_generation_prompt` (and `enable_thinking`, for the thinking variant of llava).

Families whose processor owns a video processor (Qwen-VL, SmolVLM, LLaVA-OneVision, InternVL)
or is torchvision-only (Pixtral) need torchvision; `needs_torchvision` says which, so a caller
without it can skip them instead of failing deep inside transformers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vlmscope.models import tiny_builders as builders

Builder = Callable[[Any, dict[str, Any], dict[str, Any]], tuple[Any, Any]]


@dataclass(frozen=True)
class TinyFamily:
    """How to build one family's tiny model."""

    arch: str
    build: Builder  # (tokenizer, text sizes, vision sizes) -> (model, processor)
    chat_template: str
    named_tokens: dict[str, str] = field(default_factory=dict)  # tokenizer.<name> attributes
    turn_tokens: tuple[str, ...] = ()  # special tokens of the chat template
    extra_tokens: tuple[str, ...] = ()  # other special tokens (tile positions, ...)
    end_of_turn: str | None = None  # also stops generation, as the real generation configs do
    needs_torchvision: bool = False
    vision: dict[str, Any] = field(default_factory=dict)  # overrides of the default tiny vision

    def builder(
        self, tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]
    ) -> tuple[Any, Any]:
        """The model and its processor, which gets the family's chat template from here."""
        model, processor = self.build(tokenizer, text, vision)
        processor.chat_template = self.chat_template
        return model, processor


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


# A thinking model's ChatML (Qwen3-VL-Thinking, GLM-4.5V): the assistant turn opens a reasoning
# trace, `<think>` and a newline; `enable_thinking=False` (a chat-template argument) closes an
# empty one instead, so the reply is the answer alone.
_CHATML_THINKING = (
    _loop("<|im_start|>{{ message['role'] }}" + NL + "CONTENT<|im_end|>" + NL, _parts("<image>"))
    + "{%- if add_generation_prompt -%}<|im_start|>assistant"
    + NL
    + "{%- if enable_thinking is defined and not enable_thinking -%}<think>"
    + NL
    + NL
    + "</think>"
    + NL
    + NL
    + "{%- else -%}<think>"
    + NL
    + "{%- endif -%}{%- endif -%}"
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


_IDEFICS3_TOKENS = {
    "image_token": "<image>",
    "fake_image_token": "<fake_token_around_image>",
    "global_image_token": "<global-img>",
    "end_of_utterance_token": "<end_of_utterance>",
}
_TILE_TOKENS = tuple(f"<row_{r}_col_{c}>" for r in range(1, 7) for c in range(1, 7))
_QWEN_TOKENS = {
    "image_token": "<|image_pad|>",
    "video_token": "<|video_pad|>",
    "vision_start_token": "<|vision_start|>",
    "vision_end_token": "<|vision_end|>",
}
_QWEN_IMAGE = "<|vision_start|><|image_pad|><|vision_end|>"
_QWEN_VISION = {"patch_size": 8, "max_tokens": 16}  # 16x16 px per merged token, 4-16 per image
_CHATML_TOKENS = ("<|im_start|>", "<|im_end|>")
_IM_END = "<|im_end|>"

FAMILIES: dict[str, TinyFamily] = {
    f.arch: f
    for f in (
        TinyFamily("llava", builders.llava, _chatml("<image>"),
                   named_tokens={"image_token": "<image>"}, turn_tokens=_CHATML_TOKENS),
        TinyFamily("llava_thinking", builders.llava, _CHATML_THINKING,
                   named_tokens={"image_token": "<image>"}, turn_tokens=_CHATML_TOKENS),
        TinyFamily("idefics3", builders.idefics3, _chatml("<image>"),
                   named_tokens=_IDEFICS3_TOKENS, turn_tokens=_CHATML_TOKENS,
                   extra_tokens=_TILE_TOKENS),
        TinyFamily("smolvlm", builders.smolvlm, _SMOLVLM_TEMPLATE,
                   named_tokens=_IDEFICS3_TOKENS, turn_tokens=_CHATML_TOKENS,
                   extra_tokens=_TILE_TOKENS, end_of_turn="<end_of_utterance>",
                   needs_torchvision=True),
        TinyFamily("qwen2_5_vl", builders.qwen2_5_vl, _chatml(_QWEN_IMAGE),
                   named_tokens=_QWEN_TOKENS, turn_tokens=_CHATML_TOKENS, end_of_turn=_IM_END,
                   needs_torchvision=True, vision=_QWEN_VISION),
        TinyFamily("qwen3_vl", builders.qwen3_vl, _chatml(_QWEN_IMAGE),
                   named_tokens=_QWEN_TOKENS, turn_tokens=_CHATML_TOKENS, end_of_turn=_IM_END,
                   needs_torchvision=True, vision=_QWEN_VISION),
        TinyFamily("llava_onevision", builders.llava_onevision, _chatml("<image>"),
                   named_tokens={"image_token": "<image>", "video_token": "<video>"},
                   turn_tokens=_CHATML_TOKENS, end_of_turn=_IM_END, needs_torchvision=True),
        TinyFamily("gemma3", builders.gemma3, _GEMMA3_TEMPLATE,
                   named_tokens={"image_token": "<image_soft_token>",
                                 "boi_token": "<start_of_image>", "eoi_token": "<end_of_image>"},
                   turn_tokens=("<start_of_turn>", "<end_of_turn>"), end_of_turn="<end_of_turn>"),
        TinyFamily("internvl", builders.internvl, _chatml("<IMG_CONTEXT>"),
                   named_tokens={"start_image_token": "<img>", "end_image_token": "</img>",
                                 "context_image_token": "<IMG_CONTEXT>", "video_token": "<video>"},
                   turn_tokens=_CHATML_TOKENS, end_of_turn=_IM_END, needs_torchvision=True),
        TinyFamily("mistral3", builders.mistral3, _MISTRAL3_TEMPLATE,
                   turn_tokens=("[INST]", "[/INST]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]"),
                   extra_tokens=("[IMG]", "[IMG_BREAK]", "[IMG_END]"), needs_torchvision=True,
                   # longest side; 8 px patches merged 2x2: up to 4x4 tokens
                   vision={"image_size": 64}),
    )
}  # fmt: skip
