"""The end-of-run table: one line per model and track."""

from __future__ import annotations

from typing import Any

from vlmscope.runner.loop import RunReport


def headline(summary: dict[str, Any], limit: int = 4) -> str:
    """The first few top-level numbers of a track summary (tracks put headline scores first)."""
    numbers = [
        (k, v) for k, v in summary.items() if isinstance(v, int | float) and not isinstance(v, bool)
    ]
    return "  ".join(f"{k}={v:.4g}" for k, v in numbers[:limit])


def flagged(outcomes: dict[str, int]) -> str:
    """Samples whose score is not a plain judgement of the model (unparseable, missing judge, ...)."""
    return ", ".join(f"{n} {name}" for name, n in sorted(outcomes.items()) if name != "ok") or "0"


def format_table(report: RunReport) -> str:
    header = [
        "model",
        "track",
        "samples",
        "cached",
        "generated",
        "failed",
        "flagged",
        "seconds",
        "scores",
    ]
    rows = [
        [
            t.model,
            t.track,
            str(t.total),
            str(t.cached),
            str(t.generated),
            str(t.failed),
            flagged(t.outcomes),
            f"{t.seconds:.1f}",
            headline(t.summary),
        ]
        for t in report.tracks
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip()
        for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for board in report.boards:
        lines.append(
            f"joint board of {board.track}: {board.models} models in one fit -> {board.result_dir}"
            if board.error is None
            else f"joint board of {board.track}: not fitted ({board.error})"
        )
    return "\n".join(lines)
