"""Rate human (or any) pairwise battles into one rating board, optionally as a reference.

``BATTLE_REFERENCES``:

* ``fastchat``: FastChat ``report_elo_analysis_results`` (bt mode: ``compute_bt`` point,
  ``compute_bootstrap_bt`` / ``compute_bootstrap_style_control`` rounds with FastChat's random
  streams, mixtral anchor at 1114) or, with ``system="elo"``, ``compute_elo`` plus
  ``compute_bootstrap_elo`` after ``np.random.seed(42)``.
* ``arena-hard-v0.1``: ``compute_mle_elo`` (anchor ``gpt-4-0314`` = 1000 unless another anchor
  is given) with ``get_bootstrap_result`` rounds (``randint`` stream, seed 42).
* ``None``: the same estimators with an explicit ``numpy.random.Generator`` seeded by ``seed``
  and no anchor unless one is given (ratings then average 1000).

Battles are selected like FastChat does (board filter, ``tstamp`` order, anonymous only;
the same steps as :func:`vlmscope.ratings.boards.elo_analysis.report`). Records without ``anony`` /
``tstamp`` count as anonymous and keep their file order.
:class:`~vlmscope.ratings.inputs.board_selection.BoardSelector` does it for
every board of one record list at once (one time sort, each filter run once, no record
copied), and each record's checked values are read once into columns that every board takes
its battles from. :func:`rate_table` is the part after
selection, shared with the ``arena_ratings`` evaluate module.
``win_rate`` is the observed share of points a model took in its battles (ties = half), in %.

Records are checked first (:func:`vlmscope.ratings.inputs.battles.check_battle_records`): a bad one
raises naming its index and field, or with ``skip_bad_rows`` is left out and counted under
``settings.extra["skipped"]``. A fit that cannot happen (a constant style feature in a small
category, ...) raises :class:`~vlmscope.ratings.fits.fit_checks.FitError`; a category board that
hits one is listed under ``skipped_categories`` instead.

:func:`battle_board` is what producers call: the typed :class:`RatingBoard` with, on request,
the style-controlled companion (the same battles fitted again with style control) and one board
per category (``BATTLE_CATEGORIES``, each selected from the raw records like FastChat does).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from vlmscope.ratings.boards.arena_hard_v01 import STYLE_FEATURE_NAMES
from vlmscope.ratings.boards.board import (
    STYLE_CONTROL_SKIPPED,
    RatingBoard,
    with_categories,
    with_skipped_rows,
)
from vlmscope.ratings.boards.names import (
    ARENA_HARD_V01,
    BATTLE_REFERENCES,
    FASTCHAT,
    FULL_BOARD,
    SYSTEMS,
)
from vlmscope.ratings.fits._newton import _single_threaded_blas, solver_threads
from vlmscope.ratings.fits.bootstrap import (
    BootstrapResult,
    Stream,
    bootstrap_bt,
    bootstrap_style_control,
    ci_ranks,
)
from vlmscope.ratings.fits.bradley_terry import FASTCHAT_ANCHOR, Anchor, ah01_anchor
from vlmscope.ratings.fits.connected import require_connected
from vlmscope.ratings.fits.elo import bootstrap_elo, online_elo
from vlmscope.ratings.fits.fit_checks import FitError
from vlmscope.ratings.inputs.battles import (
    BattleRow,
    Battles,
    FloatArray,
    battle_key,
    battle_row,
    check_battle_records,
)
from vlmscope.ratings.inputs.board_selection import (
    BattleTable,
    BoardSelector,
    collection_paused,
    select_board_battles,
)
from vlmscope.ratings.inputs.filters import board_filter
from vlmscope.ratings.inputs.row_checks import check_records

REFERENCE_SEED = 42
UNLABELLED = "unlabelled"
"""Key of a category board's `settings.extra`: battles left out because nobody labelled them
for that category (`vlmscope.ratings.inputs.labels`)."""
_BOARD_WORKERS = max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class BattleSettings:
    """Everything that changes a battle board; written into the output as ``settings``."""

    reference: str | None = None
    system: str = "bt"
    style_control: bool = False
    rounds: int = 100
    seed: int = 0
    anchor_model: str | None = None
    anchor_rating: float | None = None
    category: str | None = None

    def __post_init__(self) -> None:
        if self.reference is not None and self.reference not in BATTLE_REFERENCES:
            raise ValueError(f"reference: {self.reference!r} not in {BATTLE_REFERENCES}")
        if self.system not in SYSTEMS:
            raise ValueError(f"system: {self.system!r} not in {SYSTEMS}")
        if self.style_control and self.system == "elo":
            raise ValueError("style_control: only with system 'bt'")
        if self.reference == ARENA_HARD_V01 and (self.style_control or self.system == "elo"):
            raise ValueError("reference: arena-hard-v0.1 on battles is plain BT only")
        if self.rounds < 1:
            raise ValueError(f"rounds: must be >= 1, got {self.rounds}")
        if self.category is not None:
            try:
                board_filter(self.category)
            except KeyError as error:
                raise ValueError(f"category: {error.args[0]}") from None
        if (self.anchor_model is None) != (self.anchor_rating is None):
            raise ValueError("anchor: give both a model and a rating")

    def anchor(self) -> Anchor | None:
        if self.anchor_model is not None and self.anchor_rating is not None:
            return Anchor(self.anchor_model, self.anchor_rating)
        if self.reference == FASTCHAT:
            return FASTCHAT_ANCHOR
        return ah01_anchor() if self.reference == ARENA_HARD_V01 else None

    def stream(self) -> Stream:
        """The bootstrap's random stream: the reference's, or an explicit Generator."""
        if self.reference == FASTCHAT:
            return "fastchat"
        return "randint" if self.reference == ARENA_HARD_V01 else "generator"


def rate_battles(records: Sequence[Mapping[str, Any]], settings: BattleSettings) -> dict[str, Any]:
    """Select the board's battles from clean-battle records, then :func:`rate_table`.
    A bad record raises :class:`~vlmscope.ratings.inputs.row_checks.BadRowError` naming its index."""
    records = check_battle_records(records, style=settings.style_control).rows
    selected = select_board_battles(records, settings.category)
    return rate_table(Battles.from_records(selected, style=settings.style_control), settings)


def battle_board(
    records: Sequence[Mapping[str, Any]],
    settings: BattleSettings,
    *,
    categories: Sequence[str] = (),
    style_companion: bool = False,
    skip_bad_rows: bool = False,
    selector: BoardSelector | None = None,
) -> RatingBoard:
    """The board of ``settings`` with the companions asked for.

    ``selector``: a :class:`BoardSelector` over these very ``records`` to reuse (a caller that
    also needs the boards' records, like the arena leaderboard, filters each board once); it
    is used only when no record was skipped.

    ``records`` are checked first: a bad one raises
    :class:`~vlmscope.ratings.inputs.row_checks.BadRowError` naming its index and field, or with
    ``skip_bad_rows`` is left out and counted under ``settings.extra["skipped"]``
    (``board.skipped_rows``; ``{}`` when none was).

    ``style_companion`` fits the same battles again with style control and attaches that board
    as ``style_control`` (a board that is itself style-controlled gets none; one whose style
    fit cannot happen keeps its plain ratings and says why under
    ``settings.extra["style_control_skipped"]``). ``categories``
    (names from ``BATTLE_CATEGORIES``) adds one board per category, each with its own
    companion. A category the records cannot fill (no battles left, no battle labelled for
    it, or the field its filter reads is missing, or its fit cannot happen) has no board: it is listed with the reason under
    ``settings.extra[SKIPPED_CATEGORIES]`` (``board.skipped_categories``) instead of failing.
    """
    for name in categories:
        if name == FULL_BOARD:
            raise ValueError("categories: 'full' is the board itself, not a category board")
        try:
            board_filter(name)
        except KeyError as error:
            raise ValueError(f"categories: {error.args[0]}") from None
    if categories and settings.category is not None:
        raise ValueError(f"categories: the {settings.category!r} board has no category boards")
    companion = _companion_settings(settings) if style_companion else None
    style = settings.style_control or companion is not None
    with collection_paused():
        checked = check_records(
            records,
            lambda record: (record, battle_row(record, style=style)),
            skip_bad_rows=skip_bad_rows,
            key=battle_key,
        )
        if selector is not None and (checked.skipped or selector.records is not records):
            selector = None
        board = _categorised_board(checked.rows, settings, categories, companion, selector)
    return with_skipped_rows(board, checked.skipped)


def _categorised_board(
    checked: Sequence[tuple[Mapping[str, Any], BattleRow]],
    settings: BattleSettings,
    categories: Sequence[str],
    companion: BattleSettings | None,
    selector: BoardSelector | None = None,
) -> RatingBoard:
    """The boards of :func:`battle_board` from checked records, each with its values (so a
    record's fields are read once, and sorted by time once, whatever number of boards it is in)."""
    if selector is None:
        selector = BoardSelector([record for record, _ in checked])
    table = BattleTable.from_rows([row for _, row in checked])
    main_positions = selector.positions(settings.category)
    if settings.category is not None and not len(main_positions):
        raise ValueError(
            f"the {settings.category!r} board: {_no_battles(selector, settings.category)}"
        )
    full = partial(table.battles, main_positions)
    if not categories:
        return _counted(_fit(full, settings, companion), selector, settings.category)
    outcomes: dict[str, str | Future[RatingBoard]] = {}  # why skipped, or the fit under way
    # Boards are independent (each draws from its own random stream), so two are fitted at a
    # time, the main board first while this thread selects the others' battles; BLAS is held
    # to one thread once here, around every fit's own switch.
    with _single_threaded_blas(), ThreadPoolExecutor(_BOARD_WORKERS) as pool:
        main_board = pool.submit(_fit_beside_others, full, settings, companion)
        for name in categories:
            try:
                positions = selector.positions(name)
            except KeyError as missing:
                outcomes[name] = f"records lack the field {missing}"
                continue
            if not len(positions):
                outcomes[name] = _no_battles(selector, name)
                continue
            outcomes[name] = pool.submit(
                _fit_beside_others,
                partial(table.battles, positions),
                replace(settings, category=name),
                None if companion is None else replace(companion, category=name),
            )
        boards: dict[str, RatingBoard] = {}
        skipped: dict[str, str] = {}
        for name, outcome in outcomes.items():
            if isinstance(outcome, str):
                skipped[name] = outcome
                continue
            try:
                boards[name] = _counted(outcome.result(), selector, name)
            except FitError as error:  # e.g. a style feature constant over a small category
                skipped[name] = str(error)
        board = _counted(main_board.result(), selector, settings.category)
    return with_categories(board, boards, skipped)


def _no_battles(selector: BoardSelector, category: str) -> str:
    """Why a board has no battles: none passed its filter, or none carries its label."""
    unlabelled = selector.unlabelled(category)
    if unlabelled and not selector.labelled(category):
        return f"no battle is labelled for it ({unlabelled} unlabelled)"
    return f"no battles left ({unlabelled} unlabelled)" if unlabelled else "no battles left"


def _counted(board: RatingBoard, selector: BoardSelector, category: str | None) -> RatingBoard:
    """The board with the battles it left out for want of its label (``settings.unlabelled``),
    when there were any."""
    unlabelled = selector.unlabelled(category) if category else 0
    if not unlabelled:
        return board
    extra = {**board.settings.extra, UNLABELLED: unlabelled}
    return replace(board, settings=replace(board.settings, extra=extra))


def _companion_settings(settings: BattleSettings) -> BattleSettings | None:
    """The style-controlled twin of ``settings`` (None when ``settings`` is one already);
    raises ValueError naming the setting that rules style control out (elo, arena-hard-v0.1)."""
    if settings.style_control:
        return None
    try:
        return replace(settings, style_control=True)
    except ValueError as error:
        raise ValueError(f"style companion: {error}") from None


def board_from_battles(
    battles: Battles, settings: BattleSettings, *, style_companion: bool = False
) -> RatingBoard:
    """:func:`battle_board` without categories for battles already selected and built, e.g.
    streamed from a large file (:func:`vlmscope.ratings.inputs.battle_stream.read_board_battles`,
    with style counts when a style fit is asked for)."""
    companion = _companion_settings(settings) if style_companion else None

    def make(style: bool) -> Battles:
        return battles if style else replace(battles, style_a=None, style_b=None)

    return _fit(make, settings, companion)


def _fit(
    make: Callable[[bool], Battles],
    settings: BattleSettings,
    companion: BattleSettings | None,
) -> RatingBoard:
    """One board of already selected battles (``make(style)`` builds them, with style counts
    when ``style``), plus its style-controlled twin when asked."""
    board = RatingBoard.from_json(rate_table(make(settings.style_control), settings))
    if companion is None:
        return board
    try:
        style_board = rate_table(make(True), companion)
    except FitError as error:  # e.g. no battle of a small category has a header: keep the board
        extra = {**board.settings.extra, STYLE_CONTROL_SKIPPED: str(error)}
        return replace(board, settings=replace(board.settings, extra=extra))
    return board.with_companions(style_control=RatingBoard.from_json(style_board))


def _fit_beside_others(
    make: Callable[[bool], Battles],
    settings: BattleSettings,
    companion: BattleSettings | None,
) -> RatingBoard:
    """:func:`_fit` in a pool of board fits: one solver thread, the pool uses the cores."""
    with solver_threads(1):
        return _fit(make, settings, companion)


def board_fit(battles: Battles, settings: BattleSettings) -> BootstrapResult:
    """The fit behind a board: point ratings (online Elo's for ``system="elo"``), every
    bootstrap round (rounds x models) and, with style control, the coefficients. A comparison
    of two models reads the rounds (their difference)."""
    if len(battles) == 0:
        raise ValueError("no battles left to rate")
    require_connected(battles)  # groups that never met are not on one scale
    seed = REFERENCE_SEED if settings.reference else settings.seed
    rng = np.random.default_rng(settings.seed) if settings.reference is None else None
    stream, rounds, anchor = settings.stream(), settings.rounds, settings.anchor()
    if settings.system == "elo":
        if not np.all(battles.weights == 1.0):
            raise ValueError("system: online Elo replays battles one by one; weights need 'bt'")
        boot = bootstrap_elo(battles, rounds=rounds, rng=rng, stream=stream, seed=seed)
        return replace(boot, rating=online_elo(battles))
    if settings.style_control:
        return bootstrap_style_control(
            battles, rounds=rounds, rng=rng, stream=stream, seed=seed, anchor=anchor
        )
    return bootstrap_bt(battles, rounds=rounds, rng=rng, stream=stream, seed=seed, anchor=anchor)


def rate_table(battles: Battles, settings: BattleSettings) -> dict[str, Any]:
    """Ratings, 95% CIs, CI ranks and (with style control) coefficients for ``battles``."""
    boot = board_fit(battles, settings)
    seed = REFERENCE_SEED if settings.reference else settings.seed
    rating, coefs, stream = boot.rating, boot.coefs, settings.stream()
    return {
        "models": _model_entries(battles, rating, boot),
        "style_coefficients": None
        if coefs is None
        else dict(zip(STYLE_FEATURE_NAMES, coefs.tolist(), strict=True)),
        "unparseable": 0,
        "settings": {
            "command": "battles",
            **asdict(settings),
            "seed": seed,
            "stream": stream,
            "n_battles": len(battles),
            "interval": [2.5, 97.5],
        },
    }


def _model_entries(
    battles: Battles, rating: FloatArray, boot: BootstrapResult
) -> dict[str, dict[str, Any]]:
    """Per model, best first: point rating, 95% percentile interval, CI rank, win share."""
    appearances = battles.num_battles()  # weighted, like the points below
    won = battles.outcome * battles.weights
    points = np.bincount(battles.model_a, won, minlength=battles.n_models)
    points += np.bincount(battles.model_b, battles.weights - won, minlength=battles.n_models)
    lower, upper = boot.interval(0.95)
    ranks = ci_ranks(lower, upper)
    entries = {}
    for i in np.argsort(-rating, kind="stable"):
        entries[battles.models[i]] = {
            "rating": float(rating[i]),
            "lower": float(lower[i]),
            "upper": float(upper[i]),
            "win_rate": float(100.0 * points[i] / appearances[i]),
            "battles": float(appearances[i]),
            "rank": int(ranks[i]),
        }
    return entries
