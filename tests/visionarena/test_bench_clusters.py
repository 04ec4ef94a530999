"""UMAP + HDBSCAN on points that have no clusters, and on too few points: one cluster, said so."""

from __future__ import annotations

import numpy as np

from vlmscope.tracks.visionarena.bench_clusters import ClusterParams, by_size, cluster


def test_too_few_points_are_one_cluster_and_the_settings_say_why() -> None:
    found = cluster(np.ones((7, 4), dtype=np.float32), ClusterParams())
    assert found.labels.tolist() == [0] * 7
    assert found.settings["skipped"].startswith("7 prompts, fewer than 20")
    assert found.settings["umap"] is None and found.reduced.shape == (7, 0)


def test_no_cluster_found_is_one_cluster_and_the_settings_say_why() -> None:
    points = np.random.default_rng(0).normal(size=(40, 8)).astype(np.float32)
    found = cluster(points, ClusterParams(min_cluster_size=20))
    assert found.labels.tolist() == [0] * 40
    assert "HDBSCAN found no cluster of at least 20 among 40" in found.settings["skipped"]
    assert found.settings["umap"]["n_neighbors"] == 15 and found.reduced.shape == (40, 5)


def test_clusters_are_numbered_by_size_outliers_kept() -> None:
    assert by_size(np.array([5, 5, -1, 2, 2, 2, 7])).tolist() == [1, 1, -1, 0, 0, 0, 2]
