"""The spliced body is byte for byte the compact JSON dump, whatever the messages hold."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import pytest

from vlmscope.models import openai_body
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


def test_only_long_base64_data_urls_are_spliced(monkeypatch: pytest.MonkeyPatch) -> None:
    spliced: list[bytes] = []
    splicable = openai_body._splicable

    def spy(url: str) -> bytes | None:
        result = splicable(url)
        if result is not None:
            spliced.append(result)
        return result

    monkeypatch.setattr(openai_body, "_splicable", spy)
    encode_body(BODIES["two images and text"])
    assert len(spliced) == 2
    spliced.clear()
    encode_body(BODIES["short and odd URLs stay dumped"])
    assert spliced == []


def test_the_body_given_is_not_changed() -> None:
    body = BODIES["two images and text"]
    before = json.dumps(body)
    encode_body(body)
    assert json.dumps(body) == before
