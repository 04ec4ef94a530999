"""The whole curation on planted chats (`planted_chats`): the planted topics come back as
clusters, the sample covers each of them, every planted duplicate is found and nothing else
is dropped, the same seed writes the same bench byte for byte, and the bench reads as
vision-arena-bench-v0.1 in the builder and the bench track.

Measured with the stand-in embedder, 5 groups of 40 prompts, BERTopic's defaults: adjusted
Rand index 1.0 (every planted prompt in its group's cluster, no outliers); asserted >= 0.95.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from sklearn.metrics import adjusted_rand_score

from tests.visionarena.planted_chats import GROUPS, Planted, StandInEmbedder, write_planted
from vlmscope.config import TrackConfig
from vlmscope.datasets.visionarena import build
from vlmscope.datasets.visionarena_bench_files import SHARD, write_bench
from vlmscope.tracks.visionarena.bench_curation import Curated, CurationParams, curate
from vlmscope.tracks.visionarena.rows import read_bench_rows, read_chat_rows
from vlmscope.tracks.visionarena.track import VisionArenaBenchTrack

SIZE = 25
ARI_FLOOR = 0.95


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    return write_planted(tmp_path_factory.mktemp("planted"))


def run(planted: Planted, seed: int = 0) -> Curated:
    rows = read_chat_rows(planted.folder)
    return curate(rows, CurationParams(size=SIZE, seed=seed), StandInEmbedder())


@pytest.fixture(scope="module")
def curated(planted: Planted) -> Curated:
    return run(planted)


def test_the_planted_topics_come_back_as_clusters(planted: Planted, curated: Curated) -> None:
    truth, found = [], []
    for prompt, label in zip(curated.prompts, curated.clustering.labels, strict=True):
        group = planted.group_of.get(prompt.conversation_id)
        if group is None:  # a copy kept because it came before its original
            group = planted.group_of[planted.duplicate_of[prompt.conversation_id][1]]
        truth.append(group)
        found.append(int(label))
    score = adjusted_rand_score(truth, found)
    assert score >= ARI_FLOOR, f"adjusted Rand index {score:.3f}"
    assert len({c for c in found if c >= 0}) == len(GROUPS)
    assert curated.clustering.settings["umap"]["n_components"] == 5
    assert curated.clustering.settings["hdbscan"]["min_cluster_size"] == 10


def test_the_sample_takes_an_equal_share_of_every_cluster(curated: Curated) -> None:
    labels = [int(curated.clustering.labels[k]) for k in curated.sampled]
    assert len(labels) == SIZE
    assert Counter(labels) == dict.fromkeys(range(len(GROUPS)), SIZE // len(GROUPS))
    assert [r.sampled for r in curated.table if r.cluster >= 0] == [SIZE // len(GROUPS)] * 5


def test_every_planted_duplicate_is_found_and_nothing_else_dropped(
    planted: Planted, curated: Curated
) -> None:
    decisions = {d.screened.conversation_id: d for d in curated.decisions}
    order = list(decisions)
    for copy, (kind, original) in planted.duplicate_of.items():
        first, later = sorted((copy, original), key=order.index)
        assert decisions[later].decision == kind, later
        assert decisions[later].duplicate_of == first
        assert decisions[first].decision == "kept"
    for cid, decision in planted.dropped.items():
        assert decisions[cid].decision == decision
    dropped = {cid for cid, d in decisions.items() if d.decision != "kept"}
    assert len(dropped) == len(planted.duplicate_of) + len(planted.dropped)
    assert len(curated.prompts) == len(planted.group_of)


def test_the_same_seed_writes_the_same_bench_byte_for_byte(
    planted: Planted, curated: Curated, tmp_path: Path
) -> None:
    write_bench(tmp_path / "one", curated, source="planted")
    write_bench(tmp_path / "two", run(planted), source="planted")
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*"))
    assert {str(f) for f in files} >= {SHARD, "README.md", "curation/clusters.jsonl"}
    for name in files:
        one, two = tmp_path / "one" / name, tmp_path / "two" / name
        assert one.is_dir() or one.read_bytes() == two.read_bytes(), name
    other = run(planted, seed=1)
    assert {p.conversation_id for p in other.bench} != {p.conversation_id for p in curated.bench}


def test_the_bench_reads_in_the_builder_and_the_track(curated: Curated, tmp_path: Path) -> None:
    out = write_bench(tmp_path / "bench", curated, source="planted chats")
    rows = read_bench_rows(out)
    assert [r.question_id for r in rows] == [p.conversation_id for p in curated.bench]
    assert all(r.images and r.question for r in rows)
    built = build("bench", out, cache_dir=str(tmp_path / "cache"))
    assert built.num_rows == SIZE
    track = VisionArenaBenchTrack(
        TrackConfig(
            name="visionarena_bench",
            data_dir=str(out),
            judge={"backend": "coin"},
            options={"baseline": "anchor"},
        ),
        limit=None,
    )
    assert [s.id for s in track.samples()] == [r.question_id for r in rows]
    clusters = pq.read_table(out / SHARD).column("cluster").to_pylist()
    assert clusters == [int(curated.clustering.labels[k]) for k in curated.sampled]


def test_the_card_and_files_keep_the_source_dates_and_every_parameter(
    curated: Curated, tmp_path: Path
) -> None:
    out = write_bench(tmp_path / "bench", curated, source="planted chats")
    settings = json.loads((out / "curation" / "settings.json").read_text())
    assert settings["source"] == "planted chats"
    assert settings["source_dates"]["from"].startswith("2024-07-03")
    assert settings["parameters"]["duplicates"]["text_jaccard"] == 0.8
    assert settings["parameters"]["clusters"]["n_neighbors"] == 15
    assert settings["embedding"]["model"].startswith("stand-in")
    card = (out / "README.md").read_text()
    assert "**planted chats**" in card and "config_name: default" in card
    table = [json.loads(line) for line in (out / "curation" / "clusters.jsonl").open()]
    assert sum(row["size"] for row in table) == len(curated.prompts)
    decisions = (out / "curation" / "decisions.jsonl").read_text().splitlines()
    assert len(decisions) == len(curated.decisions)
    with pytest.raises(FileExistsError, match="--overwrite"):
        write_bench(out, curated, source="again")
    write_bench(out, curated, source="again", overwrite=True)
    assert "**again**" in (out / "README.md").read_text()
