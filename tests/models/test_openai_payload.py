"""Request -> chat-completions body, and completion body -> text and usage."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from tests.models.helpers import png
from vlmscope.messages import (
    GenerationParams,
    Request,
    Response,
    TextPart,
    Turn,
    Usage,
    user_request,
)
from vlmscope.models.in_order import InOrderSink
from vlmscope.models.openai_payload import (
    BadBody,
    chat_body,
    image_data_url,
    image_mime,
    parse_completion,
)


def encoded(fmt: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (6, 4), (200, 10, 10)).save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("fmt", "mime"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_mime_comes_from_the_bytes(fmt: str, mime: str) -> None:
    data = encoded(fmt)
    assert image_mime(data) == mime
    assert image_data_url(data) == f"data:{mime};base64,{base64.b64encode(data).decode()}"


def test_other_formats_are_sent_as_png() -> None:
    url = image_data_url(encoded("BMP"))
    assert url.startswith("data:image/png;base64,")
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as image:
        assert image.format == "PNG" and image.size == (6, 4)


def test_bytes_that_are_no_image_name_the_image() -> None:
    with pytest.raises(ValueError, match="image 3"):
        image_data_url(b"not an image at all", 3)


def test_body_is_minimal_and_keeps_part_order() -> None:
    first, second = png(8, 8, seed=1), encoded("JPEG")
    request = user_request(
        first, "between", second, "after",
        system="Be brief.", params=GenerationParams(max_new_tokens=900, temperature=0.5),
    )  # fmt: skip
    body = chat_body(request, "the-model", max_new_tokens=64)
    assert set(body) == {"model", "messages", "max_tokens", "temperature"}
    assert body["model"] == "the-model"
    assert body["max_tokens"] == 64  # capped by the config
    assert body["temperature"] == 0.5
    system, user = body["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    assert user["role"] == "user"
    kinds = [
        (p["type"], p.get("text") or p["image_url"]["url"].split(";")[0]) for p in user["content"]
    ]
    assert kinds == [
        ("image_url", "data:image/png"),
        ("text", "between"),
        ("image_url", "data:image/jpeg"),
        ("text", "after"),
    ]
    json.dumps(body)  # serialisable as is


def test_single_text_turns_are_plain_strings_and_limits_below_the_cap_stay() -> None:
    request = Request(
        turns=(
            Turn("user", (TextPart("Hi"),)),
            Turn("assistant", (TextPart("Hello"),)),
            Turn("user", (TextPart("a"), TextPart("b"))),
        ),
        params=GenerationParams(max_new_tokens=16),
    )
    body = chat_body(request, "m", max_new_tokens=512)
    assert body["max_tokens"] == 16
    assert body["messages"] == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
    ]


def test_parse_completion_reads_text_and_usage() -> None:
    body = {
        "choices": [{"message": {"role": "assistant", "content": "B"}}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }
    assert parse_completion(json.dumps(body).encode()) == ("B", Usage(12, 3))
    no_usage = {"choices": [{"message": {"content": ""}}]}
    assert parse_completion(json.dumps(no_usage).encode()) == ("", Usage())


@pytest.mark.parametrize(
    "raw",
    [
        b"{not json",
        b"\xff\xfe garbage",
        b"[]",
        b'{"choices": []}',
        b'{"choices": [{"message": {}}]}',
        b'{"choices": [{"message": {"content": null}}]}',
        b'{"error": {"message": "overloaded"}}',
    ],
)
def test_bodies_without_an_answer_are_bad(raw: bytes) -> None:
    with pytest.raises(BadBody):
        parse_completion(raw)


def test_in_order_sink_releases_only_finished_prefixes() -> None:
    chunks: list[list[str]] = []
    sink = InOrderSink(5, lambda c: chunks.append([r.text for r in c]), min_chunk=2)
    for index in (1, 0, 3):
        sink.put(index, Response(str(index)))
        sink.flush()
    assert chunks == [["0", "1"]]  # 3 waits for 2
    sink.put(2, Response("2"))
    sink.flush()  # 2 and 3 are ready: a chunk of 2
    sink.put(4, Response("4"))
    sink.flush()  # 1 ready, below min_chunk: held back
    assert chunks == [["0", "1"], ["2", "3"]]
    sink.flush(force=True)
    assert chunks == [["0", "1"], ["2", "3"], ["4"]]
    assert [r.text for r in sink.all()] == ["0", "1", "2", "3", "4"]
    with pytest.raises(RuntimeError, match="twice"):
        sink.put(4, Response("again"))
