"""String-matching metrics of MEGA-Bench (official semantics, quirks included).

The Damerau-Levenshtein similarity comes from `rapidfuzz` and the accent folding from `unidecode`,
the same libraries the official scorer uses, so no edit-distance code lives here.

Every function raises where the official code raises (e.g. a non-string target for
`simple_str_match`); the caller scores such a field 0 and records the error.
"""

from __future__ import annotations

import re
from typing import Any

from vlmscope.metrics.megabench.conversions import str_to_iterable
from vlmscope.metrics.megabench.parsing import extract_code_block

_CHOICE_LETTER = re.compile(r"^\(?([A-Za-z])\)?(?:\s*\.\s*|\.)?(.*)")
_NEAR_MATCH_CUTOFF = 0.9


def _choice_letter(text: str) -> str:
    match = _CHOICE_LETTER.match(text)
    return match.group(1) if match else text


def exact_str_match(response: Any, target: Any) -> int:
    """1 iff `str(response) == str(target)`.

    QUIRK: for a single-letter target a longer response is first reduced to its leading letter (after
    an optional "("), so "(B) dog", "B. dog" and any word starting with B ("Because") match "B".
    """
    response = response if isinstance(response, str) else str(response)
    target = target if isinstance(target, str) else str(target)
    if len(target) == 1 and target.isalpha() and len(response) > 1:
        response = _choice_letter(response)
    return 1 if response == target else 0


def _squash(text: str) -> str:
    for removed in (" ", "-", "\n", "\t", "."):
        text = text.replace(removed, "")
    return text.lower()


def simple_str_match(response: Any, target: Any) -> int:
    """Lower-case both sides and delete spaces, "-", newlines, tabs and "." (so "3.14" == "314"),
    then `exact_str_match`. The target must be a string."""
    response = response if isinstance(response, str) else str(response)
    return exact_str_match(_squash(response), _squash(target))


def exact_str_match_case_insensitive(response: Any, target: Any) -> int:
    """Lower-cased `exact_str_match`; a non-string response against a string target scores 0."""
    if not isinstance(response, str) and isinstance(target, str):
        return 0
    return exact_str_match(response.lower(), target.lower())


def code_result_exact_str_match(response: Any, target: Any) -> int:
    """`exact_str_match` against the verbatim content of the target's first code block."""
    expected, _ = extract_code_block(target, raw=True, keep_whitespace=True)
    return exact_str_match(response, expected)


def multi_ref_phrase(response: Any, target: Any) -> int:
    """1 if `simple_str_match` holds for any comma-separated reference (full-width commas too)."""
    references = str_to_iterable(list, target.replace("，", ","))
    for reference in references:
        if simple_str_match(response, reference if isinstance(reference, str) else str(reference)):
            return 1
    return 0


def normalized_similarity_damerau_levenshtein(response: Any, target: Any) -> float:
    """rapidfuzz normalized Damerau-Levenshtein similarity (case-sensitive)."""
    from rapidfuzz.distance import DamerauLevenshtein

    if not isinstance(response, str) and isinstance(target, str):
        return 0
    return float(DamerauLevenshtein.normalized_similarity(response, target))


def _approximate(text: str) -> str:
    import unidecode

    without_articles = " ".join(
        word for word in text.split(" ") if word.lower() not in {"the", "a"}
    )
    return str(unidecode.unidecode(without_articles)).lower()


def near_str_match(response: Any, target: Any) -> float:
    """Similarity after dropping "the"/"a", accent folding and lower-casing; below 0.9 gives 0,
    above it the similarity itself (not 1)."""
    from rapidfuzz.distance import DamerauLevenshtein

    if not isinstance(response, str) or not isinstance(target, str):
        return 0
    return float(
        DamerauLevenshtein.normalized_similarity(
            _approximate(response), _approximate(target), score_cutoff=_NEAR_MATCH_CUTOFF
        )
    )
