"""The shipped samples' coverage, both inferred shapes, and every bad row naming id and field."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image

from dataset_scripts.make_visionarena_samples import FILE_NAME
from vlmscope.ratings import Battles, bootstrap_bt, bt_ratings, select_battles
from vlmscope.ratings.inputs.filters import BOARD_FILTERS
from vlmscope.tracks.visionarena.conversations import CATEGORY_FLAGS
from vlmscope.tracks.visionarena.rows import (
    SAMPLE_DIR,
    Turn,
    VisionArenaDataError,
    battle_record,
    read_battle_rows,
    read_bench_rows,
    read_chat_rows,
)

Records = list[dict[str, Any]]
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "arena" / "battles_5k.jsonl"


def sample_records(dataset: str) -> Records:
    return pq.read_table(SAMPLE_DIR / dataset / FILE_NAME).to_pylist()


def write_json(folder: Path, records: Records) -> Path:
    """The JSON layout: `images` entries name files in `images/` beside the file."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    out = []
    for k, record in enumerate(records):
        record = dict(record)
        names = []
        for j, image in enumerate(record.get("images") or []):
            names.append(f"r{k}-{j}.png")
            (folder / "images" / names[-1]).write_bytes(image["bytes"])
        record["images"] = names
        out.append(record)
    (folder / "rows.json").write_text(json.dumps(out, ensure_ascii=False), "utf-8")
    return folder


def test_battle_sample_covers_what_the_ratings_need() -> None:
    rows = read_battle_rows(SAMPLE_DIR / "battle")
    assert 60 <= len(rows) <= 120
    assert len({r.model_a for r in rows} | {r.model_b for r in rows}) == 5
    assert {r.winner for r in rows} == {"model_a", "model_b", "tie", "tie (bothbad)"}
    assert {r.is_preset for r in rows} == {True, False} and all(r.anony is None for r in rows)
    assert {"English", "Chinese", "Russian"} <= {r.language for r in rows}
    assert {1, 2} <= {r.turn for r in rows}
    for flag in CATEGORY_FLAGS:
        assert any(r.categories[flag] for r in rows), flag
    assert any(not r.categories["refusal"] for r in rows)
    assert {r.conv_metadata is None for r in rows} == {True, False}
    records = [battle_record(r) for r in rows]
    tokens = {rec["conv_metadata"]["sum_assistant_a_tokens"] for rec in records}
    headers = {sum(rec["conv_metadata"]["header_count_a"].values()) for rec in records}
    assert len(tokens) > 3 and len(headers) > 1
    assert all(len(r.images) == 1 for r in rows)
    assert (SAMPLE_DIR / "battle" / FILE_NAME).stat().st_size < 400_000


def test_battle_record_has_the_golden_shape_and_rates() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8").splitlines()[0])
    records = [battle_record(r) for r in read_battle_rows(SAMPLE_DIR / "battle")]
    assert set(golden) <= set(records[0])
    assert set(golden["conv_metadata"]) <= set(records[0]["conv_metadata"])
    assert set(golden["category_tag"]) <= set(records[0]["category_tag"])
    battles = Battles.from_records(records)
    assert battles.style_a is not None and np.all(np.isfinite(bt_ratings(battles)))
    result = bootstrap_bt(battles, rounds=10, rng=np.random.default_rng(0))
    assert result is not None
    for name, board in BOARD_FILTERS.items():
        if name in ("english", "full", "multiturn", "is_preset", "ocr"):
            assert select_battles(records, filter_func=board), name


def test_chat_and_bench_samples() -> None:
    chats = read_chat_rows(SAMPLE_DIR / "chat")
    assert [c.num_turns for c in chats] == [1, 2, 1]
    assert chats[1].conversation[0] == Turn("user", "这个标志写的是什么？")
    assert chats[1].is_preset and chats[1].preset_dataset and chats[0].translated_conversation
    assert all(len(c.category_labels) == len(CATEGORY_FLAGS) for c in chats)
    bench = read_bench_rows(SAMPLE_DIR / "bench")
    assert len(bench) == 4 and [len(b.images) for b in bench] == [1, 1, 1, 2]
    assert bench[0].question == "Describe this image in detail." and bench[0].category
    assert Image.open(io.BytesIO(bench[3].images[1])).size == (64, 48)


