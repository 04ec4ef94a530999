"""What the two board-agreement commands print and write (`probench agreement boards`,
`visionarena agreement`): one table of the agreement numbers and both boards' ratings, and
the JSON file behind `--out`."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlmscope.atomic_files import write_text_atomic
from vlmscope.cli.failure import fail

if TYPE_CHECKING:
    from vlmscope.ratings.boards.board import RatingBoard
    from vlmscope.ratings.boards.judge_agreement import BoardAgreement


def boards_table(result: BoardAgreement, board_x: RatingBoard, board_y: RatingBoard) -> str:
    """The agreement numbers and the two ratings of each compared model, for a terminal."""
    report = result.report
    left_out = (
        f"; left out, pinned on both: {', '.join(result.excluded)}" if result.excluded else ""
    )
    only = [
        f"only on {side}: {', '.join(models)}"
        for side, models in (("x", result.only_x), ("y", result.only_y))
        if models
    ]
    lines = [
        f"board agreement over {len(report.models)} shared models{left_out}"
        + "".join(f"; {text}" for text in only),
        f"  spearman {number(report.spearman)}  kendall tau {number(report.kendall_tau)}  "
        f"confidence agreement {number(report.confidence_agreement)}",
        f"  separability x {number(report.separability_x)}  y {number(report.separability_y)}",
        f"  pairwise accuracy {number(report.pairwise_accuracy)}  "
        f"brier {number(report.brier)}  (x forecasting y's order)",
    ]
    width = max(len("model"), *(len(m) for m in report.models))
    lines.append(f"{'model':<{width}}  {'x rating [95% CI]':>22}  {'y rating [95% CI]':>22}")
    for model in report.models:
        x, y = board_x.models[model], board_y.models[model]
        lines.append(
            f"{model:<{width}}  {_rating(x.rating, x.lower, x.upper):>22}  "
            f"{_rating(y.rating, y.lower, y.upper):>22}"
        )
    return "\n".join(lines)


def _rating(rating: float, lower: float, upper: float) -> str:
    return f"{rating:.0f} [{lower:.0f}, {upper:.0f}]"


def number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def write_json(path: Path | None, payload: dict[str, Any], command: str) -> int:
    """Write `payload` to `path` (nothing when None); exit status 2 with the reason on failure."""
    if path is None:
        return 0
    try:
        write_text_atomic(path, json.dumps(payload, indent=2) + "\n")
    except OSError as error:
        return fail(command, error)
    print(f"wrote {path}")
    return 0
