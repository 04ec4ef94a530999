"""Pairwise-preference ratings: online Elo, Bradley-Terry, bootstrap CIs, style control.

Pure numpy/scipy re-implementations of the FastChat (VisionArena / Chatbot Arena) and
arena-hard v0.1 / ProBench rating code, converged exactly (Newton on merged rows) and
batched over bootstrap rounds. Every function takes a :class:`Battles` table (or plain
id/outcome/weight arrays) and returns arrays indexed like ``battles.models``.

Defaults follow FastChat: base 10, scale 400, init 1000, ties = half a win, anchor
``mixtral-8x7b-instruct-v0.1 = 1114`` when that model is present (else mean 1000).
Reference random streams (``stream="fastchat"`` / ``"randint"``) reproduce the upstream
bootstrap samples; the default stream draws from an explicit ``numpy.random.Generator``.

Input rows are checked where they come in (:mod:`vlmscope.ratings.inputs.row_checks`): a row that
cannot be used raises :class:`BadRowError` naming its place and field, or is skipped and counted
by reason when asked. A fit that cannot happen raises :class:`FitError`
(:mod:`vlmscope.ratings.fits.fit_checks`).

The names below are imported on first use (PEP 562): importing any module of the package runs
this file first, and the command line reads a few constants from `vlmscope.ratings` modules to
build its help, which must not pull in scipy (1-3 s) before any work needs it. `_EXPORTS` says
where each name lives; `tests/ratings/test_lazy_exports.py` checks it against the typed imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlmscope.ratings.boards.agreement import (
        AgreementReport,
        compare_leaderboards,
        confidence_agreement,
        kendall_tau,
        separability,
        spearman,
    )
    from vlmscope.ratings.boards.elo_analysis import Leaderboard, report
    from vlmscope.ratings.boards.win_rates import (
        pairwise_win_fraction,
        predicted_win_matrix,
        win_rate_vs_baseline,
    )
    from vlmscope.ratings.fits.bootstrap import (
        BootstrapResult,
        Stream,
        bootstrap_bt,
        bootstrap_style_control,
        ci_ranks,
        resample_counts,
    )
    from vlmscope.ratings.fits.bradley_terry import (
        FASTCHAT_ANCHOR,
        Anchor,
        ah01_anchor,
        bt_ratings,
        fit_bt,
        fit_bt_strengths,
        to_rating_scale,
    )
    from vlmscope.ratings.fits.elo import bootstrap_elo, online_elo
    from vlmscope.ratings.fits.fit_checks import FitError
    from vlmscope.ratings.fits.style_control import (
        StyleFit,
        fit_style_bt,
        style_control_ratings,
        style_features,
    )
    from vlmscope.ratings.inputs.battles import (
        STYLE_ELEMENTS_A,
        STYLE_ELEMENTS_B,
        Battles,
        battles_from_columns,
        check_battle_records,
        load_records,
        outcome_from_winner,
        read_battle_records,
        style_count,
    )
    from vlmscope.ratings.inputs.filters import (
        BOARD_FILTERS,
        VISION_CATEGORIES,
        category_filter,
        select_battles,
    )
    from vlmscope.ratings.inputs.merged_rows import MergedRows, merge_identical
    from vlmscope.ratings.inputs.row_checks import SKIP_REASONS, BadRowError, CheckedRows
    from vlmscope.ratings.inputs.synthetic import synthetic_battles

_EXPORTS = {
    "AgreementReport": "vlmscope.ratings.boards.agreement",
    "compare_leaderboards": "vlmscope.ratings.boards.agreement",
    "confidence_agreement": "vlmscope.ratings.boards.agreement",
    "kendall_tau": "vlmscope.ratings.boards.agreement",
    "separability": "vlmscope.ratings.boards.agreement",
    "spearman": "vlmscope.ratings.boards.agreement",
    "Leaderboard": "vlmscope.ratings.boards.elo_analysis",
    "report": "vlmscope.ratings.boards.elo_analysis",
    "pairwise_win_fraction": "vlmscope.ratings.boards.win_rates",
    "predicted_win_matrix": "vlmscope.ratings.boards.win_rates",
    "win_rate_vs_baseline": "vlmscope.ratings.boards.win_rates",
    "BootstrapResult": "vlmscope.ratings.fits.bootstrap",
    "Stream": "vlmscope.ratings.fits.bootstrap",
    "bootstrap_bt": "vlmscope.ratings.fits.bootstrap",
    "bootstrap_style_control": "vlmscope.ratings.fits.bootstrap",
    "ci_ranks": "vlmscope.ratings.fits.bootstrap",
    "resample_counts": "vlmscope.ratings.fits.bootstrap",
    "Anchor": "vlmscope.ratings.fits.bradley_terry",
    "FASTCHAT_ANCHOR": "vlmscope.ratings.fits.bradley_terry",
    "ah01_anchor": "vlmscope.ratings.fits.bradley_terry",
    "bt_ratings": "vlmscope.ratings.fits.bradley_terry",
    "fit_bt": "vlmscope.ratings.fits.bradley_terry",
    "fit_bt_strengths": "vlmscope.ratings.fits.bradley_terry",
    "to_rating_scale": "vlmscope.ratings.fits.bradley_terry",
    "bootstrap_elo": "vlmscope.ratings.fits.elo",
    "online_elo": "vlmscope.ratings.fits.elo",
    "FitError": "vlmscope.ratings.fits.fit_checks",
    "StyleFit": "vlmscope.ratings.fits.style_control",
    "fit_style_bt": "vlmscope.ratings.fits.style_control",
    "style_control_ratings": "vlmscope.ratings.fits.style_control",
    "style_features": "vlmscope.ratings.fits.style_control",
    "Battles": "vlmscope.ratings.inputs.battles",
    "STYLE_ELEMENTS_A": "vlmscope.ratings.inputs.battles",
    "STYLE_ELEMENTS_B": "vlmscope.ratings.inputs.battles",
    "battles_from_columns": "vlmscope.ratings.inputs.battles",
    "check_battle_records": "vlmscope.ratings.inputs.battles",
    "load_records": "vlmscope.ratings.inputs.battles",
    "outcome_from_winner": "vlmscope.ratings.inputs.battles",
    "read_battle_records": "vlmscope.ratings.inputs.battles",
    "style_count": "vlmscope.ratings.inputs.battles",
    "BOARD_FILTERS": "vlmscope.ratings.inputs.filters",
    "VISION_CATEGORIES": "vlmscope.ratings.inputs.filters",
    "category_filter": "vlmscope.ratings.inputs.filters",
    "select_battles": "vlmscope.ratings.inputs.filters",
    "MergedRows": "vlmscope.ratings.inputs.merged_rows",
    "merge_identical": "vlmscope.ratings.inputs.merged_rows",
    "BadRowError": "vlmscope.ratings.inputs.row_checks",
    "CheckedRows": "vlmscope.ratings.inputs.row_checks",
    "SKIP_REASONS": "vlmscope.ratings.inputs.row_checks",
    "synthetic_battles": "vlmscope.ratings.inputs.synthetic",
}


def __getattr__(name: str) -> Any:
    """Import the module that defines `name`, once, and keep the name here."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "FASTCHAT_ANCHOR",
    "STYLE_ELEMENTS_A",
    "STYLE_ELEMENTS_B",
    "SKIP_REASONS",
    "AgreementReport",
    "Anchor",
    "BadRowError",
    "Battles",
    "BootstrapResult",
    "CheckedRows",
    "FitError",
    "Leaderboard",
    "MergedRows",
    "Stream",
    "StyleFit",
    "BOARD_FILTERS",
    "VISION_CATEGORIES",
    "ah01_anchor",
    "battles_from_columns",
    "bootstrap_bt",
    "bootstrap_elo",
    "bootstrap_style_control",
    "bt_ratings",
    "category_filter",
    "check_battle_records",
    "ci_ranks",
    "compare_leaderboards",
    "confidence_agreement",
    "fit_bt",
    "fit_bt_strengths",
    "fit_style_bt",
    "kendall_tau",
    "load_records",
    "merge_identical",
    "online_elo",
    "outcome_from_winner",
    "pairwise_win_fraction",
    "predicted_win_matrix",
    "read_battle_records",
    "report",
    "resample_counts",
    "select_battles",
    "separability",
    "spearman",
    "style_control_ratings",
    "style_count",
    "style_features",
    "synthetic_battles",
    "to_rating_scale",
    "win_rate_vs_baseline",
]
