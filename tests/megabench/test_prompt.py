"""MEGA-Bench prompts as the official query side builds them."""

import io

import pytest
from PIL import Image

from vlmscope.config import ImageBudget
from vlmscope.messages import GenerationParams, ImagePart, TextPart
from vlmscope.tracks.megabench.media import image_part
from vlmscope.tracks.megabench.prompt import (
    SKIP_TEXT,
    VIDEO_END,
    VIDEO_START,
    build_prompt,
    strip_cot,
)
from vlmscope.tracks.megabench.rows import RowError, group_by_task, read_rows
from vlmscope.tracks.shipped_samples import sample_dir

SAMPLE = sample_dir("megabench")
TASKS = group_by_task(read_rows(SAMPLE, "core"))
PARAMS = GenerationParams(max_new_tokens=16)


DEFAULT_BUDGET = ImageBudget()


def build(task, budget=DEFAULT_BUDGET, **kw):
    return build_prompt(TASKS[task][0], SAMPLE, budget, params=PARAMS, **kw)


def kinds(request):
    return ["img" if isinstance(p, ImagePart) else p.text for p in request.turns[0].parts]


def test_one_user_turn_description_demo_query_in_order():
    built = build("sample_min_multi_image")
    request = built.request
    assert len(request.turns) == 1 and request.turns[0].role == "user" and request.system is None
    parts = kinds(request)
    # description "The legend <image> gives..." -> text, legend, text; demo: header, 2 images, rest; query: text, 2 images
    assert parts[0] == "The legend" and parts[1] == "img"
    assert parts[2].startswith("gives the unit")
    assert parts.count("img") == 1 + 2 + 2
    assert parts[-3] == "What is the sum and the product?" and parts[-2:] == ["img", "img"]
    assert not built.over_budget and built.notes == ()


def test_demo_image_share_and_skip_over_budget():
    built = build("sample_single_answer", ImageBudget(max_images=4, in_context_images=0))
    assert (
        kinds(built.request).count("img") == 1
    )  # the demo image is dropped, the query image stays
    assert built.notes == ("skipped demo image demo.png",)
    over = build("sample_min_multi_image", ImageBudget(max_images=3, in_context_images=2))
    assert over.over_budget and kinds(over.request) == [SKIP_TEXT]


def frames(budget):
    parts = build("sample_video_count", budget).request.turns[0].parts
    texts = [p.text if isinstance(p, TextPart) else p.name for p in parts]
    return texts[texts.index(VIDEO_START) + 1 : texts.index(VIDEO_END)]


def test_video_frames_sampled_within_budget_between_markers():
    # 6 frames; gap = ceil(6 / frames allowed); every frame whose index % gap == 0 is kept
    assert frames(ImageBudget(max_images=6)) == [f"frame_{i:03d}.png" for i in range(6)]
    assert frames(ImageBudget(max_images=3)) == ["frame_000.png", "frame_002.png", "frame_004.png"]
    assert frames(ImageBudget(max_images=2)) == ["frame_000.png", "frame_003.png"]


def test_placeholder_count_must_match_media():
    row = TASKS["sample_single_answer"][0]
    bad = type(row)(**{**row.__dict__, "query_media": ()})
    with pytest.raises(RowError, match="query_text.*1 placeholders for 0 media"):
        build_prompt(bad, SAMPLE, ImageBudget(), params=PARAMS)


def test_images_flattened_and_capped(tmp_path):
    path = tmp_path / "big.png"
    Image.new("RGBA", (2400, 1200), (255, 0, 0, 0)).save(path)
    image = Image.open(io.BytesIO(image_part(path, 1000).data))
    assert image.size == (1000, 500) and image.mode == "RGB"
    assert image.getpixel((10, 10)) == (255, 255, 255)  # transparent -> white


def test_no_cot_setting_removes_reasoning_and_step_by_step():
    text = TASKS["sample_single_answer"][0].example_text
    assert "Think step by step" in text and "[PLEASE OUTPUT YOUR REASONING]" in text
    stripped = strip_cot(text)
    assert "Think step by step" not in stripped and "[PLEASE OUTPUT YOUR REASONING]" not in stripped
    assert "Answer: A" in stripped
    parts = build("sample_single_answer", cot=False).request.turns[0].parts
    assert all("step by step" not in p.text for p in parts if isinstance(p, TextPart))
