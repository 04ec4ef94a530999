"""Score judge verdicts the way one named reference does, into the common ratings JSON.

``VERDICT_REFERENCES`` names the three judge-vs-baseline scorers; :func:`score_verdicts` runs
one of them and returns ``{"models", "style_coefficients", "unparseable", "excluded",
"settings"}``. What ``rating`` means follows the reference: Elo for ProBench and arena-hard
v0.1 (ProBench's printed ints, untruncated values alongside), win rate in percent for
arena-hard v2 (it has no Elo scale). ``win_rate`` is always percent against the baseline.

:func:`verdict_board` is what producers call: the typed :class:`RatingBoard`, with on request
the style-controlled companion and one board per record ``category``. ProBench's reference is
style-controlled itself, so its boards never carry a companion.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from vlmscope.ratings.boards.arena_hard_v2 import (
    arena_hard_v2_board,
    arena_hard_v2_style_board,
    metadata_order_notes,
    shown_name,
)
from vlmscope.ratings.boards.board import STYLE_CONTROL_SKIPPED, RatingBoard, with_categories
from vlmscope.ratings.boards.judged_boards import (
    DEFAULT_ROUNDS,
    REFERENCE_SEED,
    arena_hard_v01_board,
    probench_board,
)
from vlmscope.ratings.boards.names import (
    ARENA_HARD_V01,
    ARENA_HARD_V2,
    PROBENCH,
    VERDICT_REFERENCES,
)
from vlmscope.ratings.boards.style_value_checks import (
    BY_NAME_READER,
    V2_READER,
    boolean_count_notes,
    require_readable_values,
)
from vlmscope.ratings.fits.fit_checks import FitError
from vlmscope.ratings.inputs.verdict_battles import (
    DEFAULT_STRONG_WEIGHT,
    battles_from_verdicts,
    scores_from_verdicts,
)
from vlmscope.ratings.inputs.verdict_records import VerdictRecord, require_named_styles


@dataclass(frozen=True)
class VerdictSettings:
    """Everything that changes a verdict board; written into the output as ``settings``."""

    reference: str = ARENA_HARD_V01
    baseline: str = ""
    style_control: bool = False
    weight: int = DEFAULT_STRONG_WEIGHT
    first_game_only: bool = False
    rounds: int = DEFAULT_ROUNDS
    seed: int = REFERENCE_SEED
    category: str | None = None

    def __post_init__(self) -> None:
        if self.reference not in VERDICT_REFERENCES:
            raise ValueError(f"reference: {self.reference!r} not in {VERDICT_REFERENCES}")
        if not self.baseline:
            raise ValueError("baseline: a baseline model name is required")
        if self.weight < 1:
            raise ValueError(f"weight: must be >= 1, got {self.weight}")
        if self.rounds < 1:
            raise ValueError(f"rounds: must be >= 1, got {self.rounds}")
        if self.reference == ARENA_HARD_V2 and self.first_game_only:
            raise ValueError("first_game_only: arena-hard v2 always scores both games")


def verdict_categories(records: Sequence[VerdictRecord]) -> tuple[str, ...]:
    """The distinct ``category`` values of ``records``, sorted (records without one have none)."""
    return tuple(sorted({r.category for r in records if r.category is not None}))


def select_verdicts(
    records: Sequence[VerdictRecord], category: str | None = None
) -> list[VerdictRecord]:
    """The records a board scores, in file order: all of them, or one category's."""
    return [r for r in records if category is None or r.category == category]


def verdict_board(
    records: Sequence[VerdictRecord],
    settings: VerdictSettings,
    *,
    categories: Sequence[str] = (),
    style_companion: bool = False,
) -> RatingBoard:
    """The board of ``settings`` with the companions asked for.

    ``style_companion`` scores the same verdicts again with style control and attaches that
    board as ``style_control``; a board that is style-controlled already (``style_control``
    set, or ProBench, whose reference always is) gets none. ``categories`` (values of the
    records' ``category``, see :func:`verdict_categories`) adds one board per category, each
    with its own companion; a category no record has, or one that cannot be scored (every
    verdict unparseable), is listed with the reason under ``settings.extra[SKIPPED_CATEGORIES]``
    (``board.skipped_categories``) instead of failing the whole board.
    """
    if categories and settings.category is not None:
        raise ValueError(f"categories: the {settings.category!r} board has no category boards")
    companion = style_companion and not settings.style_control and settings.reference != PROBENCH
    board = _scored_board(records, settings, companion)
    if not categories:
        return board
    present = set(verdict_categories(records))
    boards: dict[str, RatingBoard] = {}
    skipped: dict[str, str] = {}
    for name in categories:
        if name not in present:
            skipped[name] = "no verdict records"
            continue
        try:
            boards[name] = _scored_board(records, replace(settings, category=name), companion)
        except ValueError as error:  # e.g. every verdict of the category unparseable
            skipped[name] = str(error)
    return with_categories(board, boards, skipped)


def _scored_board(
    records: Sequence[VerdictRecord], settings: VerdictSettings, companion: bool
) -> RatingBoard:
    board = RatingBoard.from_json(score_verdicts(records, settings))
    if not companion:
        return board
    try:
        styled = score_verdicts(records, replace(settings, style_control=True))
    except FitError as error:  # a style feature that never varies: keep the plain board
        extra = {**board.settings.extra, STYLE_CONTROL_SKIPPED: str(error)}
        return replace(board, settings=replace(board.settings, extra=extra))
    return board.with_companions(style_control=RatingBoard.from_json(styled))


