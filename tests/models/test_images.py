import io

import pytest
from PIL import Image

from vlmscope.config import ImageBudget
from vlmscope.messages import ImagePart, Request, TextPart, Turn, user_request
from vlmscope.models.images import apply_image_budget, limit_images


def encode(width: int, height: int, fmt: str = "PNG", colour: int = 0) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (colour, 40, 80)).save(buffer, format=fmt)
    return buffer.getvalue()


def sizes_and_formats(request: Request) -> list[tuple[tuple[int, int], str | None]]:
    found = []
    for part in request.images:
        with Image.open(io.BytesIO(part.data)) as image:
            found.append((image.size, image.format))
    return found


def test_within_budget_returns_the_same_request():
    request = user_request(encode(20, 10), "what?", encode(30, 30))
    kept, notes = apply_image_budget(request, ImageBudget(max_images=2, max_side=30))
    assert kept is request and notes == []


def test_keeps_the_last_images_and_text_order():
    images = [encode(8, 8, colour=i * 40) for i in range(5)]
    request = user_request("a", images[0], images[1], "b", images[2], images[3], images[4], "c")
    kept, notes = apply_image_budget(request, ImageBudget(max_images=2, max_side=100))
    assert notes == ["dropped image 1 of 5", "dropped image 2 of 5", "dropped image 3 of 5"]
    assert [p.data for p in kept.images] == images[3:]
    texts = [p.text for p in kept.turns[0].parts if isinstance(p, TextPart)]
    assert texts == ["a", "b", "c"]
    assert kept.params == request.params and kept.system == request.system


def test_drops_across_turns_and_to_zero():
    request = Request(
        turns=(
            Turn("user", (ImagePart(encode(4, 4)), TextPart("first"))),
            Turn("assistant", (TextPart("ok"),)),
            Turn("user", (ImagePart(encode(5, 5)), TextPart("second"))),
        )
    )
    kept, notes = limit_images(request, 0, 100)
    assert kept.images == [] and notes == ["dropped image 1 of 2", "dropped image 2 of 2"]
    assert [t.text for t in kept.turns] == ["first", "ok", "second"]


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_resizes_the_longer_side_and_keeps_format(fmt):
    request = user_request(encode(2000, 1000, fmt), encode(300, 900, fmt), encode(100, 50, fmt))
    small = request.images[2].data
    kept, notes = apply_image_budget(request, ImageBudget(max_images=8, max_side=1000))
    assert notes == ["resized image 1 from 2000x1000 to 1000x500"]
    assert sizes_and_formats(kept) == [((1000, 500), fmt), ((300, 900), fmt), ((100, 50), fmt)]
    assert kept.images[2].data == small  # untouched images keep their exact bytes
    kept, notes = apply_image_budget(request, ImageBudget(max_images=8, max_side=450))
    assert notes[1] == "resized image 2 from 300x900 to 150x450"


def test_numbering_refers_to_the_original_request():
    request = user_request(encode(10, 10), encode(10, 10), encode(64, 16))
    _, notes = limit_images(request, 1, 32)
    assert notes == [
        "dropped image 1 of 3",
        "dropped image 2 of 3",
        "resized image 3 from 64x16 to 32x8",
    ]


def test_other_formats_and_palette_images_become_png():
    buffer = io.BytesIO()
    Image.new("P", (40, 20)).save(buffer, format="GIF")
    kept, _ = limit_images(user_request(buffer.getvalue()), 1, 10)
    assert sizes_and_formats(kept) == [((10, 5), "PNG")]


def test_unreadable_image_is_a_value_error_naming_it():
    request = user_request(ImagePart(b"not an image", name="broken.png"))
    with pytest.raises(ValueError, match=r"image 1 \(broken.png\)"):
        apply_image_budget(request, ImageBudget())
