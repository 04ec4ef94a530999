"""ProBench page data: its official table per track and breakdown, and the run's joint board.

Two kinds of number, never mixed in one table:

- official, from each model's summary (`vlmscope.tracks.probench.report`): what ProBench's
  `show_result.py` prints, one style-controlled Bradley-Terry fit of ONE model against the
  baseline (pinned at 1114) per track and per breakdown subset: the integer score, its 95%
  interval as offsets (+above / -below), the win rate against the baseline (%) and the average
  answer tokens. These compare with the paper; the baseline's row is 1114, +0 / -0, 50%.
- joint, from the run's board (`ResultStore.boards["probench"]`): every model of the run and the
  baseline in ONE style-controlled fit, so models compare with each other; a category board per
  track (`singleround`) and per breakdown subset (`singleround / question_category: Coding`).

A subset that could not be fitted shows the summary's or the board's reason, never a number.
Nothing here imports the track: the names and orders below are ProBench's, kept here.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pandas as pd

from vlmscope.leaderboard.rating_view import board_view
from vlmscope.leaderboard.records import SummaryRecord
from vlmscope.leaderboard.safe_html import as_text
from vlmscope.leaderboard.values import MISSING, number_at
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.shown_numbers import PERCENT_DIGITS, offsets_text, token_count

TRACKS: dict[str, str] = {
    "singleround": "Single-round",
    "multi-round": "Multi-round",
    "multi-linguistic": "Multi-linguistic",
}
DIMENSIONS: dict[str, tuple[str, ...]] = {
    "singleround": (
        "question_category",
        "image_category",
        "challenge_image",
        "challenge_reasoning",
        "challenge_textual",
    ),
    "multi-round": ("round",),
    "multi-linguistic": ("language",),
}
NAMED_VALUES: dict[str, tuple[str, ...]] = {"language": ("pt", "fr", "es", "de")}
"""Values shown first, in the paper's order (Table 3); the rest by name, `other` last."""
BASELINE_ROLE = "baseline"
BASELINE_SCORE = 1114
BASELINE_WIN_RATE = 50.0
WHOLE_TRACK = "whole track"
MEASURES = ("Score", "95% CI", "Win rate", "Avg tokens")
COUNT_COLUMNS = ["Judged prompts", "Unparseable games"]
BREAKDOWN_COLUMNS = ["Model", *MEASURES, "Prompts", "Note"]
BREAKDOWN_WIDTHS = ["18%", "7%", "10%", "8%", "9%", "8%", "40%"]  # the Note wraps


def track_label(track: str) -> str:
    return TRACKS.get(track, track)


def subset_key(track: str, choice: str = WHOLE_TRACK) -> str:
    """The name of a subset in summaries and boards: `singleround`, `multi-round / round: 6+`."""
    return track if choice == WHOLE_TRACK else f"{track} / {choice}"


def is_baseline(record: SummaryRecord) -> bool:
    """The summary of the model that answered as the baseline (it is judged against nobody)."""
    return record.scores.get("role") == BASELINE_ROLE


def baseline_of(records: Mapping[str, SummaryRecord], board: RatingBoard | None = None) -> str:
    """The baseline the models were judged against (the most named one), "" when none says."""
    names = [str(r.scores["baseline"]) for r in records.values() if r.scores.get("baseline")]
    names += [model for model, r in records.items() if is_baseline(r)]
    if board is not None and board.settings.extra.get("baseline"):
        names.append(str(board.settings.extra["baseline"]))
    return Counter(names).most_common(1)[0][0] if names else ""


def tracks_of(records: Mapping[str, SummaryRecord], board: RatingBoard | None = None) -> list[str]:
    """The ProBench tracks any summary or the board reports, in ProBench's order."""
    keys = [k for r in records.values() for k in _mapping(r.scores, "tracks")]
    keys += [k for r in records.values() for k in _mapping(r.scores, "skipped")]
    if board is not None:
        keys += [*board.categories, *board.skipped_categories]
    found = {k.split(" / ", 1)[0] for k in keys}
    return [t for t in TRACKS if t in found] + sorted(found - set(TRACKS))


def entry_at(scores: Mapping[str, Any], track: str, choice: str = WHOLE_TRACK) -> Mapping[str, Any]:
    """The official entry of a track (`WHOLE_TRACK`) or a `dimension: value` subset ({} if none)."""
    if choice == WHOLE_TRACK:
        return _mapping(scores, "tracks", track)
    dimension, _, value = choice.partition(": ")
    return _mapping(scores, "breakdowns", track, dimension, value)


def skip_reason(scores: Mapping[str, Any], track: str, choice: str = WHOLE_TRACK) -> str | None:
    reason = _mapping(scores, "skipped").get(subset_key(track, choice))
    return None if reason is None else as_text(reason)


def ci_offsets(entry: Mapping[str, Any]) -> str:
    """`+8 / -7`: how far the interval reaches above and below the score ("" if not known), in
    whole points, as ProBench's scorer casts the score and both bounds to `int`."""
    score, lower, upper = (number_at(entry, k) for k in ("score", "lower", "upper"))
    if score is None or lower is None or upper is None:
        return ""
    return offsets_text(upper - score, lower - score, 0)


