"""Ratings on one scale need models that met: a battle graph in pieces is not one board.

Bradley-Terry compares two models only through a chain of battles between them. When the models
fall into groups that never met (no battle links one group to another), the fit still returns
numbers for everyone, but the offset between groups is set by the regularisation, the anchor or
where the optimiser started, not by any vote: a board in one table would rank across groups on
nothing. So a fit of such battles raises :class:`DisconnectedBattles` (a
:class:`~vlmscope.ratings.fits.fit_checks.FitError`) naming the groups; a category board of them
is then listed under ``skipped_categories`` with that reason, and the rating commands either stop
or, asked to, fit each group on its own board (`split_by_component`).
"""

from __future__ import annotations

import numpy as np

from vlmscope.ratings.fits.fit_checks import FitError
from vlmscope.ratings.inputs.battles import Battles

_SHOWN_MODELS = 6


class DisconnectedBattles(FitError):
    """The battles form more than one group of models that never met; `groups` lists each
    group's models (the group with the most battles first)."""

    def __init__(self, groups: list[tuple[str, ...]]) -> None:
        self.groups = groups
        shown = "; ".join(f"{k + 1}: {_names(g)}" for k, g in enumerate(groups))
        super().__init__(
            f"the battles form {len(groups)} groups of models that never met ({shown}); "
            "ratings of different groups are not on one scale"
        )


def _names(group: tuple[str, ...]) -> str:
    more = len(group) - _SHOWN_MODELS
    listed = ", ".join(group[:_SHOWN_MODELS])
    return listed + (f" and {more} more" if more > 0 else "")


def component_labels(battles: Battles) -> tuple[int, np.ndarray]:
    """(number of groups, each model's group id) of the graph whose edges are the battles."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = battles.n_models
    edges = coo_matrix((np.ones(len(battles)), (battles.model_a, battles.model_b)), shape=(n, n))
    count, labels = connected_components(edges, directed=False)
    return int(count), np.asarray(labels)


def model_groups(battles: Battles) -> list[tuple[str, ...]]:
    """The groups of models linked by battles, most battles first (ties: first appearance);
    within a group, models in their order on the battles (first appearance)."""
    count, labels = component_labels(battles)
    weight = np.bincount(labels[battles.model_a], battles.weights, minlength=count)
    order = sorted(range(count), key=lambda g: (-weight[g], int(np.flatnonzero(labels == g)[0])))
    return [tuple(battles.models[i] for i in np.flatnonzero(labels == g)) for g in order]


def require_connected(battles: Battles) -> None:
    """Raise :class:`DisconnectedBattles` when the battles do not link every model to every
    other; nothing for one group (or no battles, which the fit refuses itself)."""
    if battles.n_models < 2:
        return
    count, _ = component_labels(battles)
    if count > 1:
        raise DisconnectedBattles(model_groups(battles))
