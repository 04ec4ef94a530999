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
"""

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