def official_frame(records: Mapping[str, SummaryRecord]) -> pd.DataFrame:
    """ProBench's table: one row per model, the tracks side by side (score, interval, win rate,
    average tokens each), the baseline at 1114; best first by the first track's score."""
    tracks = tracks_of(records)
    baseline = baseline_of(records)
    judged = {m: r for m, r in records.items() if not is_baseline(r) and m != baseline}
    rows = [
        [
            model,
            *(v for t in tracks for v in _measures(entry_at(r.scores, t))),
            *(_count(r.scores, k) for k in ("judged_prompts", "unparseable_games")),
        ]
        for model, r in judged.items()
    ]
    if baseline and tracks:
        entries = {t: [entry_at(r.scores, t) for r in judged.values()] for t in tracks}
        rows.append(
            [
                baseline,
                *(v for t in tracks for v in _baseline_measures(entries[t])),
                *(MISSING for _ in COUNT_COLUMNS),
            ]
        )
    columns = ["Model", *(f"{track_label(t)} {m}" for t in tracks for m in MEASURES)]
    return _best_first(pd.DataFrame(rows, columns=columns + COUNT_COLUMNS), columns[1:2])


def breakdown_choices(
    records: Mapping[str, SummaryRecord], board: RatingBoard | None, track: str
) -> list[str]:
    """`WHOLE_TRACK`, then every `dimension: value` of the track that a summary or the board
    reports, fitted or skipped, in ProBench's order of dimensions and values."""
    found = set()
    for record in records.values():
        for dimension, values in _mapping(record.scores, "breakdowns", track).items():
            if isinstance(values, Mapping):
                found |= {f"{dimension}: {value}" for value in values}
    prefix = f"{track} / "
    keys = [k for r in records.values() for k in _mapping(r.scores, "skipped")]
    if board is not None:
        keys += [*board.categories, *board.skipped_categories]
    found |= {k.removeprefix(prefix) for k in keys if k.startswith(prefix)}
    return [WHOLE_TRACK, *sorted(found, key=lambda choice: _choice_order(track, choice))]


def breakdown_frame(records: Mapping[str, SummaryRecord], track: str, choice: str) -> pd.DataFrame:
    """The official numbers of one subset: a row per model that has it, fitted or not (then
    with the reason), and the baseline's row; best first."""
    baseline = baseline_of(records)
    rows, entries = [], []
    for model, record in records.items():
        if is_baseline(record) or model == baseline:
            continue
        entry = entry_at(record.scores, track, choice)
        reason = skip_reason(record.scores, track, choice)
        if entry:
            entries.append(entry)
            rows.append([model, *_measures(entry), _count(entry, "prompts"), ""])
        elif reason is not None:
            rows.append([model, MISSING, "", MISSING, MISSING, MISSING, f"not fitted: {reason}"])
    if rows and baseline:
        note = f"the baseline, pinned at {BASELINE_SCORE}"
        rows.append([baseline, *_baseline_measures(entries), MISSING, note])
    return _best_first(pd.DataFrame(rows, columns=BREAKDOWN_COLUMNS), ["Score"])


def joint_view(board: RatingBoard, track: str, choice: str) -> RatingBoard | None:
    """The joint board of a track or subset (style-controlled as the whole board is)."""
    return board_view(board, subset_key(track, choice), style_control=board.is_style_controlled)


def joint_note(board: RatingBoard | None, track: str, choice: str) -> str:
    """Why the joint board has no view of this selection ("" when it has one)."""
    key = subset_key(track, choice)
    if board is None:
        return "No joint board in these results."
    if joint_view(board, track, choice) is not None:
        return ""
    reason = board.skipped_categories.get(key, "not computed")
    return f"Joint board of {key}: not fitted ({reason})."


def _measures(entry: Mapping[str, Any]) -> list[object]:
    score, win_rate = number_at(entry, "score"), number_at(entry, "win_rate")
    tokens = number_at(entry, "avg_tokens")
    return [
        MISSING if score is None else score,
        ci_offsets(entry),
        MISSING if win_rate is None else round(win_rate, PERCENT_DIGITS),
        MISSING if tokens is None else token_count(tokens),
    ]


def _baseline_measures(entries: list[Mapping[str, Any]]) -> list[object]:
    """1114, +0 / -0, 50%, and the baseline's tokens as the best-covered entry measured them."""
    measured = [e for e in entries if number_at(e, "baseline_avg_tokens") is not None]
    best = max(measured, key=lambda e: number_at(e, "prompts") or 0, default=None)
    tokens = number_at(best, "baseline_avg_tokens") if best else None
    return [
        BASELINE_SCORE,
        "+0 / -0",
        BASELINE_WIN_RATE,
        MISSING if tokens is None else token_count(tokens),
    ]


def _count(data: Mapping[str, Any], key: str) -> float:
    value = number_at(data, key)
    return MISSING if value is None else int(value)


def _mapping(data: Any, *keys: str) -> Mapping[str, Any]:
    """`data[k1][k2]...` when each step is a JSON object, else {}."""
    for key in keys:
        data = data.get(key) if isinstance(data, Mapping) else None
    return data if isinstance(data, Mapping) else {}


def _best_first(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    if by and by[0] in frame.columns:
        frame = frame.sort_values(by, ascending=False, na_position="last", kind="stable")
    return frame.reset_index(drop=True)


def _choice_order(track: str, choice: str) -> tuple[Any, ...]:
    dimension, _, value = choice.partition(": ")
    dimensions = DIMENSIONS.get(track, ())
    named = NAMED_VALUES.get(dimension, ())
    digits = re.match(r"\d+", value)
    return (
        dimensions.index(dimension) if dimension in dimensions else len(dimensions),
        dimension,
        value.lower() == "other",
        named.index(value) if value in named else len(named),
        int(digits.group()) if digits else 0,
        value,
    )
