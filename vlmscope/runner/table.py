"""The end-of-run table: one line per model and track."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from vlmscope.leaderboard.headline_intervals import Bounds, bounds_at
from vlmscope.leaderboard.values import number_at
from vlmscope.runner.loop import RunReport
from vlmscope.shown_numbers import RATING_DIGITS
from vlmscope.tracks.registry import spec_for_results


def headline(
    summary: dict[str, Any],
    limit: int = 4,
    keys: Collection[str] = (),
    intervals: Mapping[str, Bounds] | None = None,
) -> str:
    """The first few top-level numbers of a track summary (tracks put headline scores first).

    A headline key of the track (`keys`) whose value is None has no score (nothing graded) and
    shows as `F=n/a`, in its place, rather than vanishing or reading as 0. A number with an
    interval (`intervals`, from `headline_intervals`) shows it, as the Space does beside it."""
    shown = [
        (k, v)
        for k, v in summary.items()
        if (isinstance(v, int | float) and not isinstance(v, bool)) or (v is None and k in keys)
    ]
    found = intervals or {}
    return "  ".join(
        f"{k}=n/a" if v is None else f"{k}={v:.4g}" + _interval(found.get(k))
        for k, v in shown[:limit]
    )


def headline_intervals(track: str, summary: Mapping[str, Any]) -> dict[str, Bounds]:
    """The 95% interval of each top-level headline number the track registers, read where the
    Space reads it (`Headline.interval`); a number without one recorded has none here."""
    spec = spec_for_results(track)
    found = {}
    for h in spec.headlines if spec else ():
        bounds = bounds_at(summary, *h.interval) if len(h.keys) == 1 and h.interval else None
        if bounds is not None:
            found[h.keys[0]] = bounds
    return found


def registered_headlines(track: str, summary: Mapping[str, Any]) -> str:
    """The track's registered headlines that sit below the summary's top level (ProBench's
    official score per track), labelled as the overview labels them, with their intervals:
    `single-round Elo=1264 (95% 1098-1468)`; `n/a` for one the summary lacks. Top-level
    headlines are left to `headline`."""
    spec = spec_for_results(track)
    shown = []
    for h in spec.headlines if spec else ():
        if len(h.keys) == 1:
            continue
        value = number_at(summary, *h.keys)
        bounds = bounds_at(summary, *h.interval) if h.interval else None
        text = "n/a" if value is None else f"{value:.4g}" + _interval(bounds)
        shown.append(f"{h.label}={text}")
    return "  ".join(shown)


def _interval(bounds: Bounds | None) -> str:
    return "" if bounds is None else f" (95% {bounds.lower:.4g}-{bounds.upper:.4g})"


def headline_keys(track: str) -> set[str]:
    """The top-level summary keys a track declares as headlines (none for an unknown track)."""
    spec = spec_for_results(track)
    return {h.keys[0] for h in spec.headlines if len(h.keys) == 1} if spec else set()


def _rated(report: RunReport, track: str, model: str) -> str:
    """The model's rating on the track's joint board, "" when the track has none."""
    for board in report.boards:
        if board.track == track and model in board.ratings:
            return rating_text(board.ratings[model])
    return ""


def flagged(outcomes: dict[str, int]) -> str:
    """Samples whose score is not a plain judgement of the model (unparseable, missing judge, ...)."""
    return ", ".join(f"{n} {name}" for name, n in sorted(outcomes.items()) if name != "ok") or "0"


def rating_text(rating: tuple[float, float, float]) -> str:
    """`rating=1439.2 (95% 1202.0-1694.5)`: a model's place on its track's joint board, to the
    decimals the Space and `vlmscope compare` show it with."""
    value, lower, upper = (f"{x:.{RATING_DIGITS}f}" for x in rating)
    return f"rating={value} (95% {lower}-{upper})"


def format_table(report: RunReport) -> str:
    header = [
        "model",
        "track",
        "samples",
        "requests",
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
            str(t.samples),
            str(t.total),
            str(t.cached),
            str(t.generated),
            str(t.failed),
            flagged(t.outcomes),
            f"{t.seconds:.1f}",
            "  ".join(
                filter(
                    None,
                    [
                        _rated(report, t.track, t.model),
                        registered_headlines(t.track, t.summary),
                        headline(
                            t.summary,
                            keys=headline_keys(t.track),
                            intervals=headline_intervals(t.track, t.summary),
                        ),
                    ],
                )
            ),
        ]
        for t in report.tracks
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip()
        for r in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    if report.limit is not None:
        lines.append(
            f"limited run (--limit {report.limit}: the first {_rows(report.limit)} of each track, "
            "per task for MEGA-Bench); the leaderboard shows it only where no full run exists"
        )
    for track in report.tracks:
        reasoning = track.summary.get("generation", {}).get("reasoning") or {}
        if reasoning.get("truncated_in_reasoning"):
            lines.append(
                f"{track.model} / {track.track}: {reasoning['truncated_in_reasoning']} of "
                f"{reasoning['answers_with_reasoning']} reasoned answers ended inside their "
                f"reasoning (no answer; {limit_advice(track.summary['generation'])})"
            )
        if track.batching:  # answers are the same; the batches that produced them were not
            lines.append(
                f"{track.model} / {track.track}: batching fell back: " + "; ".join(track.batching)
            )
    for board in report.boards:
        lines.append(
            f"joint board of {board.track}: {board.models} models in one fit -> {board.result_dir}"
            if board.error is None
            else f"joint board of {board.track}: not fitted ({board.error})"
        )
    return "\n".join(lines)


def limit_advice(generation: Mapping[str, Any]) -> str:
    """Which token limit a reply cut off inside its reasoning ran into, and the field that
    raises it, from the summary's `generation`: the model's own `max_new_tokens:` cap when it
    lowered the track's limit, else the track's limit (MEGA-Bench's `options.max_new_tokens`;
    the other tracks keep their benchmark's)."""
    used = generation.get("max_new_tokens") or []
    tracks = generation.get("track_max_new_tokens") or []
    cap = generation.get("model_max_new_tokens")
    if cap is not None and tracks and cap < max(tracks):
        return (
            f"the model's max_new_tokens: {cap} cut the track's limit of {max(tracks)} tokens; "
            "raise or remove it in the model's config"
        )
    limit = f" of {max(used)} tokens" if used else ""
    return (
        f"the track's limit{limit} counts the reasoning; raise it where the track takes one "
        "(MEGA-Bench: options.max_new_tokens), or turn thinking off (generation: "
        "{chat_template_kwargs: {enable_thinking: false}})"
    )


def _rows(count: int) -> str:
    """`count` rows, in words that read right for one row too."""
    return "row" if count == 1 else f"{count} rows"