def score_verdicts(records: Sequence[VerdictRecord], settings: VerdictSettings) -> dict[str, Any]:
    """Run the reference named in ``settings`` on ``records`` (file order matters: bootstraps)."""
    records = select_verdicts(records, settings.category)
    if not records:
        raise ValueError("no verdict records to score")
    other_baselines = sorted({r.baseline for r in records} - {settings.baseline})
    if other_baselines:
        raise ValueError(f"baseline: records are judged against {', '.join(other_baselines)}")
    if settings.reference == PROBENCH:
        return _probench(records, settings)
    if settings.reference == ARENA_HARD_V2:
        return _arena_hard_v2(records, settings)
    return _arena_hard_v01(records, settings)


def _settings(settings: VerdictSettings, **extra: Any) -> dict[str, Any]:
    return {"command": "verdicts", **asdict(settings), **extra}


def _arena_hard_v01(records: Sequence[VerdictRecord], settings: VerdictSettings) -> dict[str, Any]:
    notes: list[str] = []
    if settings.style_control:
        require_named_styles(records)  # its style fit reads the four counts by name
        require_readable_values(records, BY_NAME_READER)
        notes = boolean_count_notes(records, BY_NAME_READER)
    judged = battles_from_verdicts(records, settings.weight, settings.first_game_only)
    board = arena_hard_v01_board(  # a board keeps finite numbers, small categories included
        judged.rows,
        settings.baseline,
        settings.style_control,
        settings.rounds,
        settings.seed,
        upstream_missing=False,
    )
    win_rates = board.win_rate_pct()
    models = {
        model: {
            "rating": board.score[model],
            "lower": board.lower[model],
            "upper": board.upper[model],
            "win_rate": win_rates[model]["score"],
            "win_rate_lower": win_rates[model]["lower"],
            "win_rate_upper": win_rates[model]["upper"],
            "battles": board.battles_per_model[model],
        }
        for model in sorted(board.score, key=board.score.__getitem__, reverse=True)
    }
    return {
        "models": models,
        "style_coefficients": board.style_coef,
        "unparseable": judged.unparseable,
        "excluded": judged.excluded_by_reason(),
        "settings": _settings(
            settings,
            n_battle_rows=board.n_battle_rows,
            winner_counts=board.winner_counts,
            interval=[2.5, 97.5],
            stream="randint",
            **({"notes": notes} if notes else {}),
        ),
    }


def _probench(records: Sequence[VerdictRecord], settings: VerdictSettings) -> dict[str, Any]:
    """One style-controlled fit per judged model; the baseline entry is shared (always 1114)."""
    require_named_styles(records)  # its fits read the four counts by name
    require_readable_values(records, BY_NAME_READER)
    notes = boolean_count_notes(records, BY_NAME_READER)
    baseline = settings.baseline
    models: dict[str, dict[str, Any]] = {}
    unparseable, excluded = 0, Counter[str]()
    for model in dict.fromkeys(r.model for r in records):
        result = probench_board(
            records,
            model,
            baseline,
            settings.weight,
            settings.first_game_only,
            settings.rounds,
            settings.seed,
        )
        unparseable += result.unparseable
        excluded.update(result.excluded_by_reason)
        for name in (baseline, model):
            models[name] = {
                "rating": result.score_int[name],
                "lower": result.lower_int[name],
                "upper": result.upper_int[name],
                "win_rate": result.win_rate_pct[name],
                "battles": result.board.n_battle_rows,
                "rating_float": result.board.score[name],
                "lower_float": result.board.lower[name],
                "upper_float": result.board.upper[name],
                "avg_tokens": result.avg_tokens[name],
            }
        models[model]["style_coefficients"] = result.board.style_coef
        models[model]["winner_counts"] = result.board.winner_counts
        models[baseline]["battles"] = None  # the baseline takes part in every per-model fit
    ordered = dict(sorted(models.items(), key=lambda item: -item[1]["rating"]))
    return {
        "models": ordered,
        "style_coefficients": None,  # per-model fits: see models[NAME]["style_coefficients"]
        "unparseable": unparseable,
        "excluded": dict(excluded),
        "settings": _settings(
            settings,
            style_control=True,
            interval=[2.5, 97.5],
            stream="randint",
            **({"notes": notes} if notes else {}),
        ),
    }


def _arena_hard_v2(records: Sequence[VerdictRecord], settings: VerdictSettings) -> dict[str, Any]:
    judged = scores_from_verdicts(records, settings.weight)
    if not judged.rows:
        raise ValueError(f"no parseable verdicts among {len(records)} records")
    score_board = arena_hard_v2_style_board if settings.style_control else arena_hard_v2_board
    board = score_board(judged.rows, settings.baseline, settings.rounds, settings.seed)
    rows_per_model = Counter(shown_name(row.model) for row in judged.rows)
    models = {
        model: {
            "rating": rate.score * 100,
            "lower": rate.lower * 100,
            "upper": rate.upper * 100,
            "win_rate": rate.score * 100,
            "ci": rate.ci_text(),
            "battles": rows_per_model.get(model),
            **(
                {"coefficient": board.model_coef_median[model]}
                if board.model_coef_median is not None
                else {}
            ),
        }
        for model, rate in sorted(board.win_rates.items(), key=lambda item: -item[1].score)
    }
    return {
        "models": models,
        "style_coefficients": board.style_coef_median,
        "unparseable": judged.unparseable,
        "excluded": judged.excluded_by_reason(),
        "settings": _settings(
            settings,
            n_battle_rows=board.n_rows,
            interval=[5.0, 95.0],
            point="median" if settings.style_control else "mean of bootstrap means",
            stream="randint",
            **(
                {"notes": metadata_order_notes(records) + boolean_count_notes(records, V2_READER)}
                if settings.style_control
                else {}
            ),
        ),
    }
