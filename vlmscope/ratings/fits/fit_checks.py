"""A fit that cannot be trusted raises :class:`FitError`; it is never shown as a board.

Rows are checked where they come in (:mod:`vlmscope.ratings.inputs.row_checks`), so what reaches a fit
is finite. These checks are the last guard, for inputs built in code and for degenerate data:

* fit inputs (outcomes, weights, style features) must be finite: a NaN would make every loss
  NaN, the optimiser would stop where it started and every model would show 1000;
* a style feature that is the same for every battle cannot be standardised (0 / 0);
* an optimiser that stopped where it started although the start was not optimal (its gradient
  there is not ~0), or that ended on non-finite values, did not fit;
* where a reference fits with scikit-learn's ``LogisticRegression`` (arena-hard v0.1, ProBench),
  labels of one class (every row won by the same side) stop the reference with an error, so a
  reproduction of it stops too (:func:`require_two_classes`) rather than print numbers the
  reference never had.

A board is not written with a warning instead: a fit that did not happen has no ratings to
show. Board producers that fit many boards (category boards) list the failed one under
``skipped_categories`` with the message and keep the others.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

#: A start counts as optimal when its largest gradient entry is below this share of the total
#: weight (rounding leaves ~1e-13 of it; a real slope at a non-optimal start is far larger).
START_GRADIENT_TOL = 1e-6


class FitError(ValueError):
    """A fit that did not happen: non-finite inputs, a constant feature, a stalled optimiser."""


def require_finite(values: ArrayLike, what: str) -> None:
    """Raise :class:`FitError` naming the first row (and column) of ``values`` that is NaN or
    infinite; rows are battle rows in fit order."""
    array = np.asarray(values, dtype=np.float64)
    bad = ~np.isfinite(array)
    if not bad.any():
        return
    where = np.argwhere(bad)[0]
    position = f"row {where[0]}" + (f", column {where[1]}" if len(where) > 1 else "")
    raise FitError(f"fit input: {what} at {position} is {float(array[tuple(where)])!r}")


def require_varying(std: ArrayLike, names: Sequence[str] | None = None) -> None:
    """Raise :class:`FitError` when a style feature's standard deviation is 0 or not finite:
    standardising it would divide by zero."""
    spread = np.asarray(std, dtype=np.float64)
    bad = np.flatnonzero(~(np.isfinite(spread) & (spread > 0)))
    if not len(bad):
        return
    column = int(bad[0])
    name = names[column] if names is not None and column < len(names) else f"column {column}"
    raise FitError(
        f"style control: feature {name!r} is the same for every battle (or there is only one), "
        "so it cannot be standardised; rate without style control or with more battles"
    )


def require_two_classes(labels: ArrayLike, what: str) -> None:
    """Raise :class:`FitError` when the 0/1 ``labels`` of a logistic fit are all the same, as
    scikit-learn's ``LogisticRegression.fit`` refuses them ("needs samples of at least 2
    classes"); ``what`` names the fit (the point fit, a bootstrap round)."""
    values = np.asarray(labels, dtype=np.float64)
    if values.size and not (values == values[0]).all():
        return
    side = "no rows" if not values.size else f"every row labelled {float(values[0]):g}"
    raise FitError(
        f"{what}: {side}, one class only; the reference's LogisticRegression cannot fit that "
        "and stops (rate with more battles, or on a board that keeps finite numbers)"
    )


def check_moved(
    start: ArrayLike, result: ArrayLike, start_gradient: ArrayLike, threshold: ArrayLike
) -> None:
    """Raise :class:`FitError` when a fit (one per row of ``result``) ended on non-finite values
    or stayed exactly at ``start`` although the largest gradient entry there
    (``start_gradient``, per fit) was above ``threshold``: the optimiser should have moved."""
    theta = np.atleast_2d(np.asarray(result, dtype=np.float64))
    if not np.isfinite(theta).all():
        raise FitError("the fit ended on NaN or infinite ratings")
    origin = np.broadcast_to(np.asarray(start, dtype=np.float64), theta.shape)
    slope = np.atleast_1d(np.asarray(start_gradient, dtype=np.float64))
    limit = np.asarray(threshold, dtype=np.float64)
    stuck = np.all(theta == origin, axis=1) & ~(slope <= limit)
    if stuck.any():
        raise FitError(
            f"the fit did not move from its start although the start is not optimal "
            f"(largest gradient entry {float(slope[stuck][0]):.3g}); "
            f"{int(stuck.sum())} of {len(stuck)} fits stalled"
        )
