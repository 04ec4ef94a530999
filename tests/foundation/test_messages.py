import dataclasses

from vlmscope.messages import (
    GenerationParams,
    ImagePart,
    Request,
    Response,
    Status,
    Usage,
    cache_key,
    user_request,
)
from vlmscope.tracks.base import Sample


def test_hash_covers_image_bytes():
    a = user_request(b"\x89PNG-one", "What is shown?")
    b = user_request(b"\x89PNG-two", "What is shown?")
    assert a.content_hash() != b.content_hash()
    assert a.content_hash() == user_request(b"\x89PNG-one", "What is shown?").content_hash()


def test_hash_covers_order_params_and_system():
    base = user_request(b"img", "q")
    assert base.content_hash() != user_request("q", b"img").content_hash()
    assert base.content_hash() != user_request(b"img", "q", system="be brief").content_hash()
    longer = user_request(b"img", "q", params=GenerationParams(max_new_tokens=7))
    assert base.content_hash() != longer.content_hash()


def test_a_request_holds_no_answer_and_the_sample_reference_is_not_hashed():
    """What the oracle replies lives on the sample, so a request is only what is sent."""
    # system_parts is how the system text is sent (a string or one text part), so it is sent
    fields = {f.name for f in dataclasses.fields(Request)}
    assert fields == {"turns", "system", "params", "system_parts"}
    request = user_request(b"img", "q")
    with_reference = Sample("s", request, reference="the gold")
    without = Sample("s", user_request(b"img", "q"))
    assert with_reference.request.content_hash() == without.request.content_hash()
    assert with_reference.request == without.request


def test_cache_key_depends_on_backend_identity():
    request = user_request("q")
    assert cache_key({"model": "a"}, request) != cache_key({"model": "b"}, request)


def test_response_json_round_trip():
    response = Response(
        text="hi",
        status=Status.REQUEST_FAILED,
        error="boom",
        usage=Usage(3, 4),
        latency_s=0.5,
        image_notes=("resized image 1",),
        attempts=3,
    )
    assert Response.from_json(response.to_json()) == response


def test_images_listed_in_order():
    request = user_request(b"a", "text", ImagePart(b"b", name="second"))
    assert [i.data for i in request.images] == [b"a", b"b"]
