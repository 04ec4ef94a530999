"""Macro averages of many models, resampled the way the benchmark aggregates.

A benchmark like MEGA-Bench scores each query, averages the queries of a task into the task's
score, and averages tasks into each headline (Core, Open, overall, one per keyword). Its
uncertainty has two sources: which tasks the benchmark happens to hold, and which queries each
task happens to hold. One bootstrap round follows that structure:

1. tasks are drawn with replacement within their stratum (MEGA-Bench: Core tasks among Core
   tasks, Open among Open, so every round keeps the benchmark's number of each);
2. for every drawn copy of a task, its queries are drawn with replacement (a task drawn twice
   gets two independent draws);
3. each macro average is the mean over the copies of its member tasks.

Done naively, the two stages count query noise twice: an observed task mean already carries
its queries' noise, and the second stage adds it again, so intervals come out too wide and
p-values too large under the null. As Davison & Hinkley (1997, Sec. 3.8) prescribe, a drawn
task's mean is shrunk toward the mean of the group's tasks in its stratum by `c = sqrt(1 - W /
B)` (B: the spread of those task means, W: their mean squared standard error from their
queries; c = 0 when W >= B), so that the two stages together spread as much as the task means
do. Shrinkage is linear, so it is applied per statistic afterwards (`MacroDraws.combine`): a
model's score, or the difference of two models, each with its own factors, all from the same
draws.

Every model is scored on the same draws, so a difference between two models is a paired
difference and every pair of a model set comes from one set of rounds. `resample_tasks=False`
keeps every task once (only queries are drawn): the "naive" interval that treats the tasks as
fixed, narrower whenever tasks differ in how much they favour one model.

Queries come as one array of scores (queries x models) with each task's queries next to each
other (`task_sizes` says how many, in order). Rounds are drawn in chunks of `COPIES_PER_CHUNK`
task copies, so memory stays flat whatever the number of rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
COPIES_PER_CHUNK = 250_000
"""Drawn task copies held at once (each with every model's mean); a chunk holds at least one
round. It does not depend on the number of models, so the draws, and a pair's numbers, are
the same whichever other models are compared beside them."""


@dataclass(frozen=True)
class MacroDraws:
    """Everything a statistic's rounds are made from (module doc). Shapes: R rounds, G groups,
    S strata, M models, T tasks."""

    point: FloatArray
    """G x M: each group's macro average of the observed task means (NaN for an empty group)."""
    task_means: FloatArray
    """T x M."""
    stratum_of_task: IntArray
    """T: the stratum index of each task."""
    stratum_sums: FloatArray
    """R x G x S x M: per round, the sum of the drawn copies' observed task means, by stratum."""
    copy_counts: FloatArray
    """R x G x S: per round, how many drawn copies count in the group, by stratum."""
    query_noise: FloatArray
    """R x G x M: per round, the group's mean over its copies of (copy's query-draw mean - the
    task's observed mean); zero when queries are not drawn."""
    noise_cov: FloatArray
    """T x M x M: each task's covariance of query scores over its query count (the squared
    standard error of its mean, for any weighting of the models); zero when not drawn."""

    groups: BoolArray
    """G x T: which tasks count in each group."""

    @property
    def rounds(self) -> int:
        return int(self.copy_counts.shape[0])

    def combine(self, weights: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Point (G x K) and rounds (R x G x K) of K weighted sums of the models (K x M): one
        row of the identity is a model's score, `e_b - e_a` the difference B - A."""
        w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
        centre, shrink = self._centres_and_shrinkage(w)  # G x S x K each
        sums = self.stratum_sums @ w.T  # R x G x S x K
        counts = self.copy_counts[..., None]  # R x G x S x 1
        kept = counts * (1.0 - shrink) * centre + shrink * sums
        with np.errstate(invalid="ignore", divide="ignore"):
            between = kept.sum(axis=2) / counts.sum(axis=2)
        return self.point @ w.T, between + self.query_noise @ w.T

    def _centres_and_shrinkage(self, w: FloatArray) -> tuple[FloatArray, FloatArray]:
        """G x S x K each: the mean of a group's member tasks in a stratum, which its draws are
        shrunk toward, and the factor c = sqrt(1 - W / B) (clipped to [0, 1]; 0 where the group
        has at most one task there)."""
        n_strata = self.stratum_sums.shape[2]
        values = self.task_means @ w.T  # T x K
        noise = np.einsum("km,tmn,kn->tk", w, self.noise_cov, w)  # T x K
        in_stratum = self.stratum_of_task[None, :] == np.arange(n_strata)[:, None]  # S x T
        member = (self.groups[:, None, :] & in_stratum[None]).astype(np.float64)  # G x S x T
        n = member.sum(axis=2)[..., None]
        with np.errstate(invalid="ignore", divide="ignore"):
            centre = np.where(n > 0, (member @ values) / n, 0.0)
            spread = np.where(n > 0, (member @ values**2) / n - centre**2, 0.0)
            share = np.where(spread > 1e-15, 1.0 - ((member @ noise) / n) / spread, 0.0)
        return centre, np.sqrt(np.clip(share, 0.0, 1.0))


def task_means(scores: FloatArray, task_sizes: IntArray) -> FloatArray:
    """Each task's mean query score per model (tasks x models)."""
    return np.add.reduceat(scores, _starts(task_sizes), axis=0) / task_sizes[:, None]


def macro_means(means: FloatArray, groups: BoolArray) -> FloatArray:
    """Each group's mean over its member tasks (groups x models); NaN for an empty group."""
    member = groups.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        result: FloatArray = (member @ means) / member.sum(axis=1)[:, None]
    return result


def macro_bootstrap(
    scores: npt.ArrayLike,
    task_sizes: npt.ArrayLike,
    groups: npt.ArrayLike,
    *,
    rounds: int,
    rng: np.random.Generator,
    strata: npt.ArrayLike | None = None,
    resample_tasks: bool = True,
    resample_queries: bool = True,
) -> MacroDraws:
    """The draws of `rounds` two-stage bootstrap rounds (module doc); `combine` turns them into
    any statistic's rounds.

    `scores`: queries x models (a 1-D array is one model); `task_sizes`: queries per task, in
    the order of `scores`, each at least 1; `groups`: groups x tasks, True where a task counts
    in a group's average; `strata`: one label per task, tasks drawn within their label (default:
    one stratum).
    """
    values = np.asarray(scores, dtype=np.float64)
    values = values[:, None] if values.ndim == 1 else values
    sizes = np.asarray(task_sizes, dtype=np.int64)
    member = np.asarray(groups, dtype=bool)
    _check(values, sizes, member, rounds)
    stratum = _stratum_index(strata, len(sizes))
    means = task_means(values, sizes)
    order = np.argsort(stratum, kind="stable")  # copies are laid out stratum by stratum
    bounds = np.searchsorted(stratum[order], np.arange(stratum.max() + 2))
    chunk = max(1, COPIES_PER_CHUNK // len(sizes))
    parts: list[tuple[FloatArray, FloatArray, FloatArray]] = []
    for first in range(0, rounds, chunk):
        n = min(chunk, rounds - first)
        copies = _draw(order, bounds, n, rng) if resample_tasks else np.tile(order, (n, 1))
        noise = (
            _copy_means(values, sizes, copies, rng) - means[copies]
            if resample_queries
            else np.zeros((*copies.shape, values.shape[1]))
        )
        parts.append(_grouped(means, member, copies, noise, stratum))
    return MacroDraws(
        point=macro_means(means, member),
        task_means=means,
        stratum_of_task=stratum,
        stratum_sums=np.concatenate([p[0] for p in parts]),
        copy_counts=np.concatenate([p[1] for p in parts]),
        query_noise=np.concatenate([p[2] for p in parts]),
        noise_cov=_noise_cov(values, sizes, means)
        if resample_queries
        else np.zeros((len(sizes), values.shape[1], values.shape[1])),
        groups=member,
    )


def _check(values: FloatArray, sizes: IntArray, member: BoolArray, rounds: int) -> None:
    if rounds < 1:
        raise ValueError(f"rounds: must be at least 1, got {rounds}")
    if len(sizes) == 0:
        raise ValueError("no tasks to resample")
    if (sizes < 1).any():
        raise ValueError(f"every task needs a query; task {int(np.argmin(sizes))} has none")
    if int(sizes.sum()) != values.shape[0]:
        raise ValueError(f"task sizes add up to {int(sizes.sum())}, not {values.shape[0]} queries")
    if member.ndim != 2 or member.shape[1] != len(sizes):
        raise ValueError(f"groups must be groups x {len(sizes)} tasks, got {member.shape}")


def _stratum_index(strata: npt.ArrayLike | None, n_tasks: int) -> IntArray:
    """Each task's stratum as 0, 1, ... in order of first appearance."""
    if strata is None:
        return np.zeros(n_tasks, dtype=np.int64)
    labels = np.asarray(strata).tolist()
    if len(labels) != n_tasks:
        raise ValueError(f"{len(labels)} strata labels for {n_tasks} tasks")
    index = {label: i for i, label in enumerate(dict.fromkeys(labels))}
    return np.array([index[label] for label in labels], dtype=np.int64)


def _starts(sizes: IntArray) -> IntArray:
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


def _draw(order: IntArray, bounds: IntArray, n: int, rng: np.random.Generator) -> IntArray:
    """n rounds x tasks: each stratum's tasks (a block of `order`) drawn among themselves."""
    blocks = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        members = order[lo:hi]
        blocks.append(members[rng.integers(0, len(members), size=(n, len(members)))])
    return np.concatenate(blocks, axis=1)


def _copy_means(
    values: FloatArray, sizes: IntArray, copies: IntArray, rng: np.random.Generator
) -> FloatArray:
    """rounds x copies x models: each copy's mean over its own draw of its task's queries.

    A copy's draw of its task's n queries is counted per query, so all copies of one task are
    a counts matrix times the task's scores: one small product per task, instead of gathering
    every drawn score of every model."""
    flat = copies.ravel()
    means = np.empty((flat.size, values.shape[1]))
    order = np.argsort(flat, kind="stable")
    bounds = np.searchsorted(flat[order], np.arange(len(sizes) + 1))
    for task, (lo, hi, start) in enumerate(
        zip(bounds[:-1], bounds[1:], _starts(sizes), strict=False)
    ):
        if hi == lo:
            continue
        n, k = int(sizes[task]), int(hi - lo)
        picks = rng.integers(0, n, size=(k, n)) + (np.arange(k) * n)[:, None]
        counts = np.bincount(picks.ravel(), minlength=k * n).reshape(k, n).astype(np.float64)
        means[order[lo:hi]] = (counts @ values[start : start + n]) / n
    return means.reshape(*copies.shape, values.shape[1])


def _grouped(
    means: FloatArray, member: BoolArray, copies: IntArray, noise: FloatArray, stratum: IntArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per round and group: the copies' task means summed by stratum, the copies counted by
    stratum, and the mean query noise over all the group's copies.

    Everything is linear in how often each task was drawn in a round (and the query noise its
    copies drew), so those per-task totals are taken first and the groups are matrix products
    of them: the work grows with rounds x tasks, not with rounds x tasks x groups."""
    n_rounds, n_tasks = copies.shape[0], len(means)
    index = (copies + (np.arange(n_rounds) * n_tasks)[:, None]).ravel()
    drawn = np.bincount(index, minlength=n_rounds * n_tasks).reshape(n_rounds, n_tasks)
    noise_sums = np.stack(
        [
            np.bincount(index, weights=noise[..., m].ravel(), minlength=n_rounds * n_tasks)
            for m in range(means.shape[1])
        ],
        axis=-1,
    ).reshape(n_rounds, n_tasks, means.shape[1])
    weights = member.astype(np.float64)  # G x T
    sums, counts = [], []
    for s in range(int(stratum.max()) + 1):
        tasks = stratum == s
        count = drawn[:, tasks].astype(np.float64)  # rounds x tasks of the stratum
        weighted = weights[:, tasks, None] * means[None, tasks]  # G x tasks x M
        flat = weighted.transpose(1, 0, 2).reshape(int(tasks.sum()), -1)
        sums.append((count @ flat).reshape(n_rounds, *weighted.shape[::2]))
        counts.append(count @ weights[:, tasks].T)
    total = np.sum(counts, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_noise = np.matmul(noise_sums.transpose(0, 2, 1), weights.T).transpose(0, 2, 1)
        mean_noise = mean_noise / total[..., None]
    return np.stack(sums, axis=2), np.stack(counts, axis=2), mean_noise


def _noise_cov(values: FloatArray, sizes: IntArray, means: FloatArray) -> FloatArray:
    """T x M x M: each task's plug-in covariance of query scores divided by its query count."""
    centred = values - np.repeat(means, sizes, axis=0)
    products = np.einsum("qi,qj->qij", centred, centred)
    cov = np.add.reduceat(products, _starts(sizes), axis=0) / sizes[:, None, None]
    result: FloatArray = cov / sizes[:, None, None]
    return result
