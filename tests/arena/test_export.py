"""The store's export is a VisionArena-Battle folder the track's readers accept unchanged, in
both layouts; `vlmscope visionarena leaderboard` rates it; the live board rates the store the
same way; a Hub push sends each full batch once, even when an upload fails and is retried."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.arena.conftest import png
from tests.arena.records import answered_battle, store_vote
from vlmscope.arena.export import export_jsonl, export_parquet
from vlmscope.arena.hub_push import push_full_batches
from vlmscope.arena.rating import rate_store
from vlmscope.arena.shape import vote_record
from vlmscope.arena.vote_store import VoteStore
from vlmscope.cli import main as vlmscope_main
from vlmscope.ratings.inputs.battles import read_battle_records
from vlmscope.tracks.visionarena.rows import battle_record, read_battle_rows

WINNERS = ["model_a", "model_b", "tie", "tie (bothbad)", "model_a", "model_a"]


@pytest.fixture
def store(tmp_path: Path) -> VoteStore:
    store = VoteStore(tmp_path / "votes.sqlite")
    shared = png("purple")
    for number, winner in enumerate(WINNERS):
        store_vote(store, number, winner, (shared, png("white", (5, number + 1))))
    return store


@pytest.mark.parametrize("layout", ["jsonl", "parquet"])
def test_the_export_reads_as_battle_rows(store: VoteStore, tmp_path: Path, layout: str) -> None:
    folder = tmp_path / layout
    (export_jsonl if layout == "jsonl" else export_parquet)(store, folder)
    rows = read_battle_rows(folder)
    votes = store.votes()
    assert [r.question_id for r in rows] == [v.record["question_id"] for v in votes]
    assert [r.winner for r in rows] == WINNERS
    for row, vote in zip(rows, votes, strict=True):
        assert (row.model_a, row.model_b) == (vote.record["model_a"], vote.record["model_b"])
        assert [t.text for t in row.conversation_a] == [
            m["content"] for m in vote.record["conversation_a"]
        ]
        assert row.images == tuple(store.image(h)[1] for h in vote.record["images"])
        assert row.anony and row.turn == 1 and row.language == ""
        assert battle_record(row)["conv_metadata"] == vote.record["conv_metadata"]
    if layout == "jsonl":
        assert len(list((folder / "images").iterdir())) == 1 + len(WINNERS)  # shared once


def test_a_repeated_export_reads_only_the_new_images(
    store: VoteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store grows by votes; re-exporting it into the same folder reads only the images
    whose files are not there yet."""
    read: list[str] = []
    image = store.image
    monkeypatch.setattr(store, "image", lambda sha: read.append(sha) or image(sha))
    export_jsonl(store, tmp_path)
    assert len(read) == 1 + len(WINNERS)  # each distinct image once, the shared one included
    read.clear()
    store_vote(store, len(WINNERS), "tie", (png("purple"), png("black", (3, 3))))
    export_jsonl(store, tmp_path)
    assert read == [store.votes()[-1].record["images"][1]]
    assert len((tmp_path / "battles.jsonl").read_text().splitlines()) == len(WINNERS) + 1


def test_line_separators_inside_texts_survive_the_json_lines_export(tmp_path: Path) -> None:
    """U+2028, U+2029 and U+0085 are legal unescaped inside a JSON string (the export writes
    `ensure_ascii=False`); the readers end lines at newlines only, so the record stays whole."""
    store = VoteStore(tmp_path / "votes.sqlite")
    text = "first line\u2028second\u2029third\x85fourth"
    battle = answered_battle(0).asked(text, ()).answered_with(text, "plain")
    store.save_battle(battle)
    store.record_vote(battle, vote_record(battle, "tie", 1_700_000_100.0))
    target = export_jsonl(store, tmp_path / "export")
    assert "\u2028" in target.read_text(encoding="utf-8")  # written as the character itself
    (row,) = read_battle_rows(tmp_path / "export")
    assert [t.text for t in row.conversation_a][2:] == [text, text]
    assert read_battle_records(target).rows[0]["conversation_a"][2]["content"] == text
    store.close()


def test_the_leaderboard_command_rates_the_export(
    store: VoteStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "export"
    export_jsonl(store, folder)
    for data in (folder, folder / "battles.jsonl"):  # as a Battle folder, as a battles file
        out = tmp_path / f"{data.name}.json"
        code = vlmscope_main(
            ["visionarena", "leaderboard", str(data), "--bootstrap", "10", "--out", str(out)]
        )
        assert code == 0, capsys.readouterr().err
        board = json.loads(out.read_text())
        assert set(board["models"]) == {"m1", "m2"}
    assert len(read_battle_records(folder / "battles.jsonl", style=True).rows) == len(WINNERS)


def test_the_live_board_rates_the_store_like_the_track(store: VoteStore) -> None:
    live = rate_store(store, rounds=10)
    assert live.votes == len(WINNERS) and live.board is not None
    models = live.board.models
    # m1 is model_a in even-numbered battles and model_b in odd ones (`records.answered_battle`)
    wins_m1 = sum(
        (w == "model_a" and n % 2 == 0) or (w == "model_b" and n % 2 == 1)
        for n, w in enumerate(WINNERS)
    )
    assert models["m1"].battles == models["m2"].battles == len(WINNERS)
    expected_rate = 100 * (wins_m1 + 0.5 * 2) / len(WINNERS)  # two ties count half
    assert models["m1"].win_rate == pytest.approx(expected_rate)
    assert live.board.settings.rounds == 10
    assert rate_store(VoteStore(store.path.with_name("empty.sqlite"))).board is None


def test_the_command_line_export(store: VoteStore, tmp_path: Path) -> None:
    config = tmp_path / "arena.yaml"
    model = "{backend: openai, name: %s, base_url: 'http://127.0.0.1:1/v1', model: m}"
    config.write_text(
        f"contestants: [{model % 'm1'}, {model % 'm2'}]\nstore: {{path: '{store.path}'}}\n"
    )
    assert (
        vlmscope_main(
            ["arena", "export", str(config), str(tmp_path / "out"), "--format", "parquet"]
        )
        == 0
    )
    assert len(read_battle_rows(tmp_path / "out")) == len(WINNERS)


def test_hub_push_sends_each_full_batch_once(store: VoteStore, tmp_path: Path) -> None:
    uploads: dict[str, list[str]] = {}
    fail = {"next": True}

    def upload(local: Path, name: str) -> None:
        uploads[name] = pq.read_table(local).column("question_id").to_pylist()
        if fail["next"]:  # the first upload lands but its caller never hears back
            fail["next"] = False
            raise ConnectionError("lost the reply")

    with pytest.raises(ConnectionError):
        push_full_batches(store, 4, upload)
    assert push_full_batches(store, 4, upload) == ["data/train-000000001-000000004.parquet"]
    assert push_full_batches(store, 4, upload) == []  # 2 votes left: not a full batch
    store_vote(store, 10, "tie")
    store_vote(store, 11, "tie")
    assert push_full_batches(store, 4, upload) == ["data/train-000000005-000000008.parquet"]
    everything = [q for names in uploads.values() for q in names]
    assert len(everything) == len(set(everything)) == 8
