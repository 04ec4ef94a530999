"""arena-hard-auto v2 ``show_result.py`` scoring of judge-vs-baseline scores.

Input is the exploded score rows of :func:`vlmscope.ratings.inputs.verdict_battles.scores_from_verdicts`
(one row per unit of score, 1 / 0.5 / 0 for the judged model), all against one baseline.

* No style control (``print_leaderboard``): per model, 100 rounds of resampling that model's rows
  (models in alphabetical order, ``choice(n, n)`` per model per round), the score is the mean of
  the round means and the CI the 5% / 95% quantiles of the round means (a 90% interval).
* Style control (``print_leaderboard_with_style_features(.., ["length", "markdown"])``): a
  Bradley-Terry logistic model on +1 (judged model) / -1 (baseline) columns plus 4 standardised
  style features, fit per bootstrap round (``randint(0, N, (100, N))`` over all rows in the given
  order) by 50 fixed L-BFGS steps from 0.5, no regularisation, run in torch float32 as upstream
  runs it (:mod:`vlmscope.ratings.fits.float32_bt_lbfgs`: a float64 fit prints other last
  digits). The score is the median round win rate ``exp(c_model) / (exp(c_model) +
  exp(c_baseline))``; the CI its 5% / 95% quantiles. Style features differ from the v0.1 ones
  on purpose (spec 6.4):
  length ``(m - b) / (m + b)``; markdown density ``count / (tokens + 1)`` then
  ``(d_m - d_b) / (d_m + d_b + 1)``; standardised with ddof 1. Upstream takes each answer's
  counts by position (``metadata.values()`` as tokens, headers, lists, bold), so do we; an
  answer whose metadata has the keys in another order, or other keys in their places, is scored
  as upstream scores it, and counted in the board's notes (:func:`metadata_order_notes`); a
  layout upstream stops on is an error naming the answer
  (:mod:`vlmscope.ratings.boards.arena_hard_v2_metadata`).

Upstream draws from numpy's unseeded global stream; here a ``RandomState`` seed is explicit (the
goldens were produced after ``np.random.seed(42)``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vlmscope.ratings.boards.arena_hard_v2_metadata import positional_counts
from vlmscope.ratings.fits.float32_bt_lbfgs import (
    bootstrap_float32_bt,
    float32_win_rates,
    v2_float32_style_features,
)
from vlmscope.ratings.fits.pandas_group_stats import group_mean, group_quantile
from vlmscope.ratings.inputs.verdict_battles import JudgedScore
from vlmscope.ratings.inputs.verdict_records import STYLE_FIELDS, VerdictRecord

FloatArray = NDArray[np.float64]

V2_STYLE_FEATURES = ("length", "header_density", "list_density", "bold_density")
V2_LOWER_QUANTILE, V2_UPPER_QUANTILE = 0.05, 0.95


@dataclass(frozen=True)
class WinRate:
    """Win rate against the baseline (fractions in [0, 1]) with its bootstrap interval."""

    score: float
    lower: float
    upper: float

    def ci_text(self) -> str:
        """The interval as arena-hard v2 prints it, in percentage points: ``(-x / +y)``, rounded
        as numpy rounds (the reference rounds numpy floats there: ``x * 10``, half to even)."""
        below = float(np.round((self.score - self.lower) * 100, 1))
        above = float(np.round((self.upper - self.score) * 100, 1))
        return f"(-{below} / +{above})"


@dataclass(frozen=True)
class ArenaHardV2Board:
    """Win rates per model (baseline included at 0.5) and, with style control, median coefs."""

    baseline: str
    win_rates: dict[str, WinRate]
    n_rows: int
    model_coef_median: dict[str, float] | None = None
    style_coef_median: dict[str, float] | None = None


def shown_name(model: str) -> str:
    """The name arena-hard v2 scores a model under: its judgment files may name a model by a path
    (``org/model``), and ``show_result`` keeps the part after the last ``/`` (so two paths ending
    alike are scored as one model). The baseline keeps its configured name."""
    return model.split("/")[-1]


def _check_baseline(scores: Sequence[JudgedScore], baseline: str) -> None:
    others = sorted({row.baseline for row in scores} - {baseline})
    if others:
        raise ValueError(f"rows against other baselines ({', '.join(others)}); score one at a time")


def arena_hard_v2_board(
    scores: Sequence[JudgedScore], baseline: str, rounds: int = 100, seed: int = 42
) -> ArenaHardV2Board:
    """Per-model bootstrap of mean scores (no style control)."""
    _check_baseline(scores, baseline)
    random_state = np.random.RandomState(seed)
    models = sorted({shown_name(row.model) for row in scores})
    per_model = {
        m: np.array([r.score for r in scores if shown_name(r.model) == m], dtype=float)
        for m in models
    }
    round_means: dict[str, list[float]] = {m: [] for m in models}
    for _ in range(rounds):
        for model in models:
            values = per_model[model]
            picks = random_state.randint(0, len(values), size=len(values))
            round_means[model].append(float(values[picks].mean()))
    win_rates = {baseline: WinRate(0.5, 0.5, 0.5)}
    for model in models:
        means = np.array(round_means[model])
        win_rates[model] = WinRate(  # pandas' groupby mean and quantile, bit for bit
            score=group_mean(means),
            lower=group_quantile(means, V2_LOWER_QUANTILE),
            upper=group_quantile(means, V2_UPPER_QUANTILE),
        )
    return ArenaHardV2Board(baseline=baseline, win_rates=win_rates, n_rows=len(scores))


def v2_style_features(scores: Sequence[JudgedScore]) -> FloatArray:
    """Standardised (ddof 1) length and markdown-density differences, model minus baseline
    (a baseline with two counts has one density, compared with each of the model's three),
    computed in float32 as upstream computes them (the float32 values, widened)."""
    model, base = positional_counts(scores)  # by position; a layout upstream stops on raises
    return v2_float32_style_features(model, base, V2_STYLE_FEATURES).astype(np.float64)


OUT_OF_ORDER = (
    "metadata keys out of the official order: read by position as the official scorer does"
)
NOT_THE_OFFICIAL_KEYS = (
    "metadata keys other than the official four: read by position as the official scorer does"
)
ONE_DENSITY = "; its second count is compared with each of the model's three markdown counts"


def metadata_order_notes(records: Sequence[VerdictRecord]) -> list[str]:
    """One note per side and key order other than ``token_len, header_count, list_count,
    bold_count`` (other keys included), with how many answers have it and the first of them:
    upstream reads the values by position, so its (and our) numbers then differ from those of
    the same counts under the official keys in the official order. Counted rather than listed:
    a file written with another key order has it on every row, and a line per answer would bury
    the command's other output."""
    first: dict[tuple[str, tuple[str, ...]], VerdictRecord] = {}
    count: Counter[tuple[str, tuple[str, ...]]] = Counter()
    for record in records:
        for side, style in (
            ("model_metadata", record.model_style),
            ("baseline_metadata", record.baseline_style),
        ):
            if style is not None and not style.in_official_order():
                key = (side, style.key_order)
                first.setdefault(key, record)
                count[key] += 1
    return [
        f"{side} ({', '.join(order)}) in {count[side, order]} answer(s), first uid "
        f"{record.uid!r} ({record.model!r} against {record.baseline!r}): {_why(order)}"
        for (side, order), record in first.items()
    ]


def _why(order: tuple[str, ...]) -> str:
    """Which misreading a key order leads to: only reordered, or other keys read as counts."""
    if sorted(order) == sorted(STYLE_FIELDS):
        return OUT_OF_ORDER
    return NOT_THE_OFFICIAL_KEYS + (ONE_DENSITY if len(order) == 2 else "")


def arena_hard_v2_style_board(
    scores: Sequence[JudgedScore], baseline: str, rounds: int = 100, seed: int = 42
) -> ArenaHardV2Board:
    """Style-controlled board: bootstrap fits, median win rates, 5% / 95% quantiles."""
    _check_baseline(scores, baseline)
    models = sorted({shown_name(row.model) for row in scores} | {baseline})
    column = {name: i for i, name in enumerate(models)}
    one_hot = np.zeros((len(scores), len(models)))
    one_hot[np.arange(len(scores)), [column[shown_name(r.model)] for r in scores]] = 1.0
    one_hot[:, column[baseline]] = -1.0
    design = np.concatenate([one_hot, v2_style_features(scores)], axis=1).astype(np.float32)
    outcome = np.array([r.score for r in scores], dtype=np.float32)
    picks = np.random.RandomState(seed).randint(0, len(scores), size=(rounds, len(scores)))
    coefs32 = bootstrap_float32_bt(design, outcome, picks)
    probabilities = float32_win_rates(coefs32[:, : len(models)], column[baseline]).astype(float)
    win_rates = {
        name: WinRate(
            score=float(np.quantile(probabilities[:, i], 0.5)),
            lower=float(np.quantile(probabilities[:, i], V2_LOWER_QUANTILE)),
            upper=float(np.quantile(probabilities[:, i], V2_UPPER_QUANTILE)),
        )
        for i, name in enumerate(models)
    }
    medians = np.median(coefs32.astype(np.float64), axis=0)
    return ArenaHardV2Board(
        baseline=baseline,
        win_rates=win_rates,
        n_rows=len(scores),
        model_coef_median=dict(zip(models, medians[: len(models)].tolist(), strict=True)),
        style_coef_median=dict(
            zip(V2_STYLE_FEATURES, medians[len(models) :].tolist(), strict=True)
        ),
    )
