"""ProBench's breakdowns, as its `show_result.py` filters offer them, one set per track.

- single-round: task field (`question_category`), image category, and EASY/HARD on each of the
  three challenge axes (image, reasoning, textual);
- multi-round: the number of rounds, `min(turns, 6)` with 6 meaning 6 or more;
- multi-linguistic: the language, `pt`, `fr`, `es`, `de`, everything else `other`.

A breakdown's numbers are the track's computation on the filtered rows (ProBench's own rule),
so each subset has its own fit and its own interval.
"""

from __future__ import annotations

from collections.abc import Mapping

from vlmscope.tracks.probench.rows import CHALLENGE_AXES, ProBenchRow

DIMENSIONS: dict[str, tuple[str, ...]] = {
    "singleround": ("question_category", "image_category", *CHALLENGE_AXES),
    "multi-round": ("round",),
    "multi-linguistic": ("language",),
}
NAMED_LANGUAGES = ("pt", "fr", "es", "de")
MAX_ROUND = 6


def breakdown_of(row: ProBenchRow) -> dict[str, str]:
    """The row's value on each breakdown of its track."""
    if row.chat_type == "singleround":
        return {
            "question_category": row.question_category,
            "image_category": row.image_category,
            **{axis: row.challenge.get(axis, "") for axis in CHALLENGE_AXES},
        }
    if row.chat_type == "multi-round":
        rounds = min(row.rounds, MAX_ROUND)
        return {"round": f"{rounds}+" if rounds == MAX_ROUND else str(rounds)}
    language = row.language if row.language in NAMED_LANGUAGES else "other"
    return {"language": language}


def subset_key(chat_type: str, dimension: str | None = None, value: str | None = None) -> str:
    """The name of a subset's board: `singleround`, `multi-round / round: 6+`, ..."""
    return chat_type if dimension is None else f"{chat_type} / {dimension}: {value}"


def subsets(
    chat_types: Mapping[str, str], breakdowns: Mapping[str, Mapping[str, str]]
) -> dict[str, set[str]]:
    """Every subset key with the uids it holds: each track, then each breakdown value.

    `chat_types` and `breakdowns` map a uid to its track and to its breakdown values."""
    members: dict[str, set[str]] = {}
    for uid, chat_type in chat_types.items():
        members.setdefault(subset_key(chat_type), set()).add(uid)
        for dimension in DIMENSIONS.get(chat_type, ()):
            value = breakdowns.get(uid, {}).get(dimension, "")
            if value:
                members.setdefault(subset_key(chat_type, dimension, value), set()).add(uid)
    return dict(sorted(members.items(), key=lambda item: _order(item[0])))


def _order(key: str) -> tuple[int, str]:
    chat_type = key.split(" / ", 1)[0]
    order = list(DIMENSIONS).index(chat_type) if chat_type in DIMENSIONS else len(DIMENSIONS)
    return (order, key)
