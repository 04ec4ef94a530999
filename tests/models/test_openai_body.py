"""The body sent is byte for byte the compact JSON dump, whatever the messages hold; a value
JSON cannot hold is refused by name."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import pytest

from vlmscope.models.openai_body import encode_body


def dumped(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def data_url(size: int, seed: int, mime: str = "image/png") -> str:
    raw = random.Random(seed).randbytes(size)
    return f"data:{mime};base64,{base64.b64encode(raw).decode('ascii')}"


def image(url: str, **extra: Any) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": url, **extra}}


BODIES = {
    "text only": {"model": "m", "messages": [{"role": "user", "content": 'naïve "quote" \\ \n'}]},
    "two images and text": {
        "model": "m",
        "max_tokens": 8,
        "messages": [
            {"role": "system", "content": "be brief"},
            {
                "role": "user",
                "content": [
                    image(data_url(9000, 1), detail="high"),
                    {"type": "text", "text": 'vlmscope-image-0 "x" é'},
                    image(data_url(20000, 2, "image/jpeg")),
                ],
            },
        ],
    },  # fmt: skip
    "short and odd URLs stay dumped": {
        "model": "m",
        "messages": [
            {
                "role": "user",
                "content": [
                    image(data_url(100, 3)),
                    image("data:image/png;base64," + "A" * 5000 + '"\\'),
                    image("data:image/png;base64," + "é" * 5000),
                    image("data:image/png;base64," + "A" * 5000 + "\n"),
                    image("https://example.com/" + "a" * 5000),
                ],
            }
        ],
    },  # fmt: skip
    "no messages": {"model": "m", "prompt": "x"},
}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_bytes_match_the_json_dump(name: str) -> None:
    assert encode_body(BODIES[name]) == dumped(BODIES[name])


def test_floats_are_the_same_numbers() -> None:
    body = {"model": "m", "temperature": 1e-05, "top_p": 0.95, "max_tokens": 8}
    assert json.loads(encode_body(body)) == body


def test_a_value_json_cannot_hold_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be written as JSON"):
        encode_body({"model": "m", "messages": [], "seed": 2**70})


def test_the_body_given_is_not_changed() -> None:
    body = BODIES["two images and text"]
    before = json.dumps(body)
    encode_body(body)
    assert json.dumps(body) == before
