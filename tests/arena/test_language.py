"""A live battle's language: VisionArena's names, "unknown" when a prompt cannot be placed, and
the same answer every time for the same prompt."""

from __future__ import annotations

import pytest

from vlmscope.arena.language import NAMES, UNKNOWN, prompt_language


@pytest.mark.parametrize(
    ("prompt", "language"),
    [
        ("What is written on the sign in this photo?", "English"),
        ("这张图片里有什么？请详细描述一下。", "Chinese"),
        ("Что изображено на этой картинке?", "Russian"),
        ("Was ist auf diesem Bild zu sehen?", "German"),
        ("このグラフを説明してください", "Japanese"),
        ("Cosa vedi in questa foto?", "Italian"),
    ],
)
def test_prompts_are_named_as_visionarena_names_languages(prompt: str, language: str) -> None:
    assert prompt_language(prompt) == language


@pytest.mark.parametrize("prompt", ["hi", "2+2=?", "", "🙂🙂🙂", "https://x.io/a.png"])
def test_too_little_text_is_unknown(prompt: str) -> None:
    assert prompt_language(prompt) == UNKNOWN


def test_the_same_prompt_always_gets_the_same_language() -> None:
    prompt = "Describe la imagen por favor, con mucho detalle"  # close between languages
    assert len({prompt_language(prompt) for _ in range(20)}) == 1


def test_every_name_is_a_language_board_name() -> None:
    """Chinese in both scripts is one board, as on the platform; no code leaks through."""
    assert NAMES["zh-cn"] == NAMES["zh-tw"] == "Chinese"
    assert all(name[0].isupper() and name.isalpha() for name in NAMES.values())
