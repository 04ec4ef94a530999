"""Topic clusters of prompt embeddings: UMAP, then HDBSCAN, as BERTopic runs them (paper Sec. 6).

The defaults are BERTopic's: UMAP to 5 dimensions with 15 neighbours, `min_dist` 0 and the
cosine metric; HDBSCAN on the reduced points, euclidean, excess-of-mass selection, a minimum
cluster size of 10 (BERTopic's `min_topic_size`). UMAP is seeded (`random_state`, which also
makes it single-threaded), so the same embeddings give the same clusters. Clusters are numbered
by size, largest first, as BERTopic numbers topics; -1 is HDBSCAN's outliers.

Too few points to cluster (fewer than two minimum-size clusters, or than UMAP's dimensions
allow), or no cluster found (HDBSCAN calls every point an outlier), is not an error: every
point is cluster 0 and `settings["skipped"]` says why (the commands print it). What ran,
with the values actually used (UMAP's neighbours are capped at the points minus one) and the
library versions, is in `settings`: it goes into the bench's card.

`umap` and `hdbscan` (the `bench` extra) are imported inside the functions that use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

import numpy as np
from numpy.typing import NDArray

OUTLIER = -1


@dataclass(frozen=True)
class ClusterParams:
    n_neighbors: int = 15
    n_components: int = 5
    min_dist: float = 0.0
    metric: str = "cosine"
    min_cluster_size: int = 10
    min_samples: int | None = None
    """None: HDBSCAN's default, `min_cluster_size`."""
    cluster_selection_method: str = "eom"
    seed: int = 0


@dataclass(frozen=True)
class Clustering:
    labels: NDArray[np.int64]
    """One cluster id per point, 0 the largest cluster, -1 an outlier."""
    reduced: NDArray[np.float32]
    """The UMAP coordinates HDBSCAN clustered (points x n_components; none when skipped)."""
    settings: dict[str, Any]


def cluster(embeddings: NDArray[np.float32], params: ClusterParams) -> Clustering:
    """Reduce `embeddings` (points x dimensions) with UMAP and cluster them with HDBSCAN."""
    n = len(embeddings)
    settings: dict[str, Any] = {"umap": None, "hdbscan": None, "skipped": None}
    least = max(2 * params.min_cluster_size, params.n_components + 2)
    if n < least:
        settings["skipped"] = (
            f"{n} prompts, fewer than {least} (two clusters of min_cluster_size "
            f"{params.min_cluster_size}, and UMAP's {params.n_components} dimensions + 2): "
            "every prompt is cluster 0"
        )
        empty = np.zeros((n, 0), dtype=np.float32)
        return Clustering(np.zeros(n, dtype=np.int64), empty, settings)
    reduced, settings["umap"] = reduce(embeddings, params, params.n_components)
    labels, settings["hdbscan"], settings["skipped"] = cluster_reduced(reduced, params)
    return Clustering(labels, reduced, settings)


def cluster_reduced(
    reduced: NDArray[np.float32], params: ClusterParams
) -> tuple[NDArray[np.int64], dict[str, Any], str | None]:
    """HDBSCAN's clusters of UMAP's points, numbered by size; its settings; why every point
    is cluster 0 when HDBSCAN found none (else None)."""
    import hdbscan

    model = hdbscan.HDBSCAN(
        min_cluster_size=params.min_cluster_size,
        min_samples=params.min_samples,
        metric="euclidean",
        cluster_selection_method=params.cluster_selection_method,
        core_dist_n_jobs=1,
    )
    raw = np.asarray(model.fit_predict(reduced.astype(np.float64)), dtype=np.int64)
    skipped = None
    if (raw == OUTLIER).all():
        skipped = (
            f"HDBSCAN found no cluster of at least {params.min_cluster_size} among "
            f"{len(raw)} prompts (every one an outlier): every prompt is cluster 0"
        )
        raw = np.zeros(len(raw), dtype=np.int64)
    settings = {
        "library": f"hdbscan {version('hdbscan')}",
        "min_cluster_size": params.min_cluster_size,
        "min_samples": params.min_samples,
        "metric": "euclidean",
        "cluster_selection_method": params.cluster_selection_method,
    }
    return by_size(raw), settings, skipped


def reduce(
    embeddings: NDArray[np.float32], params: ClusterParams, dimensions: int
) -> tuple[NDArray[np.float32], dict[str, Any]]:
    """UMAP of `embeddings` to `dimensions`, seeded; and the settings it ran with."""
    import umap

    neighbours = min(params.n_neighbors, len(embeddings) - 1)
    model = umap.UMAP(
        n_neighbors=neighbours,
        n_components=dimensions,
        min_dist=params.min_dist,
        metric=params.metric,
        random_state=params.seed,
        n_jobs=1,
        low_memory=False,
    )
    reduced = np.asarray(model.fit_transform(embeddings), dtype=np.float32)
    used = {
        "library": f"umap-learn {version('umap-learn')}",
        "n_neighbors": neighbours,
        "n_components": dimensions,
        "min_dist": params.min_dist,
        "metric": params.metric,
        "random_state": params.seed,
    }
    return reduced, used


def map_2d(
    embeddings: NDArray[np.float32], params: ClusterParams
) -> tuple[NDArray[np.float32], dict[str, Any]]:
    """2-D coordinates for the topic map: UMAP of the embeddings to 2 dimensions (as BERTopic's
    document map does); too few points lie on a line, in order."""
    if len(embeddings) < params.n_components + 2:
        line = np.stack([np.arange(len(embeddings)), np.zeros(len(embeddings))], axis=1)
        return line.astype(np.float32), {"skipped": f"{len(embeddings)} prompts: no map"}
    return reduce(embeddings, params, 2)


def by_size(labels: NDArray[np.int64]) -> NDArray[np.int64]:
    """Cluster ids renumbered by size, largest first (ties: the smaller old id first);
    outliers stay -1."""
    found, counts = np.unique(labels[labels != OUTLIER], return_counts=True)
    order = sorted(range(len(found)), key=lambda k: (-counts[k], found[k]))
    mapping = {int(found[k]): new for new, k in enumerate(order)}
    return np.array([mapping.get(int(x), OUTLIER) for x in labels], dtype=np.int64)
