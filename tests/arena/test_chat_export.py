"""The store's conversations export as VisionArena-Chat (two rows a vote, one per side) in both
layouts, and a bench curated from that export keeps one of each pair, with the arena as its
source and the votes' dates in its card."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from tests.arena.records import answered_battle
from tests.visionarena.planted_chats import GROUPS, StandInEmbedder, drawing
from vlmscope.arena.chat_export import export_chat_jsonl, export_chat_parquet
from vlmscope.arena.config import Limits
from vlmscope.arena.safety import check_image
from vlmscope.arena.shape import vote_record
from vlmscope.arena.vote_store import VoteStore
from vlmscope.cli import main as vlmscope_main
from vlmscope.datasets.visionarena_bench_files import write_bench
from vlmscope.tracks.visionarena.bench_clusters import ClusterParams
from vlmscope.tracks.visionarena.bench_curation import CurationParams, curate
from vlmscope.tracks.visionarena.rows import read_bench_rows, read_chat_rows

VOTES = 24
FIRST_VOTE = 1_730_000_000.0


@pytest.fixture
def store(tmp_path: Path) -> VoteStore:
    """24 votes on answered one-turn battles in English, each with its own drawing, one
    two-turn battle and one in French."""
    rng = random.Random(3)
    store = VoteStore(tmp_path / "votes.sqlite")
    colours = [colour for colour, _ in GROUPS.values()]
    for number in range(VOTES + 2):
        buffer = io.BytesIO()
        drawing(colours[number % len(colours)], rng).save(buffer, "PNG")
        image = check_image(buffer.getvalue(), Limits())
        store.put_images([image])
        battle = answered_battle(number, (image,))
        if number == VOTES:
            battle = battle.asked("and then?", ()).answered_with("more a", "more b")
        language = "French" if number == VOTES + 1 else "English"
        store.save_battle(battle)
        store.record_vote(battle, vote_record(battle, "tie", FIRST_VOTE + number, language))
    return store


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
    config = tmp_path / "arena.yaml"
    model = "{backend: openai, name: %s, base_url: 'http://127.0.0.1:1/v1', model: m}"
    config.write_text(
        f"contestants: [{model % 'm1'}, {model % 'm2'}]\nstore: {{path: '{store.path}'}}\n"
    )
    argv = ["arena", "export", str(config), str(tmp_path / "out"), "--dataset", "chat"]
    assert vlmscope_main([*argv, "--format", "parquet"]) == 0
    assert len(read_chat_rows(tmp_path / "out")) == 2 * (VOTES + 2)
