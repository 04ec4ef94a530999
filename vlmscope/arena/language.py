"""The language of a live battle, named as VisionArena-Battle names it ("English", "Chinese").

The leaderboard's per-language boards select battles by their `language` field. FastChat fills
it from the battle's first prompt with polyglot's CLD2 detector, which needs C libraries
(pyicu, pycld2); here langdetect does the same job in pure Python. It is a port of Google's
language-detection (character n-gram profiles of 55 languages). Its random sampling is seeded,
so a prompt always gets the same language. Like CLD2, it cannot place a prompt with too few
letters ("hi", "2+2") or a mixed one: such prompts are "unknown", the value FastChat's
`exclude_unknown_lang` filter drops. The two detectors can disagree on short or mixed
prompts, so a live board's language boards are close to the platform's, not identical.
"""

from __future__ import annotations

from functools import cache
from typing import Any

UNKNOWN = "unknown"
MIN_LETTERS = 10
"""Fewer letters than this and the prompt is "unknown" (n-gram profiles need some text)."""
MIN_PROBABILITY = 0.8
"""The best language must have at least this probability, else "unknown"."""

NAMES = {
    "af": "Afrikaans", "ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "ca": "Catalan",
    "cs": "Czech", "cy": "Welsh", "da": "Danish", "de": "German", "el": "Greek",
    "en": "English", "es": "Spanish", "et": "Estonian", "fa": "Persian", "fi": "Finnish",
    "fr": "French", "gu": "Gujarati", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian",
    "hu": "Hungarian", "id": "Indonesian", "it": "Italian", "ja": "Japanese", "kn": "Kannada",
    "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian", "mk": "Macedonian", "ml": "Malayalam",
    "mr": "Marathi", "ne": "Nepali", "nl": "Dutch", "no": "Norwegian", "pa": "Punjabi",
    "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sk": "Slovak",
    "sl": "Slovenian", "so": "Somali", "sq": "Albanian", "sv": "Swedish", "sw": "Swahili",
    "ta": "Tamil", "te": "Telugu", "th": "Thai", "tl": "Tagalog", "tr": "Turkish",
    "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese", "zh-cn": "Chinese", "zh-tw": "Chinese",
}  # fmt: skip
"""langdetect's codes -> the English names VisionArena-Battle's `language` column uses."""


@cache
def _factory() -> Any:
    """Our own langdetect factory (the library's global one is left alone): the profiles
    loaded once, the sampling seeded."""
    from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory

    factory = DetectorFactory()
    factory.load_profile(PROFILES_DIRECTORY)
    factory.set_seed(0)
    return factory


def prompt_language(text: str) -> str:
    """The language name of `text`, or "unknown" when it is too short, mixed or not text."""
    if sum(character.isalpha() for character in text) < MIN_LETTERS:
        return UNKNOWN
    from langdetect.lang_detect_exception import LangDetectException

    detector = _factory().create()
    detector.append(text)
    try:
        ranked = detector.get_probabilities()
    except LangDetectException:
        return UNKNOWN
    if not ranked or ranked[0].prob < MIN_PROBABILITY:
        return UNKNOWN
    return NAMES.get(ranked[0].lang, UNKNOWN)
