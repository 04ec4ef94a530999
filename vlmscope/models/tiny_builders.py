"""Config, random weights and processor of each tiny family, sized from the text and vision sizes.

Every builder takes the trained tokenizer, the text sizes (token ids filled in) and the vision
sizes, and returns `(model, processor)`; `tiny_families` gives the processor its chat template.
The processor's tile size and image-token count are derived from the vision sizes here, so a
caller that overrides them (a full-size benchmark model) still gets a consistent pair.
transformers is imported inside each builder: importing the family table stays cheap.
"""

from __future__ import annotations

from typing import Any


def _patches(vision: dict[str, Any]) -> int:
    """Patches of one image (or tile): the image tokens before any merging."""
    return (vision["image_size"] // vision["patch_size"]) ** 2


def _square(vision: dict[str, Any]) -> dict[str, int]:
    return {"height": vision["image_size"], "width": vision["image_size"]}


def llava(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    import transformers

    config = transformers.LlavaConfig(
        vision_config=transformers.CLIPVisionConfig(projection_dim=vision["hidden_size"], **vision),
        text_config=transformers.LlamaConfig(**text),
        image_token_index=tokenizer.image_token_id,
        image_seq_length=_patches(vision),
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
    )
    processor = transformers.LlavaProcessor(
        image_processor=transformers.CLIPImageProcessorPil(
            size={"shortest_edge": vision["image_size"]}, crop_size=_square(vision)
        ),
        tokenizer=tokenizer,
        patch_size=vision["patch_size"],
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
    )
    return transformers.LlavaForConditionalGeneration(config), processor


def _classes(family: str, *kinds: str) -> list[Any]:
    """transformers' `<family><kind>` classes: ("SmolVLM", "Config") -> `SmolVLMConfig`."""
    import transformers

    return [getattr(transformers, family + kind) for kind in kinds]


def _pixel_shuffled(
    tokenizer: Any, text: dict[str, Any], vision: dict[str, Any], family: str, *, videos: bool
) -> tuple[Any, Any]:
    """Idefics3 and SmolVLM, which differ only in their classes' family name and SmolVLM's
    video processor: tiles of `image_size` px, each one's patches pixel-shuffled into fewer
    tokens."""
    import transformers

    config_class, model_class, processor_class, image_processor_class = _classes(
        family, "Config", "ForConditionalGeneration", "Processor", "ImageProcessorPil"
    )
    video_processor = _classes(family, "VideoProcessor")[0] if videos else None
    side = vision["image_size"] // vision["patch_size"]
    scale = 2 if side % 2 == 0 else 3  # SmolVLM: 3 on 27x27 patches
    sizes = {
        "size": {"longest_edge": 2 * vision["image_size"]},
        "max_image_size": {"longest_edge": vision["image_size"]},
    }
    config = config_class(
        vision_config=transformers.Idefics3VisionConfig(**vision),
        text_config=transformers.LlamaConfig(**text).to_dict(),
        image_token_id=tokenizer.image_token_id,
        scale_factor=scale,
    )
    video = {} if video_processor is None else {"video_processor": video_processor(**sizes)}
    processor = processor_class(
        image_processor=image_processor_class(do_image_splitting=True, **sizes),
        tokenizer=tokenizer,
        image_seq_len=side**2 // scale**2,
        **video,
    )
    return model_class(config), processor


def idefics3(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    return _pixel_shuffled(tokenizer, text, vision, "Idefics3", videos=False)


def smolvlm(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    # the processor insists on a video processor (None -> TypeError); only videos use it
    return _pixel_shuffled(tokenizer, text, vision, "SmolVLM", videos=True)


def _qwen_vl(
    tokenizer: Any,
    text: dict[str, Any],
    vision: dict[str, Any],
    families: tuple[str, str],
    vision_config: dict[str, Any],
    *,
    interleaved: bool,
) -> tuple[Any, Any]:
    """Qwen2.5-VL and Qwen3-VL, which differ in their classes' family names (the model's, the
    video processor's), a few `vision_config` fields, and whether the text's mrope sections
    interleave. Patches are merged 2x2 into tokens; each image gets between 4 and `max_tokens`
    of them."""
    import transformers

    model_family, video_family = families
    config_class, model_class, processor_class = _classes(
        model_family, "Config", "ForConditionalGeneration", "Processor"
    )
    (video_processor_class,) = _classes(video_family, "VideoProcessor")
    head_dim = text["hidden_size"] // text["num_attention_heads"]
    third = head_dim // 2 // 3  # mrope sections (t, h, w) sum to head_dim / 2
    rope: dict[str, Any] = {
        "rope_type": "default",
        "rope_theta": 10000.0,
        "mrope_section": [head_dim // 2 - 2 * third, third, third],
    }
    if interleaved:
        rope["mrope_interleaved"] = True
    config = config_class(
        text_config={**text, "head_dim": head_dim, "rope_parameters": rope},
        vision_config={
            "depth": vision["num_hidden_layers"],
            "hidden_size": vision["hidden_size"],
            "intermediate_size": vision["intermediate_size"],
            "num_heads": vision["num_attention_heads"],
            "patch_size": vision["patch_size"],
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "out_hidden_size": text["hidden_size"],
            **vision_config,
        },
        image_token_id=tokenizer.image_token_id,
        video_token_id=tokenizer.video_token_id,
        vision_start_token_id=tokenizer.vision_start_token_id,
        vision_end_token_id=tokenizer.vision_end_token_id,
    )
    unit = vision["patch_size"] * 2  # patch x spatial merge
    pixels = {
        "size": {"shortest_edge": 4 * unit * unit, "longest_edge": vision["max_tokens"] * unit**2},
        "patch_size": vision["patch_size"],
        "merge_size": 2,
        "temporal_patch_size": 2,
    }
    processor = processor_class(
        image_processor=transformers.Qwen2VLImageProcessorPil(**pixels),
        tokenizer=tokenizer,
        video_processor=video_processor_class(**pixels),
    )
    return model_class(config), processor


def qwen2_5_vl(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    vision_config = {
        "window_size": vision["patch_size"] * 2 * 2,  # 2x2 merged tokens per window
        "fullatt_block_indexes": [vision["num_hidden_layers"] - 1],
    }
    families = ("Qwen2_5_VL", "Qwen2VL")  # Qwen2.5-VL reuses Qwen2-VL's video processor
    return _qwen_vl(tokenizer, text, vision, families, vision_config, interleaved=False)


def qwen3_vl(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    vision_config = {
        "num_position_embeddings": 64,  # an 8x8 grid, interpolated to each image's
        "deepstack_visual_indexes": list(range(vision["num_hidden_layers"] - 1)),
    }
    families = ("Qwen3VL", "Qwen3VL")
    return _qwen_vl(tokenizer, text, vision, families, vision_config, interleaved=True)


def llava_onevision(
    tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]
) -> tuple[Any, Any]:
    import transformers

    size = vision["image_size"]
    # anyres: the image is tiled on the best of these grids (in pixels) plus one overview tile
    pinpoints = [[size * r, size * c] for r in (1, 2) for c in (1, 2)]
    config = transformers.LlavaOnevisionConfig(
        vision_config=transformers.SiglipVisionConfig(**vision),
        text_config=transformers.Qwen2Config(**text).to_dict(),
        image_token_index=tokenizer.image_token_id,
        video_token_index=tokenizer.video_token_id,
        vision_feature_select_strategy="full",
        vision_feature_layer=-1,
        image_grid_pinpoints=pinpoints,
    )
    processor = transformers.LlavaOnevisionProcessor(
        image_processor=transformers.LlavaOnevisionImageProcessorPil(
            size=_square(vision), image_grid_pinpoints=pinpoints
        ),
        tokenizer=tokenizer,
        video_processor=transformers.LlavaOnevisionVideoProcessor(size=_square(vision)),
        num_image_tokens=_patches(vision),
        vision_feature_select_strategy="full",
        vision_aspect_ratio="anyres_max_9",
    )
    return transformers.LlavaOnevisionForConditionalGeneration(config), processor


def gemma3(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    import transformers

    tokens_per_image = _patches(vision) // 4  # 2x2 average pooling of the patch grid
    head_dim = text["hidden_size"] // text["num_attention_heads"]
    text_config = transformers.Gemma3TextConfig(
        **text,
        head_dim=head_dim,
        query_pre_attn_scalar=head_dim,
        sliding_window=32,  # shorter than most prompts, so the local layers really slide
        layer_types=["sliding_attention", "full_attention"],
        rope_parameters={
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
            "full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
        },
    )
    config = transformers.Gemma3Config(
        text_config=text_config,
        vision_config=transformers.SiglipVisionConfig(**vision),
        mm_tokens_per_image=tokens_per_image,
        boi_token_index=tokenizer.boi_token_id,
        eoi_token_index=tokenizer.eoi_token_id,
        image_token_index=tokenizer.image_token_id,
    )
    processor = transformers.Gemma3Processor(
        image_processor=transformers.Gemma3ImageProcessorPil(size=_square(vision)),
        tokenizer=tokenizer,
        image_seq_length=tokens_per_image,
    )
    return transformers.Gemma3ForConditionalGeneration(config), processor


def internvl(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    import transformers

    size, patch = vision["image_size"], vision["patch_size"]
    seq_len = _patches(vision) // 4  # pixel shuffle with downsample ratio 0.5
    config = transformers.InternVLConfig(
        vision_config=transformers.InternVLVisionConfig(
            **{**vision, "image_size": [size, size], "patch_size": [patch, patch]}
        ),
        text_config=transformers.Qwen2Config(**text).to_dict(),
        image_token_id=tokenizer.context_image_token_id,
        image_seq_length=seq_len,
        downsample_ratio=0.5,
        vision_feature_layer=-1,
        vision_feature_select_strategy="default",
    )
    processor = transformers.InternVLProcessor(
        # dynamic tiling: up to 4 tiles by aspect ratio, plus a thumbnail when tiled
        image_processor=transformers.GotOcr2ImageProcessorPil(
            size=_square(vision), crop_to_patches=True, min_patches=1, max_patches=4
        ),
        tokenizer=tokenizer,
        video_processor=transformers.InternVLVideoProcessor(size=_square(vision)),
        image_seq_length=seq_len,
    )
    return transformers.InternVLForConditionalGeneration(config), processor


def mistral3(tokenizer: Any, text: dict[str, Any], vision: dict[str, Any]) -> tuple[Any, Any]:
    import transformers

    config = transformers.Mistral3Config(
        vision_config=transformers.PixtralVisionConfig(
            **vision, rope_parameters={"rope_type": "default", "rope_theta": 10000.0}
        ),
        text_config=transformers.MistralConfig(**text, sliding_window=None),
        image_token_index=tokenizer.convert_tokens_to_ids("[IMG]"),
        spatial_merge_size=2,
        vision_feature_layer=-1,
        multimodal_projector_bias=False,
    )
    processor = transformers.PixtralProcessor(
        # any aspect ratio, the longer side up to `image_size` (Pixtral's variable resolution)
        image_processor=transformers.PixtralImageProcessorPil(
            size={"longest_edge": vision["image_size"]}, patch_size=vision["patch_size"]
        ),
        tokenizer=tokenizer,
        patch_size=vision["patch_size"],
        spatial_merge_size=2,
    )
    return transformers.Mistral3ForConditionalGeneration(config), processor
