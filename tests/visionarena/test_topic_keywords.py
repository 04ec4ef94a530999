"""c-TF-IDF keywords match BERTopic's own transformer, score for score (`cases/`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vlmscope.tracks.visionarena.topic_keywords import (
    KeywordParams,
    cluster_documents,
    cluster_keywords,
)

CASE = json.loads(
    (Path(__file__).parent / "cases" / "ctfidf_bertopic_case.json").read_text(encoding="utf-8")
)


def test_keywords_and_scores_equal_bertopic_class_tfidf() -> None:
    found = cluster_keywords(CASE["texts"], CASE["labels"], KeywordParams(top_n=CASE["top_n"]))
    assert sorted(found) == sorted(int(c) for c in CASE["expected"])
    for cluster, expected in CASE["expected"].items():
        got = found[int(cluster)]
        assert [w for w, _ in got] == [w for w, _ in expected], cluster
        assert [s for _, s in got] == pytest.approx([s for _, s in expected], abs=1e-12)


def test_cluster_documents_are_prepared_as_bertopic_prepares_them() -> None:
    ids, docs = cluster_documents(["a\tb!", "c\nd", "??"], [1, 1, 0], english=True)
    assert ids == [0, 1]
    assert docs == ["emptydoc", "a b c d"]
    _, kept = cluster_documents(["数学 题"], [0], english=False)
    assert kept == ["数学 题"]


def test_only_stop_words_give_no_keywords_rather_than_an_error() -> None:
    assert cluster_keywords(["the and of", "is it"], [0, 1], KeywordParams()) == {0: [], 1: []}