def test_json_layout_reads_like_parquet(tmp_path: Path) -> None:
    for dataset, read in (("chat", read_chat_rows), ("battle", read_battle_rows),
                          ("bench", read_bench_rows)):  # fmt: skip
        folder = write_json(tmp_path / dataset, sample_records(dataset))
        assert read(folder) == read(SAMPLE_DIR / dataset), dataset


def test_inferred_shapes_are_both_accepted(tmp_path: Path) -> None:
    records = sample_records("battle")[:3]
    pairs = copy.deepcopy(records)
    for record in pairs:
        for side in ("conversation_a", "conversation_b"):
            record[side] = [
                {"user": turn[0]["content"], "assistant": turn[1]["content"]}
                for turn in record[side]
            ]
        record["categories"] = ",".join(k for k, v in record["categories"].items() if v)
    flat = copy.deepcopy(records)
    for record in flat:
        record["conversation_a"] = [m for turn in record["conversation_a"] for m in turn]
    expected = read_battle_rows(write_json(tmp_path / "nested", records))
    assert read_battle_rows(write_json(tmp_path / "pairs", pairs)) == expected
    assert read_battle_rows(write_json(tmp_path / "flat", flat)) == expected
    bench = sample_records("bench")[:1]
    bench[0]["turns"] = [[{"role": "user", "content": ["Describe it.", ["hash0"]]}]]
    assert read_bench_rows(write_json(tmp_path / "ah", bench))[0].question == "Describe it."


def _set(path: str, value: Any) -> Any:
    def change(record: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = record
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return change


BAD_BATTLES = [
    ("winner", _set("winner", "model_c"), "field 'winner'"),
    ("missing model", _set("model_a", None), "field 'model_a'"),
    ("self battle", lambda r: r.update(model_b=r["model_a"]), "field 'model_b'"),
    ("unknown role", _set("conversation_a.0.0.role", "system"), "conversation_a[0][0].role"),
    ("undecodable image", _set("images.0", {"bytes": b"not a png", "path": None}),
     "field 'images[0]' does not decode"),
    ("category string", _set("categories", "ocr,weather"), "field 'categories'"),
    ("category value", _set("categories.ocr", "yes"), "field 'categories.ocr'"),
    ("turns", _set("num_turns", 3), "field 'num_turns'"),
    ("tstamp", _set("tstamp", None), "field 'tstamp'"),
    ("unanswered", lambda r: r["conversation_b"][0].pop(), "field 'conversation_b'"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "message"), [c[1:] for c in BAD_BATTLES],
                         ids=[c[0] for c in BAD_BATTLES])  # fmt: skip
def test_bad_battle_names_id_and_field(tmp_path: Path, change: Any, message: str) -> None:
    records = sample_records("battle")[:4]
    change(records[2])
    with pytest.raises(VisionArenaDataError) as err:
        read_battle_rows(write_json(tmp_path, records))
    assert str(err.value).startswith(f"rows.json, question_id {records[2]['question_id']}: ")
    assert message in str(err.value)


def test_duplicate_and_bad_ids(tmp_path: Path) -> None:
    records = sample_records("chat")
    records[2]["conversation_id"] = records[0]["conversation_id"]
    with pytest.raises(VisionArenaDataError, match="rows.json, conversation_id va-chat-0: field "
                       "'conversation_id' repeats row 0"):  # fmt: skip
        read_chat_rows(write_json(tmp_path / "dup", records))
    bench = sample_records("bench")
    bench[1]["images"] = []
    with pytest.raises(VisionArenaDataError, match="question_id va-bench-1: field 'images'"):
        read_bench_rows(write_json(tmp_path / "img", bench))
    chat = sample_records("chat")
    chat[0]["model"] = ""
    with pytest.raises(VisionArenaDataError, match="conversation_id va-chat-0: field 'model'"):
        read_chat_rows(write_json(tmp_path / "model", chat))
    with pytest.raises(VisionArenaDataError, match="not a directory"):
        read_chat_rows(tmp_path / "absent")
