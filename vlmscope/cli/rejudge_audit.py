"""The audit of a rejudge: how far the new judge moves what the old one gave.

For a track with a joint board (ProBench, VisionArena-Bench): the two boards compared on their
models (the baseline both pin left out) by `vlmscope.ratings.boards.judge_agreement.
board_agreement`: Spearman, Kendall tau, confidence agreement, each board's separability; every
model's rank under each judge as the board and the Space rank it (1 + the models whose whole
interval lies above, so overlapping models share a rank) and its change; and the models whose 95%
interval moved most (the larger of its bounds' moves, in rating points). For a track without a
board (MEGA-Bench, SimpleVQA): each model's headline numbers under both judges, and Spearman and
Kendall tau of the first one across models. Every number that cannot be computed (fewer than two
models, a board that ties everything) is None, shown as n/a.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vlmscope.cli.agreement_output import number
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.shown_numbers import RATING_DIGITS

MOVED_SHOWN = 3


def ranks(ratings: Mapping[str, float]) -> dict[str, int]:
    """1 + the number of models rated strictly higher."""
    return {m: 1 + sum(other > r for other in ratings.values()) for m, r in ratings.items()}


def board_ranks(board: RatingBoard, models: Sequence[str]) -> dict[str, int]:
    """Each model's rank as its board (and the Space) gives it: 1 + the models whose whole
    interval lies above; by rating (`ranks`) only for a board that records no ranks."""
    found = {m: board.models[m].rank for m in models}
    if all(rank is not None for rank in found.values()):
        return {m: int(rank) for m, rank in found.items() if rank is not None}
    return ranks({m: board.models[m].rating for m in models})


def board_audit(old: RatingBoard, new: RatingBoard) -> dict[str, Any]:
    from vlmscope.ratings.boards.judge_agreement import board_agreement, pinned_model

    pinned = pinned_model(old)
    shared = [m for m in old.models if m in new.models and m != pinned]
    try:
        with warnings.catch_warnings():  # a constant board: its correlation is n/a, as shown
            warnings.simplefilter("ignore")
            agreement: dict[str, Any] | None = board_agreement(old, new).to_json()
    except ValueError as err:  # fewer than two models to compare
        agreement = {"error": str(err)}
    old_ranks, new_ranks = board_ranks(old, shared), board_ranks(new, shared)
    models: list[dict[str, Any]] = []
    for model in shared:
        before, after = old.models[model], new.models[model]
        moved = max(abs(after.lower - before.lower), abs(after.upper - before.upper))
        models.append(
            {
                "model": model,
                "old_rank": old_ranks[model],
                "new_rank": new_ranks[model],
                "rank_change": old_ranks[model] - new_ranks[model],
                "old": [before.rating, before.lower, before.upper],
                "new": [after.rating, after.lower, after.upper],
                "interval_moved": moved,
            }
        )
    models.sort(key=lambda m: (m["new_rank"], m["model"]))
    most = sorted(models, key=lambda m: -m["interval_moved"])[:MOVED_SHOWN]
    return {
        "kind": "board",
        "agreement": agreement,
        "models": models,
        "moved_most": [m["model"] for m in most],
        "pinned": pinned,
    }


def headline_audit(
    old: Mapping[str, Mapping[str, Any]],
    new: Mapping[str, Mapping[str, Any]],
    keys: Sequence[str],
) -> dict[str, Any]:
    """Each model's headline numbers (`keys` of its summary) under both judges."""
    from vlmscope.ratings.boards.agreement import kendall_tau, spearman

    models = [m for m in old if m in new]
    values = {
        m: {k: (_number(old[m].get(k)), _number(new[m].get(k))) for k in keys} for m in models
    }
    rows = [{"model": m, **{k: list(v) for k, v in values[m].items()}} for m in models]
    first = keys[0] if keys else None
    xs, ys = [], []
    for by_key in values.values():
        x, y = by_key[first] if first else (None, None)
        if x is not None and y is not None:
            xs.append(x)
            ys.append(y)
    correlations: dict[str, Any] = {"spearman": None, "kendall_tau": None}
    if len(xs) >= 2:
        with warnings.catch_warnings():  # constant scores: the correlation is n/a, as shown
            warnings.simplefilter("ignore")
            correlations = {
                "spearman": _finite(spearman(xs, ys)),
                "kendall_tau": _finite(kendall_tau(xs, ys)),
            }
    return {"kind": "headlines", "keys": list(keys), "models": rows, "over": first, **correlations}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def format_audit(audits: Mapping[str, Mapping[str, Any]], old_judge: str, new_judge: str) -> str:
    """The audit as printed: one block per track."""
    lines = [f"audit: {new_judge} (new) against {old_judge} (the run's judge)"]
    for track, audit in audits.items():
        lines.append(f"\n{track}")
        if audit["kind"] == "board":
            lines += _board_lines(audit)
        else:
            lines += _headline_lines(audit)
    return "\n".join(lines)


def _board_lines(audit: Mapping[str, Any]) -> list[str]:
    agreement = audit["agreement"] or {}
    if "error" in agreement:
        head = [f"  boards not compared: {agreement['error']}"]
    else:
        head = [
            f"  spearman {_n(agreement.get('spearman'))}  kendall tau "
            f"{_n(agreement.get('kendall_tau'))}  confidence agreement "
            f"{_n(agreement.get('confidence_agreement'))}  separability old "
            f"{_n(agreement.get('separability_x'))} new {_n(agreement.get('separability_y'))}"
        ]
    if audit.get("pinned"):
        head.append(f"  {audit['pinned']} is pinned on both boards and left out")
    rows = [["model", "rank old", "rank new", "change", "old rating [95% CI]",
             "new rating [95% CI]", "interval moved"]]  # fmt: skip
    for m in audit["models"]:
        rows.append(
            [
                m["model"],
                str(m["old_rank"]),
                str(m["new_rank"]),
                f"{m['rank_change']:+d}",
                _rating(m["old"]),
                _rating(m["new"]),
                f"{m['interval_moved']:.{RATING_DIGITS}f}",
            ]
        )
    moved = ", ".join(audit["moved_most"]) or "none"
    return [*head, *_table(rows), f"  intervals moved most: {moved}"]


def _headline_lines(audit: Mapping[str, Any]) -> list[str]:
    keys = audit["keys"]
    rows = [["model", *(f"{k} old -> new" for k in keys)]]
    for m in audit["models"]:
        rows.append([m["model"], *(f"{_n(m[k][0])} -> {_n(m[k][1])}" for k in keys)])
    over = audit["over"] or "-"
    return [
        f"  over {over}: spearman {_n(audit['spearman'])}  kendall tau {_n(audit['kendall_tau'])}",
        *_table(rows),
    ]


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]


def _rating(values: Sequence[float]) -> str:
    """`1187.1 [1027.2, 1306.8]`: to the decimals of the run's table, the Space and compare."""
    rating, lower, upper = (f"{v:.{RATING_DIGITS}f}" for v in values)
    return f"{rating} [{lower}, {upper}]"


def _n(value: Any) -> str:
    return "n/a" if value is None else number(float(value))


def write_audit(path: Path, payload: Mapping[str, Any]) -> None:
    from vlmscope.atomic_files import write_text_atomic

    write_text_atomic(path, json.dumps(payload, indent=1, default=str) + "\n")
