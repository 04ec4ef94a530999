"""Why a run's requests failed, said after its table.

A failed request is stored with its error and scored as the track scores a missing answer, so a
run whose every request failed (an API key not set, a server that refuses a field) still ends
with a table of zeros and exit status 0. The table counts the failures; these lines give their
causes, the most frequent first, so the way out is read from the terminal rather than dug out
of the details' `error` column.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from vlmscope.messages import Response

SHOWN_CAUSES = 3
"""Causes listed per model and track; the rest are counted."""
CAUSE_CHARS = 300
"""A cause longer than this (a server's whole error page) is cut, marked with an ellipsis."""


def failure_causes(responses: Iterable[Response]) -> dict[str, int]:
    """Each distinct error of the failed responses with how many failed with it, most frequent
    first (ties in the order met); a failure without an error text counts under its status."""
    causes: Counter[str] = Counter()
    for response in responses:
        if not response.ok:
            causes[_one_line(response.error or response.status.value)] += 1
    return dict(causes.most_common())


def format_failure_causes(tracks: Sequence[tuple[str, str, Mapping[str, int]]]) -> str:
    """The lines for every (model, track, causes) with a failure; empty when none failed."""
    lines = []
    for model, track, causes in tracks:
        shown = list(causes.items())
        for cause, count in shown[:SHOWN_CAUSES]:
            lines.append(f"  {model} / {track}: {count} failed: {cause}")
        rest = shown[SHOWN_CAUSES:]
        if rest:
            lines.append(
                f"  {model} / {track}: {sum(n for _, n in rest)} more failed, "
                f"with {len(rest)} other error(s)"
            )
    if not lines:
        return ""
    return "\n".join(
        [
            "failed requests (scored as no answer; each one's error is in the details' `error`; "
            "run the same command again to ask them again):",
            *lines,
        ]
    )


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= CAUSE_CHARS else flat[: CAUSE_CHARS - 1] + "…"
