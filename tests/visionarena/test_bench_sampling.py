"""Uniform sampling across clusters: equal shares, capped by size, seeded, outliers left out."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from vlmscope.tracks.visionarena.bench_sampling import quotas, sample_uniform


def test_every_cluster_gives_an_equal_share_when_it_can() -> None:
    rng = np.random.default_rng(0)
    assert quotas({0: 50, 1: 40, 2: 30}, 30, rng) == {0: 10, 1: 10, 2: 10}


def test_a_small_cluster_gives_all_it_has_and_the_others_make_up_the_rest() -> None:
    rng = np.random.default_rng(0)
    assert quotas({0: 50, 1: 2, 2: 30}, 30, rng) == {0: 14, 1: 2, 2: 14}


def test_the_remainder_goes_one_each_to_clusters_drawn_at_random() -> None:
    shares = [quotas({0: 9, 1: 9, 2: 9}, 4, np.random.default_rng(seed)) for seed in range(20)]
    assert all(sorted(s.values()) == [1, 1, 2] for s in shares)
    assert len({tuple(s.values()) for s in shares}) > 1  # which one gets 2 depends on the seed


def test_asking_for_more_than_there_is_takes_everything() -> None:
    labels = [0, 0, 1, -1, 1, 2]
    assert sample_uniform(labels, 100, seed=3) == [0, 1, 2, 4, 5]


def test_outliers_are_never_sampled_and_order_is_by_cluster_then_index() -> None:
    labels = [2, -1, 0, 1, 0, 2, 1, -1, 0]
    picked = sample_uniform(labels, 3, seed=1)
    assert sorted(Counter(labels[k] for k in picked).values()) == [1, 1, 1]
    assert [labels[k] for k in picked] == [0, 1, 2]


def test_the_same_seed_draws_the_same_sample_and_another_seed_another() -> None:
    labels = [k % 7 for k in range(700)]
    first = sample_uniform(labels, 70, seed=11)
    assert first == sample_uniform(labels, 70, seed=11)
    assert first != sample_uniform(labels, 70, seed=12)
    assert Counter(labels[k] for k in first) == dict.fromkeys(range(7), 10)


def test_a_negative_size_is_refused() -> None:
    with pytest.raises(ValueError, match="size must be >= 0"):
        sample_uniform([0, 1], -1, seed=0)
