"""The ProBench judge request, byte for byte the official format (`gen_judgement.py`)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

from vlmscope.judges.request import judge_request
from vlmscope.messages import ImagePart, TextPart
from vlmscope.models.openai_payload import chat_body
from vlmscope.prompts import read_prompt_file
from vlmscope.tracks.probench.judging import (
    PROBENCH_JUDGE,
    judge_game_request,
    judge_image,
    judge_text,
)

SPEC_PROMPT_TITLES = {
    "singleround": "single-round",
    "multi-round": "multi-round",
    "multi-linguistic": "multi-linguistic",
}
FILES = {
    "singleround": "probench_judge_singleround.txt",
    "multi-round": "probench_judge_multiround.txt",
    "multi-linguistic": "probench_judge_multilinguistic.txt",
}


def _png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 60)).save(buffer, format="PNG")
    return buffer.getvalue()


def test_single_round_text_quotes_the_turn_lists() -> None:
    text = judge_text("singleround", ["What is shown?"], ["It's a cat."], ["A dog"])
    assert text == (
        "Textual Instruction:\n<inst/>\n['What is shown?']\n</inst>\n\n"
        "Assistant A's Answer:\n<a/>\n[\"It's a cat.\"]\n</a>\n\n"
        "Assistant B's Answer:\n<b/>\n['A dog']\n</b>"
    )


def test_multi_round_text_has_one_block_per_turn_from_zero() -> None:
    text = judge_text("multi-round", ["q1", "q2"], ["a1", "a2"], ["b1", "b2"])
    assert text == (
        "<turn0/>\nTextual Instruction:\n<inst/>\nq1\n</inst>\n\n"
        "Assistant A's Answer:\n<a/>\na1\n</a>\n\n"
        "Assistant B's Answer:\n<b/>\nb1\n</b>\n</turn0>\n\n"
        "<turn1/>\nTextual Instruction:\n<inst/>\nq2\n</inst>\n\n"
        "Assistant A's Answer:\n<a/>\na2\n</a>\n\n"
        "Assistant B's Answer:\n<b/>\nb2\n</b>\n</turn1>"
    )


def test_multi_linguistic_uses_the_single_round_layout() -> None:
    assert judge_text("multi-linguistic", ["Olá?"], ["x"], ["y"]) == judge_text(
        "singleround", ["Olá?"], ["x"], ["y"]
    )


@pytest.mark.parametrize("chat_type", list(FILES))
def test_system_prompts_are_the_official_text_verbatim(chat_type: str) -> None:
    spec = (Path(__file__).resolve().parents[1] / "golden" / "probench_judge_prompts.md").read_text(
        encoding="utf-8"
    )
    title = SPEC_PROMPT_TITLES[chat_type]
    match = re.search(rf"## System prompt: {title} \(.*?\n\n````text\n(.*?)\n````", spec, re.S)
    assert match is not None
    prompt = read_prompt_file(FILES[chat_type])
    assert prompt.text == match.group(1)
    assert prompt.header["verbatim"] is True
    assert "{images}" in prompt.text  # literal braces: the prompt is never .format()-ed


@pytest.mark.parametrize(
    ("size", "expected"),
    [((1400, 600), (1024, 438)), ((600, 2000), (307, 1024)), ((800, 600), (800, 600))],
)
def test_judge_image_is_rgb_jpeg_with_long_side_at_most_1024(
    size: tuple[int, int], expected: tuple[int, int]
) -> None:
    part = judge_image(_png(*size))
    with Image.open(io.BytesIO(part.data)) as image:
        assert image.format == "JPEG"
        assert image.mode == "RGB"
        assert image.size == expected


def test_request_is_system_then_image_then_text() -> None:
    image = judge_image(_png(1400, 600))
    request = judge_game_request("singleround", image, ["q"], ["a"], ["b"])
    assert request.system == read_prompt_file(FILES["singleround"]).text
    (turn,) = request.turns
    assert turn.role == "user"
    assert turn.parts == (image, TextPart(judge_text("singleround", ["q"], ["a"], ["b"])))
    assert isinstance(turn.parts[0], ImagePart)
    assert request.params.temperature == 0.0
    assert request.params.max_new_tokens == PROBENCH_JUDGE.max_new_tokens == 8192
    body = chat_body(request, "judge", None)
    system, user = body["messages"]
    # GPT.chat sends the system prompt as a list of one text part
    assert system == {"role": "system", "content": [{"type": "text", "text": request.system}]}
    assert request.system_parts
    plain = judge_request(PROBENCH_JUDGE, ["q"], system="s")  # other judges keep a string
    assert chat_body(plain, "judge", None)["messages"][0] == {"role": "system", "content": "s"}
    assert (
        plain.content_hash()
        != judge_request(PROBENCH_JUDGE, ["q"], system="s", system_parts=True).content_hash()
    )
    assert [part["type"] for part in user["content"]] == ["image_url", "text"]
    assert user["content"][0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    assert user["content"][1]["text"].startswith("Textual Instruction:\n<inst/>\n['q']")
