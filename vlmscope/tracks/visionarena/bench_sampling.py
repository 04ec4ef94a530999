"""Uniform sampling across topic clusters: "we then uniformly sample from each topic cluster to
generate the 500 prompts" (paper Sec. 6).

Every cluster is asked for the same number of prompts; a cluster smaller than its share gives
all it has and the rest is shared among the others again, until the size is reached or every
cluster is used up. When the size does not divide evenly, the clusters that give one prompt
more are drawn at random. Within a cluster the prompts are drawn at random without
replacement. One `numpy.random.Generator` seeded with `seed` makes every draw, clusters taken
in id order, so the same labels and seed give the same sample. HDBSCAN's outliers (-1) belong
to no topic and are not sampled.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from vlmscope.tracks.visionarena.bench_clusters import OUTLIER


def quotas(sizes: Mapping[int, int], total: int, rng: np.random.Generator) -> dict[int, int]:
    """How many prompts each cluster gives: equal shares, capped by each cluster's size."""
    quota = dict.fromkeys(sorted(sizes), 0)
    left = total
    while left > 0:
        open_ = [c for c in quota if quota[c] < sizes[c]]
        if not open_:
            break
        share, extra = divmod(left, len(open_))
        lucky = set(rng.choice(open_, size=extra, replace=False).tolist()) if extra else set()
        for c in open_:
            take = min(share + (c in lucky), sizes[c] - quota[c])
            quota[c] += take
            left -= take
    return quota


def sample_uniform(labels: Sequence[int], size: int, seed: int) -> list[int]:
    """Indices of the sampled prompts, ordered by cluster and then by index."""
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    rng = np.random.default_rng(seed)
    members: dict[int, list[int]] = {}
    for index, label in enumerate(labels):
        if label != OUTLIER:
            members.setdefault(int(label), []).append(index)
    quota = quotas({c: len(m) for c, m in members.items()}, size, rng)
    picked: list[int] = []
    for c in sorted(members):
        chosen = rng.choice(len(members[c]), size=quota[c], replace=False)
        picked.extend(sorted(members[c][k] for k in chosen.tolist()))
    return picked
