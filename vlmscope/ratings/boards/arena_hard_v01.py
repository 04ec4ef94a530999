"""arena-hard-auto v0.1 / ProBench rating math on judge-vs-baseline battles.

Both references share ``utils_math.py`` (byte-identical), so one module serves both:

* Plain Bradley-Terry (``compute_mle_elo``): the exact MLE of :func:`bootstrap_bt`, baseline at
  1000 (its tolerance, 1e-8, leaves the reference within 1e-5 Elo of the optimum).
* Style control (``construct_style_matrices`` + ``fit_bt``): every battle is duplicated, a tie
  becomes one A win plus one B win, four standardised style columns are appended and sklearn's
  L2 logistic regression (``C = 1``, ``tol = 1e-4``) is solved as sklearn solves it
  (:mod:`vlmscope.ratings.fits.sklearn_logistic`); the baseline is then pinned at 1114.
* Bootstraps resample battle rows with numpy's legacy stream (the references seed the global
  ``np.random`` with 42 at import): ``randint(0, n, n)`` per round. In the style bootstrap a
  sampled tie brings both of its duplicated rows and a sampled non-tie its row twice.
* Win rates vs the baseline come from :func:`vlmscope.ratings.boards.win_rates.win_rate_vs_baseline`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from vlmscope.ratings.fits.bootstrap import BootstrapResult, bootstrap_bt
from vlmscope.ratings.fits.bradley_terry import Anchor
from vlmscope.ratings.fits.fit_checks import require_two_classes
from vlmscope.ratings.fits.sklearn_logistic import fit_logistic_lbfgs
from vlmscope.ratings.fits.style_control import FEATURE_NAMES, style_features
from vlmscope.ratings.inputs.battles import Battles, FloatArray, outcome_from_winner
from vlmscope.ratings.inputs.verdict_battles import JudgedBattle

#: Style coefficient names, in the order of the reference's style columns.
STYLE_FEATURE_NAMES = FEATURE_NAMES
STYLE_BASELINE_RATING = 1114.0
PLAIN_BASELINE_RATING = 1000.0
SCALE, INIT = 400.0, 1000.0


def judged_battles_table(battles: Sequence[JudgedBattle], style: bool = False) -> Battles:
    """A :class:`Battles` table of judged battles (models by first appearance, as upstream)."""
    style_a = style_b = None
    if style:
        if any(b.style_a is None or b.style_b is None for b in battles):
            raise ValueError("style control needs model_metadata and baseline_metadata")
        style_a = [b.style_a.as_tuple() for b in battles if b.style_a]
        style_b = [b.style_b.as_tuple() for b in battles if b.style_b]
    return Battles.from_names(
        [b.model_a for b in battles],
        [b.model_b for b in battles],
        [outcome_from_winner(b.winner) for b in battles],
        style_a=style_a,
        style_b=style_b,
    )


def plain_elo_bootstrap(
    table: Battles, baseline: str, rounds: int, seed: int, *, upstream_missing: bool = True
) -> BootstrapResult:
    """``compute_mle_elo`` (exact MLE, baseline at 1000) and ``get_bootstrap_result`` rounds.

    Rounds use the ``randint`` stream, i.e. pandas ``sample(frac=1, replace=True)`` after
    ``np.random.seed(seed)``; every round is anchored at the baseline as intended upstream.
    A model missing from a round's sample has no rating in it upstream (the round's fit never
    sees it, ``pd.DataFrame(rows)`` leaves NaN), so its percentiles are NaN as in the reference's
    ``np.percentile``: such rounds are NaN here too (``upstream_missing=False`` keeps every
    round's rating instead, for boards that must stay finite). As upstream, a fit whose
    battles are all won by the same side stops (sklearn refuses labels of one class).
    """
    anchor = Anchor(baseline, PLAIN_BASELINE_RATING)
    if not upstream_missing:
        return bootstrap_bt(table, rounds=rounds, stream="randint", seed=seed, anchor=anchor)
    require_two_classes(_plain_labels(table.outcome), "arena-hard v0.1 Elo fit")
    # the rounds' samples (the stream `bootstrap_bt` draws) to see which models and which
    # classes each one holds: a round of one class stops before any round is fitted
    picks = np.random.RandomState(seed).randint(0, len(table), size=(rounds, len(table)))
    _require_two_classes_per_round(table.outcome[picks])
    result = bootstrap_bt(table, rounds=rounds, stream="randint", seed=seed, anchor=anchor)
    present = np.zeros((rounds, table.n_models), dtype=bool)
    round_ids = np.repeat(np.arange(rounds), len(table))
    present[round_ids, table.model_a[picks].ravel()] = True
    present[round_ids, table.model_b[picks].ravel()] = True
    if present.all():
        return result
    return replace(result, samples=np.where(present, result.samples, np.nan))


def _plain_labels(outcome: FloatArray) -> FloatArray:
    """``compute_mle_elo``'s labels: battles twice, A wins 1 in both copies, a tie 1 then 0
    (along the last axis, so a rounds x battles array gives each round's labels)."""
    first = (outcome == 1.0) | (outcome == 0.5)
    return np.concatenate([first, outcome == 1.0], axis=-1).astype(float)


def _require_two_classes_per_round(outcomes: FloatArray) -> None:
    """Every bootstrap round (a row of ``outcomes``) holds labels of two classes, checked for
    all rounds at once; the first that does not stops as :func:`require_two_classes` does."""
    labels = _plain_labels(outcomes)
    one_class = (labels == labels[:, :1]).all(axis=1)
    if one_class.any():
        number = int(np.argmax(one_class))
        require_two_classes(labels[number], f"arena-hard v0.1 Elo bootstrap round {number}")


@dataclass(frozen=True)
class DuplicatedDesign:
    """``construct_style_matrices`` output: 2n rows (battles twice), labels, tie mask (n)."""

    models: tuple[str, ...]
    design: FloatArray
    labels: FloatArray
    ties: NDArray[np.bool_]


def duplicated_style_design(table: Battles) -> DuplicatedDesign:
    """Model columns ``+-ln 10`` and standardised style columns, every battle twice."""
    if table.style_a is None or table.style_b is None:
        raise ValueError("style control needs style counts on every battle")
    n, m = len(table), table.n_models
    design = np.zeros((2 * n, m + table.style_a.shape[1]))
    rows = np.arange(2 * n)
    design[rows, np.concatenate([table.model_a, table.model_a])] = math.log(10)
    design[rows, np.concatenate([table.model_b, table.model_b])] = -math.log(10)
    # Standardised over all 2n rows, column-major so that each feature is reduced as one
    # contiguous row, as ``construct_style_matrices`` reduces it: the same numbers as
    # standardising the n battles once, but the reference's bits, and a rating that ties the
    # baseline lands one ulp above or below 1114 by them (ProBench prints ``int()`` of it).
    design[:, m:] = style_features(
        np.asfortranarray(np.concatenate([table.style_a, table.style_a])),
        np.asfortranarray(np.concatenate([table.style_b, table.style_b])),
    )
    ties = table.outcome == 0.5
    labels = np.concatenate([table.outcome == 1.0, table.outcome == 1.0]).astype(float)
    labels[:n][ties] = 1.0
    return DuplicatedDesign(table.models, design, labels, ties)


def fit_style_elo(
    design: FloatArray,
    labels: FloatArray,
    models: Sequence[str],
    baseline: str,
    *,
    one_class_stops: str | None = None,
) -> tuple[FloatArray, FloatArray]:
    """AH-v0.1 / ProBench ``fit_bt``: (ratings by model with baseline = 1114, style coefs).

    ``one_class_stops`` names the fit when labels of one class must stop it as they stop the
    reference's sklearn fit (None: fit them, the L2 penalty keeps the ratings finite)."""
    if baseline not in models:
        raise ValueError(f"baseline {baseline!r} has no battles")
    if one_class_stops is not None:
        require_two_classes(labels, one_class_stops)
    coef = fit_logistic_lbfgs(design, labels, inverse_regularisation=1.0, tol=1e-4)
    ratings = SCALE * coef[: len(models)] + INIT
    ratings += STYLE_BASELINE_RATING - ratings[list(models).index(baseline)]
    return ratings, coef[len(models) :]


def bootstrap_style_elo(
    duplicated: DuplicatedDesign,
    baseline: str,
    rounds: int,
    seed: int,
    *,
    upstream_missing: bool = True,
) -> FloatArray:
    """``get_bootstrap_result_style_control``: rounds x models ratings (a round missing a model
    labelled as upstream, see :func:`_as_labelled_upstream`, and a round of one class stopping
    the fit as upstream, unless ``upstream_missing=False``)."""
    random_state = np.random.RandomState(seed)
    n = duplicated.ties.shape[0]
    x, y = duplicated.design, duplicated.labels
    results: list[FloatArray] = []
    for _ in range(rounds):
        picks = np.asarray(random_state.randint(0, n, size=n), dtype=np.intp)
        plain = picks[~duplicated.ties[picks]]
        tied = picks[duplicated.ties[picks]]
        tied = np.concatenate([tied, tied + n])
        rows = np.concatenate([plain, plain, tied])
        stops = f"style-controlled bootstrap round {len(results)}" if upstream_missing else None
        ratings = fit_style_elo(
            x[rows], y[rows], duplicated.models, baseline, one_class_stops=stops
        )[0]
        present = np.asarray(x[rows, : len(ratings)].any(axis=0), dtype=bool)
        results.append(_as_labelled_upstream(ratings, present) if upstream_missing else ratings)
    return np.array(results)


def _as_labelled_upstream(ratings: FloatArray, present: NDArray[np.bool_]) -> FloatArray:
    """One round's ratings as the reference labels them when a model is missing from the sample:
    ``fit_bt`` gets only the present models' names but the design keeps every model column, so the
    first ``p`` ratings (column order) go to the ``p`` present models in order, and a missing model
    has no rating (NaN) in that round."""
    if present.all():
        return ratings
    out = np.full_like(ratings, np.nan)
    kept = np.flatnonzero(present)
    out[kept] = ratings[: len(kept)]
    return out


def percentiles(rounds: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per-column 2.5th and 97.5th percentiles (``np.percentile``, linear)."""
    return np.percentile(rounds, 2.5, axis=0), np.percentile(rounds, 97.5, axis=0)
