"""Request -> vLLM input translation, on its own: no vLLM, no GPU."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.models.helpers import png
from vlmscope.config import ImageBudget
from vlmscope.messages import GenerationParams, ImagePart, Request, TextPart, Turn, user_request
from vlmscope.models.hf_inputs import Encoder
from vlmscope.models.images import limit_images
from vlmscope.models.vllm_inputs import sampling_kwargs, to_vllm


class Template:
    """A chat template that spells each part: `[user: <image> | What?]`."""

    image_token = "<image>"

    def __init__(self) -> None:
        self.seen: list[list[dict[str, Any]]] = []

    def apply_chat_template(self, conversation: Any, **kwargs: Any) -> str:
        assert kwargs == {"add_generation_prompt": True, "tokenize": False}
        self.seen.append(conversation)
        turns = []
        for message in conversation:
            parts = [
                self.image_token if part["type"] == "image" else part["text"]
                for part in message["content"]
            ]
            turns.append(f"[{message['role']}: {' | '.join(parts)}]")
        return "".join(turns) + "[assistant:"


def test_text_only_request_has_no_multimodal_data() -> None:
    translated = to_vllm(
        user_request("What is 2 + 2?", system="Be brief."), Template(), ImageBudget()
    )
    assert translated.prompt == {"prompt": "[system: Be brief.][user: What is 2 + 2?][assistant:"}
    assert translated.images == 0 and translated.notes == ()
    assert translated.sampling == {
        "max_tokens": 512,
        "temperature": 0.0,
        "n": 1,
        "skip_special_tokens": True,
    }


@pytest.mark.parametrize(
    ("requested", "cap", "expected"), [(512, None, 512), (512, 64, 64), (16, 64, 16)]
)
def test_the_token_limit_is_the_requests_lowered_to_the_cap(
    requested: int, cap: int | None, expected: int
) -> None:
    params = GenerationParams(max_new_tokens=requested, temperature=0.7)
    sampling = sampling_kwargs(params, cap)
    # greedy whatever the request asks, as the hf backend: answers must repeat
    assert sampling["max_tokens"] == expected and sampling["temperature"] == 0.0
    request = user_request("hi", params=params)
    assert to_vllm(request, Template(), ImageBudget(), cap).sampling == sampling


def test_the_image_budget_keeps_the_last_images_within_the_side_cap() -> None:
    """As the hf backend: the last `max_images`, the longer side capped (1000 px by default),
    with the same notes `images.limit_images` writes."""
    images = [png(30, 10, seed=1), png(12, 12, seed=2), png(1500, 600, seed=3), png(8, 20, seed=4)]
    request = user_request(*images, "Which is largest?")
    budget = ImageBudget(max_images=3)
    translated = to_vllm(request, Template(), budget)
    _, expected_notes = limit_images(request, 3, 1000)
    assert (
        translated.notes
        == tuple(expected_notes)
        == (
            "dropped image 1 of 4",
            "resized image 3 from 1500x600 to 1000x400",
        )
    )
    assert translated.images == 3
    sent = translated.prompt["multi_modal_data"]["image"]
    assert [image.size for image in sent] == [(12, 12), (1000, 400), (8, 20)]
    assert all(image.mode == "RGB" for image in sent)
    assert translated.prompt["prompt"] == (
        "[user: <image> | <image> | <image> | Which is largest?][assistant:"
    )
    # the pixels are the request's own (a kept image is not re-encoded)
    with Image.open(io.BytesIO(images[1])) as original:
        assert list(sent[0].getdata()) == list(original.convert("RGB").getdata())


def test_keep_lowers_the_image_count_for_an_overflow_retry() -> None:
    request = user_request(*(png(10, 10, seed=s) for s in range(5)), "how many?")
    assert to_vllm(request, Template(), ImageBudget(), keep=2).images == 2
    none = to_vllm(request, Template(), ImageBudget(), keep=0)
    assert "multi_modal_data" not in none.prompt and none.prompt["prompt"].count("<image>") == 0
    assert none.notes[:5] == tuple(f"dropped image {n} of 5" for n in range(1, 6))


def test_images_in_any_mode_arrive_as_rgb_in_order() -> None:
    buffer = io.BytesIO()
    Image.new("P", (6, 4)).save(buffer, format="PNG")
    rgba = io.BytesIO()
    Image.new("RGBA", (5, 5), (10, 20, 30, 0)).save(rgba, format="PNG")
    request = Request(
        turns=(
            Turn("user", (ImagePart(buffer.getvalue()), TextPart("first"))),
            Turn("assistant", (TextPart("ok"),)),
            Turn("user", (TextPart("second"), ImagePart(rgba.getvalue()))),
        )
    )
    translated = to_vllm(request, Template(), ImageBudget())
    sent = translated.prompt["multi_modal_data"]["image"]
    assert [(i.size, i.mode) for i in sent] == [((6, 4), "RGB"), ((5, 5), "RGB")]
    assert translated.prompt["prompt"] == (
        "[user: <image> | first][assistant: ok][user: second | <image>][assistant:"
    )


def test_text_that_spells_the_image_token_stays_text() -> None:
    template = Template()
    translated = to_vllm(user_request(png(8, 8, 0), "Is <image> a tag?"), template, ImageBudget())
    assert translated.prompt["prompt"].count("<image>") == 1  # the real image only
    assert translated.images == 1


def test_an_unreadable_image_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="cannot be read"):
        to_vllm(user_request(b"not an image at all", "what is it?"), Template(), ImageBudget())


def test_the_prompt_is_the_one_the_hf_backend_builds(tiny_dirs: dict[str, Path]) -> None:
    """With a real processor: the same chat-template text and the same images as `hf`."""
    from transformers import AutoProcessor

    for arch in ("llava", "idefics3"):
        processor = AutoProcessor.from_pretrained(tiny_dirs[arch])
        request = user_request(
            png(40, 30, seed=1), png(20, 50, seed=2), "Compare them.", system="Be brief."
        )
        budget = ImageBudget(max_images=1, max_side=25)
        translated = to_vllm(request, processor, budget)
        fitted, _ = limit_images(request, 1, 25)
        prompt, images = Encoder(processor, budget, None).prompt_and_images(fitted)
        assert translated.prompt["prompt"] == prompt, arch
        sent = translated.prompt["multi_modal_data"]["image"]
        assert [i.tobytes() for i in sent] == [i.tobytes() for i in images], arch
