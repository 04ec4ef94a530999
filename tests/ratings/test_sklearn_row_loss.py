"""The logistic fit's per-row loss and slope are scikit-learn's to the bit.

The bit-equal ProBench / arena-hard v0.1 boards rest on them, and the per-element C-library
``exp`` / ``log1p`` that gives them is most of a style bootstrap's time; numpy's vectorised
functions differ in the last bit on a few rows in a hundred, so this pins the choice against
scikit-learn's own compiled half-binomial loss (the `bench` extra installs it)."""

from __future__ import annotations

import numpy as np
import pytest

from vlmscope.ratings.fits.sklearn_logistic import _loss_and_gradient, _row_loss_and_slope

loss_module = pytest.importorskip("sklearn._loss.loss")


def test_row_loss_and_slope_are_scikit_learns_bits() -> None:
    rng = np.random.default_rng(0)
    # every range where the formulas switch (-37, -2, 18), its edges, and the common middle
    edges = np.array([-37.0, -2.0, 18.0])
    raw = np.concatenate(
        [
            rng.uniform(-60.0, 60.0, 20_000),
            rng.normal(0.0, 3.0, 20_000),
            edges,
            np.nextafter(edges, -np.inf),
            np.nextafter(edges, np.inf),
        ]
    )
    labels = (rng.random(len(raw)) < 0.5).astype(float)
    want_loss, want_slope = loss_module.HalfBinomialLoss().loss_gradient(
        y_true=labels, raw_prediction=raw
    )
    loss, slope = _row_loss_and_slope(raw, labels)
    assert loss.view(np.int64).tolist() == want_loss.view(np.int64).tolist()
    assert slope.view(np.int64).tolist() == want_slope.view(np.int64).tolist()


def test_loss_and_gradient_are_scikit_learns_bits() -> None:
    """The sums in scikit-learn's order too: per-row slopes divided by the row count before
    ``design.T @``, the loss summed then divided, the penalty added last."""
    linear_loss = pytest.importorskip("sklearn.linear_model._linear_loss")
    rng = np.random.default_rng(1)
    design = rng.normal(size=(3000, 12))
    labels = (rng.random(3000) < 0.5).astype(float)
    coef = rng.normal(size=12)
    l2_strength = 1.0 / 3000
    reference = linear_loss.LinearModelLoss(
        base_loss=loss_module.HalfBinomialLoss(), fit_intercept=False
    )
    want_loss, want_gradient = reference.loss_gradient(
        coef, design, labels, sample_weight=None, l2_reg_strength=l2_strength
    )
    loss, gradient = _loss_and_gradient(coef, design, labels, l2_strength)
    assert loss == want_loss
    assert gradient.view(np.int64).tolist() == want_gradient.view(np.int64).tolist()
