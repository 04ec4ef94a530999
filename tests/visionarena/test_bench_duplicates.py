"""Exact and near duplicates: what counts as the same prompt, and what never does."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from vlmscope.tracks.visionarena.bench_candidates import Candidate
from vlmscope.tracks.visionarena.bench_duplicates import (
    Duplicate,
    DuplicateRules,
    Fingerprint,
    find_duplicates,
    fingerprints,
    image_hash,
    same_pictures,
)


def picture(seed: int, kind: str = "PNG", size: int = 64) -> bytes:
    image = Image.new("RGB", (64, 64), (30, 30, 30))
    draw = ImageDraw.Draw(image)
    for k in range(5):
        x, y = (seed * 13 + k * 29) % 48, (seed * 7 + k * 17) % 48
        draw.rectangle((x, y, x + 12, y + 9), fill=(200, 40 * k, 255 - 30 * seed % 255))
    buffer = io.BytesIO()
    image.resize((size, size)).save(buffer, kind)
    return buffer.getvalue()


def candidate(cid: str, text: str, *images: bytes) -> Candidate:
    return Candidate(cid, text, images, "English", "m", None)


def test_same_text_and_bytes_is_exact_and_respacing_does_not_hide_it() -> None:
    one = picture(1)
    found = find_duplicates(
        fingerprints(
            [candidate("a", "What is this?", one), candidate("b", " What  is this? ", one)]
        ),
        DuplicateRules(),
    )
    assert found == [None, Duplicate("exact_duplicate", 0)]


def test_a_retyped_question_on_a_reencoded_picture_is_near() -> None:
    text = "Please solve the integral shown on the whiteboard step by step"
    prints = fingerprints(
        [
            candidate("a", text, picture(2)),
            candidate("b", text.upper() + "?", picture(2, "JPEG", 58)),
        ]
    )
    assert prints[0].image_digests != prints[1].image_digests
    assert find_duplicates(prints, DuplicateRules()) == [None, Duplicate("near_duplicate", 0)]


def test_the_same_question_about_another_picture_is_not_a_duplicate() -> None:
    prints = fingerprints(
        [
            candidate("a", "Describe this image", picture(3)),
            candidate("b", "Describe this image", picture(9)),
        ]
    )
    assert (image_hash(picture(3)) ^ image_hash(picture(9))).bit_count() > 8
    assert find_duplicates(prints, DuplicateRules()) == [None, None]


def test_another_question_about_the_same_picture_is_not_a_duplicate() -> None:
    one = picture(4)
    prints = fingerprints(
        [
            candidate("a", "Who painted this portrait?", one),
            candidate("b", "Translate the sign", one),
        ]
    )
    assert find_duplicates(prints, DuplicateRules()) == [None, None]


def test_an_exact_copy_of_a_near_duplicate_names_the_kept_original() -> None:
    text = "Explain the joke in this meme, what makes it funny for people"
    near = text.lower() + "!"
    prints = fingerprints(
        [
            candidate("kept", text, picture(5)),
            candidate("near", near, picture(5, "JPEG")),
            candidate("copy", near, picture(5, "JPEG")),
        ]
    )
    assert find_duplicates(prints, DuplicateRules(), chunk=2) == [
        None,
        Duplicate("near_duplicate", 0),
        Duplicate("near_duplicate", 0),
    ]


def test_pictures_match_only_in_number_and_within_the_distance() -> None:
    assert same_pictures((0b1111,), (0b0000,), 4)
    assert not same_pictures((0b1111,), (0b0000,), 3)
    assert not same_pictures((1,), (1, 1), 64)
    assert same_pictures((), (), 0)


def test_fingerprints_made_elsewhere_are_compared_on_normalised_text() -> None:
    """Near copies made by hand (re-spaced, upper-cased) match whoever normalised them."""
    text = "sduch pxa dou vuqkik wjf pfzjj jdtmcic yug"
    prints = [
        Fingerprint(text, ("a",), (0b1111,)),
        Fingerprint(f" {text.upper()}  ", ("b",), (0b1010,)),
        Fingerprint(f"{text}\n", ("a",), (0b1111,)),
    ]
    assert find_duplicates(prints, DuplicateRules()) == [
        None,
        Duplicate("near_duplicate", 0),
        Duplicate("exact_duplicate", 0),
    ]
