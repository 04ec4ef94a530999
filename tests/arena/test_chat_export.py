"""The store's conversations export as VisionArena-Chat (two rows a vote, one per side) in both
layouts, and a bench curated from that export keeps one of each pair, with the arena as its
source and the votes' dates in its card."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.arena.chat_votes import arena_config, fill_store
from tests.visionarena.planted_chats import StandInEmbedder
from vlmscope.arena.chat_export import export_chat_jsonl, export_chat_parquet
from vlmscope.arena.vote_store import VoteStore
from vlmscope.cli import main as vlmscope_main
from vlmscope.datasets.visionarena_bench_files import write_bench
from vlmscope.tracks.visionarena.bench_clusters import ClusterParams
from vlmscope.tracks.visionarena.bench_curation import CurationParams, curate
from vlmscope.tracks.visionarena.rows import read_bench_rows, read_chat_rows

VOTES = 24


@pytest.fixture
def store(tmp_path: Path) -> VoteStore:
    return fill_store(tmp_path / "votes.sqlite", VOTES)


@pytest.mark.parametrize("layout", ["jsonl", "parquet"])
def test_each_vote_is_two_chat_rows_one_per_side(
    store: VoteStore, tmp_path: Path, layout: str
) -> None:
    folder = tmp_path / layout
    (export_chat_jsonl if layout == "jsonl" else export_chat_parquet)(store, folder)
    rows = read_chat_rows(folder)
    votes = store.votes()
    assert len(rows) == 2 * len(votes)
    for k, vote in enumerate(votes):
        a, b = rows[2 * k], rows[2 * k + 1]
        record = vote.record
        assert (a.conversation_id, b.conversation_id) == (
            f"{record['question_id']}-a",
            f"{record['question_id']}-b",
        )
        assert (a.model, b.model) == (record["model_a"], record["model_b"])
        assert [t.text for t in a.conversation] == [m["content"] for m in record["conversation_a"]]
        assert a.images == b.images == tuple(store.image(h)[1] for h in record["images"])
        assert a.tstamp == record["tstamp"] and a.language == record["language"]
        assert a.num_turns == record["num_turns"] and a.user_id is None
        assert a.category_labels == {}


def test_a_bench_built_from_the_export_keeps_one_side_and_the_arena_dates(
    store: VoteStore, tmp_path: Path
) -> None:
    export_chat_parquet(store, tmp_path / "chat")
    rows = read_chat_rows(tmp_path / "chat")
    params = CurationParams(size=10, seed=0, clusters=ClusterParams(min_cluster_size=4))
    curated = curate(rows, params, StandInEmbedder())
    counts = curated.counts()
    assert counts["exact_duplicate"] == VOTES  # side b of each one-turn English battle
    assert counts["multi_turn"] == 2 and counts["language"] == 2
    out = write_bench(tmp_path / "bench", curated, source="live arena")
    bench = read_bench_rows(out)
    assert len(bench) == 10 and all(r.question_id.endswith("-a") for r in bench)
    settings = json.loads((out / "curation" / "settings.json").read_text())
    assert settings["source"] == "live arena"
    assert settings["source_dates"] == {
        "from": "2024-10-27T03:33:20+00:00",
        "to": "2024-10-27T03:33:45+00:00",
    }
    assert "**live arena** dated 2024-10-27T03:33:20+00:00" in (out / "README.md").read_text()


def test_the_command_line_exports_the_conversations(store: VoteStore, tmp_path: Path) -> None:
    config = arena_config(tmp_path, store)
    argv = ["arena", "export", str(config), str(tmp_path / "out"), "--dataset", "chat"]
    assert vlmscope_main([*argv, "--format", "parquet"]) == 0
    assert len(read_chat_rows(tmp_path / "out")) == 2 * (VOTES + 2)
