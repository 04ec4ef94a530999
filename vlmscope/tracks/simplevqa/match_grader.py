"""An offline SimpleVQA grader that needs no language model: the gold answer found in the response.

NOT the paper's protocol. The paper (and the official script) grades every response with an LLM
judge and its grader prompt; that stays the track's default (`grader: llm`). Some harnesses
score SimpleVQA by string match instead, so that a run needs no judge at all; this module is that
option (`grader: offline_match`), for demos, smoke tests and an oracle check, and its numbers are
labelled as such in the summary. Rules, in order:

1. an empty response is Not attempted;
2. the normalised gold answer occurring in the normalised response is Correct;
3. a response with a refusal phrase ("I don't know", "cannot determine", 不知道, 无法确定, ...)
   is Not attempted;
4. anything else is Incorrect.

Normalising: NFKC (full-width forms become ASCII), case folding, thousands separators dropped,
punctuation and symbols become spaces except a decimal point between digits, spaces collapsed,
and a leading article (a / an / the) of the gold dropped. A match must not be glued to a letter
or digit of a spaced script ("4" is not in "42", "art" is not in "party"); next to Chinese or
Japanese characters, which have no spaces, any position counts ("圆形" is in "是圆形").

Known differences from the judge: a negated or listed answer ("not Paris", "Paris or Rome")
counts as Correct, a translation or another name of the same entity ("鲁滨逊" for "Robinson") and
a number written in words ("four") as Incorrect, a hedged wrong answer with a refusal phrase as
Not attempted (the paper: Incorrect). The data has no alias field, so only `answer` is matched.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from vlmscope.tracks.simplevqa.grading import Grade

PROTOCOL = "offline_match (not the paper's LLM grading)"

#: Explicit refusals only: a hedge ("I'm not sure, maybe X") is an answer, as in the paper.
REFUSALS: tuple[str, ...] = (
    r"\b(?:don'?t|do\s+not)\s+know\b",
    r"\bno\s+idea\b",
    r"\b(?:can\s*not|can'?t|unable\s+to|impossible\s+to|not\s+possible\s+to)\s+(?:be\s+)?"
    r"(?:determin|tell|identif|recogni[sz]|answer|say|know|read|see|confirm|help)",
    r"^\s*(?:unknown|n/?a|none)\s*[.!]?\s*$",
    "不知道",
    "不清楚",
    "看不清",
    "看不出",
    "(?:无法|不能).{0,8}?(?:确定|判断|识别|回答|得知|辨认|看出|看清|知道)",
)
_REFUSAL = re.compile("|".join(REFUSALS))
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_ARTICLES = ("a", "an", "the")
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")


@dataclass(frozen=True)
class MatchVerdict:
    """The grade and the rule that gave it (`empty`, `gold_in_response`, `refusal`, `no_match`)."""

    grade: Grade
    rule: str


def normalise(text: str) -> str:
    """The comparison form of an answer or response (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    text = _THOUSANDS.sub("", text)
    kept = (
        char if char.isalnum() or (char == "." and _decimal_point(text, i)) else " "
        for i, char in enumerate(text)
    )
    return " ".join("".join(kept).split())


def contains_answer(gold: str, response: str) -> bool:
    """Whether normalised `gold` occurs in normalised `response` at a word boundary."""
    needle, haystack = _without_leading_article(normalise(gold)), normalise(response)
    if not needle:
        return False
    start = haystack.find(needle)
    while start >= 0:
        end = start + len(needle)
        if not _glued(haystack, start - 1, start) and not _glued(haystack, end - 1, end):
            return True
        start = haystack.find(needle, start + 1)
    return False


def is_refusal(response: str) -> bool:
    """Whether the response says it does not know or cannot tell (English or Chinese)."""
    text = unicodedata.normalize("NFKC", response).casefold().replace("’", "'")
    return _REFUSAL.search(text) is not None


def match_grade(gold: str, response: str) -> MatchVerdict:
    """Grade one response against the gold answer by the rules of the module docstring."""
    if not normalise(response):
        return MatchVerdict(Grade.NOT_ATTEMPTED, "empty")
    if contains_answer(gold, response):
        return MatchVerdict(Grade.CORRECT, "gold_in_response")
    if is_refusal(response):
        return MatchVerdict(Grade.NOT_ATTEMPTED, "refusal")
    return MatchVerdict(Grade.INCORRECT, "no_match")


def _without_leading_article(words: str) -> str:
    """Drop a leading article: `the eiffel tower` -> `eiffel tower` (a lone `a` is kept)."""
    first, _, rest = words.partition(" ")
    return rest if first in _ARTICLES and rest else words


def _decimal_point(text: str, i: int) -> bool:
    """Whether the character at `i` sits between two digits."""
    return 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()


def _glued(text: str, left: int, right: int) -> bool:
    """Whether the characters at `left` and `right` belong to one word of a spaced script."""
    if left < 0 or right >= len(text):
        return False
    return all(_spaced_word_char(text[i]) for i in (left, right))


def _spaced_word_char(char: str) -> bool:
    return (char.isalnum() or char == ".") and not _UNSPACED.match(char)
