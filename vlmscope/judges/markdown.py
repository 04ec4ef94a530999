"""Markdown style counts for style control, byte-for-byte the reference extraction.

FastChat ``add_markdown_info.py``, arena-hard-auto ``add_markdown_info.py`` and ProBench
``engine/markdown_info.py`` share these two functions, quirks included, and the published style
coefficients depend on them, so they are reproduced rather than "fixed":

* :func:`remove_pattern` deletes the *captured inner text* of each fenced block with
  ``str.replace``, which leaves the bare fences behind and also deletes every other occurrence
  of that text elsewhere in the answer.
* Header levels are disjoint (``^#{1}\\s`` does not match ``## x``); ``\\s`` also matches ``\\n``
  and ``\\r``, so ``^\\s*`` in the list patterns can start on an earlier blank line.
* Bold is ``**..**`` / ``__..__`` with no ``*`` / ``_`` or newline inside.
"""

from __future__ import annotations

import re

CODE_BLOCK_PATTERN = re.compile("```([^`]*)```")

_HEADER_PATTERNS = {
    f"h{level}": re.compile(rf"^#{{{level}}}\s", re.MULTILINE) for level in range(1, 7)
}
_ORDERED_LIST = re.compile(r"^\s*\d+\.\s", re.MULTILINE)
_UNORDERED_LIST = re.compile(r"^\s*[-*+]\s", re.MULTILINE)
_BOLD_STARS = re.compile(r"\*\*[^*\n]+\*\*")
_BOLD_UNDERSCORES = re.compile(r"__[^_\n]+__")

StyleCounts = dict[str, dict[str, int]]


def remove_pattern(text: str, pattern: re.Pattern[str]) -> str:
    """Delete every captured group of ``pattern`` from ``text`` (reference quirk, see above)."""
    for captured in pattern.findall(text):
        text = text.replace(captured, "")
    return text


def count_markdown_elements(text: str, suffix: str = "") -> StyleCounts:
    """Count headers (h1..h6), list items (ordered/unordered) and bold spans in ``text``.

    Keys are ``header_count{suffix}``, ``list_count{suffix}``, ``bold_count{suffix}``, as the
    references store them in answer metadata (``suffix`` is ``"_a"``/``"_b"`` in battles).
    """
    return {
        f"header_count{suffix}": {
            name: len(pattern.findall(text)) for name, pattern in _HEADER_PATTERNS.items()
        },
        f"list_count{suffix}": {
            "ordered": len(_ORDERED_LIST.findall(text)),
            "unordered": len(_UNORDERED_LIST.findall(text)),
        },
        f"bold_count{suffix}": {
            "**": len(_BOLD_STARS.findall(text)),
            "__": len(_BOLD_UNDERSCORES.findall(text)),
        },
    }


def answer_style_counts(answer: str) -> StyleCounts:
    """Style counts of one answer after code removal, i.e. what goes into answer metadata."""
    return count_markdown_elements(remove_pattern(answer, CODE_BLOCK_PATTERN), suffix="")
