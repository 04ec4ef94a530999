"""Reading ProBench's layouts; the shipped sample's coverage; every bad row names uuid and field."""

from __future__ import annotations

import io
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from dataset_scripts.make_probench_sample import FILE_NAME, write_sample
from vlmscope.datasets.probench import FEATURES
from vlmscope.judges.markdown import answer_style_counts
from vlmscope.tracks.probench import BASELINE_NAME
from vlmscope.tracks.probench.rows import (
    CHALLENGE_AXES,
    CHAT_TYPES,
    SAMPLE_DIR,
    ProBenchDataError,
    ProBenchRow,
    parse_record,
    read_rows,
    read_rows_and_turns,
)

Records = list[dict[str, Any]]
# show_result.py's argparse choices
QUESTION_CATEGORIES = {"Planning", "Information Extraction", "Arts and Humanities", "Knowledge",
                       "Metrics", "Coding", "Mathematics", "Science", "Creative Writing",
                       "Perception"}  # fmt: skip
IMAGE_CATEGORIES = {"Photographs", "Engineering and Technical Drawings", "Specialized Formats",
                    "Screenshots and UI Elements", "Remote Sensing and Satellite Images",
                    "Graphics and Artistic Images", "Document and Text-based Images",
                    "Medical Images", "Scientific and Analytical Images"}  # fmt: skip
NAMED_LANGUAGES = {"pt", "fr", "es", "de"}


def sample_records() -> Records:
    return pq.read_table(SAMPLE_DIR / FILE_NAME).to_pylist()


def uuid_of(records: Records, chat_type: str, index: int = 0) -> str:
    return [r["uuid"] for r in records if r["chat_type"] == chat_type][index]


def write_parquet(folder: Path, records: Records, name: str = FILE_NAME, **kw: Any) -> Path:
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(records, **kw), folder / name)
    return folder


def write_json_layout(folder: Path, records: Records, *, jsonl: bool = False) -> Path:
    """One JSON (or JSONL) file whose `image` names a file in `images/` beside it."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    out = []
    for k, record in enumerate(records):
        record = dict(record)
        image = record.get("image")
        if isinstance(image, dict) and image.get("bytes"):
            record["image"] = f"row{k}.img"
            (folder / "images" / record["image"]).write_bytes(image["bytes"])
        out.append(record)
    if jsonl:
        lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
        (folder / "probench.jsonl").write_text(lines, encoding="utf-8")
    else:
        (folder / "probench.json").write_text(json.dumps(out, ensure_ascii=False), "utf-8")
    return folder


def as_read(rows: list[ProBenchRow]) -> list[tuple[object, ...]]:
    return [
        (r.uuid, r.chat_type, r.questions, r.reference_answers, r.image, r.image_format,
         dict(r.challenge), r.image_category, r.question_category, r.language)
        for r in rows
    ]  # fmt: skip


# -- the shipped sample --------------------------------------------------------------------


def test_sample_has_every_chat_type_and_singleround_filter_value() -> None:
    rows = read_rows(SAMPLE_DIR)
    assert 9 <= len(rows) <= 12
    assert {r.chat_type for r in rows} == set(CHAT_TYPES)
    single = [r for r in rows if r.chat_type == "singleround"]
    for axis in CHALLENGE_AXES:
        assert {r.challenge[axis] for r in single} == {"EASY", "HARD"}, axis
    assert len({r.question_category for r in single}) >= 3
    assert len({r.image_category for r in single}) >= 3
    assert {r.question_category for r in rows} <= QUESTION_CATEGORIES
    assert {r.image_category for r in rows} <= IMAGE_CATEGORIES
    assert all(r.rounds == 1 for r in rows if r.chat_type != "multi-round")


def test_sample_has_every_round_and_language_bucket() -> None:
    rows = read_rows(SAMPLE_DIR)
    rounds = [r.rounds for r in rows if r.chat_type == "multi-round"]
    assert 2 in rounds and 4 in rounds and max(rounds) >= 6
    linguistic = [r for r in rows if r.chat_type == "multi-linguistic"]
    languages = {r.language for r in linguistic}
    assert {"pt", "fr"} <= languages and languages - NAMED_LANGUAGES  # one falls into "other"
    assert all(not (r.questions[0] + r.reference_answers[0]).isascii() for r in linguistic)


def test_sample_answers_vary_in_length_and_markdown() -> None:
    """Style control z-scores length and markdown counts within each track's fit: none may be
    constant there. The baseline's turns are joined with spaces (show_result.py), so a header
    opening a later turn is not at a line start and does not count."""
    rows = read_rows(SAMPLE_DIR)
    for chat_type in CHAT_TYPES:
        baseline = [" ".join(r.reference_answers) for r in rows if r.chat_type == chat_type]
        lengths = [len(text.split()) for text in baseline]
        assert max(lengths) >= 3 * min(lengths), (chat_type, lengths)
        counts = [answer_style_counts(text) for text in baseline]
        for feature in ("header_count", "list_count", "bold_count"):
            totals = [sum(c[feature].values()) for c in counts]
            assert 0 in totals and len(set(totals)) >= 2, (chat_type, feature, totals)
    everything = " ".join(" ".join(r.reference_answers) for r in rows)
    assert "```" in everything and "1. " in everything and "\n- " in everything


def test_sample_images_differ_in_size_and_format() -> None:
    rows = read_rows(SAMPLE_DIR)
    sizes = [Image.open(io.BytesIO(r.image)).size for r in rows]
    assert len(set(sizes)) == len(rows)
    assert any(width > 1024 for width, _ in sizes)  # the judge resizes it to 1024
    assert {r.image_format for r in rows} == {"PNG", "JPEG"}
    assert (SAMPLE_DIR / FILE_NAME).stat().st_size < 300_000


def test_questions_and_answers_follow_the_official_scripts() -> None:
    """gen_answer_vllm.py / show_result.py: human turns minus `<|img|>`, stripped; gpt as is."""
    for row, turns in read_rows_and_turns(SAMPLE_DIR):
        assert turns[0][1].startswith("<|img|>"), row.uuid  # upstream's placement
        assert all("<|img|>" not in value for _, value in turns[1:])
        assert row.questions == tuple(
            v.replace("<|img|>", "").strip() for who, v in turns if who == "human"
        )
        assert row.reference_answers == tuple(v for who, v in turns if who == "gpt")
        assert row.rounds == len(row.questions) == len(row.reference_answers)
        assert not any("<|img|>" in q or q != q.strip() for q in row.questions)
    assert BASELINE_NAME == "gpt-4o-2024-05-13"


def test_chat_type_selects_rows_in_file_order() -> None:
    rows = read_rows(SAMPLE_DIR)
    for chat_type in CHAT_TYPES:
        assert read_rows(SAMPLE_DIR, chat_type) == [r for r in rows if r.chat_type == chat_type]
    with pytest.raises(ValueError, match="chat_type 'single' is not one of singleround"):
        read_rows(SAMPLE_DIR, "single")


def test_rows_are_hashable_values() -> None:
    rows = read_rows(SAMPLE_DIR)
    assert len(set(rows)) == len(rows) and rows == read_rows(SAMPLE_DIR)


# -- regenerating the sample ---------------------------------------------------------------


def test_sample_maker_is_deterministic(tmp_path: Path) -> None:
    first = write_sample(tmp_path / "a").read_bytes()
    assert write_sample(tmp_path / "b").read_bytes() == first


def test_shipped_sample_is_what_the_maker_writes(tmp_path: Path) -> None:
    """Row for row; images by their pixels, not their encoded bytes, which another Pillow (zlib,
    libjpeg) may write differently: PNG pixels must be equal, JPEG pixels within rounding."""
    written = read_rows(write_sample(tmp_path / "s").parents[1])
    shipped = read_rows(SAMPLE_DIR)
    without_image = [t[:4] + t[5:] for t in as_read(written)]
    assert without_image == [t[:4] + t[5:] for t in as_read(shipped)]
    for new, old in zip(written, shipped, strict=True):
        a, b = (
            np.asarray(Image.open(io.BytesIO(r.image)).convert("RGB"), float) for r in (new, old)
        )
        assert a.shape == b.shape, new.uuid
        tolerance = 0 if new.image_format == "PNG" else 2
        assert np.abs(a - b).mean() <= tolerance, new.uuid


# -- malformed rows ------------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]


def _set(field: str, value: Any) -> Mutation:
    return lambda record: record.__setitem__(field, value)


def _turns(*speakers: str) -> Mutation:
    def mutate(record: dict[str, Any]) -> None:
        record["conversations"] = [{"from": s, "value": f"{s} says hi"} for s in speakers]

    return mutate


def _label(field: str, key: str, value: Any) -> Mutation:
    return lambda record: record[field].__setitem__(key, value)


BAD_SINGLEROUND: list[tuple[str, Mutation, str]] = [
    ("no conversations", lambda r: r.pop("conversations"), "missing field(s) conversations"),
    ("no image", lambda r: r.pop("image"), "missing field(s) image"),
    ("chat type", _set("chat_type", "single-round"), "field 'chat_type' is 'single-round'"),
    ("gpt first", _turns("gpt", "human"), "found 1 human and 1 gpt turns: gpt, human"),
    ("two humans", _turns("human", "human", "gpt", "gpt"), "turns: human, human, gpt, gpt"),
    ("no answer", _turns("human"), "found 1 human and 0 gpt turns: human"),
    ("unknown speaker", _turns("human", "assistant"), "found 1 human and 0 gpt turns"),
    ("not a list", _set("conversations", "hi"), "field 'conversations' is not a non-empty list"),
    ("empty", _set("conversations", []), "field 'conversations' is not a non-empty list"),
    (
        "turn value null",
        _set("conversations", [{"from": "human", "value": "q"}, {"from": "gpt", "value": None}]),
        "field 'conversations' turn 1 is not {from, value} text",
    ),
    ("two rounds", _turns("human", "gpt", "human", "gpt"), "has 2 human turn(s); a singleround"),
    (
        "only the placeholder",
        _set("conversations", [{"from": "human", "value": " <|img|> "}, {"from": "gpt", "value": "a"}]),
        "field 'conversations' turn 0: the question is empty once '<|img|>' is removed",
    ),
    (
        "medium",
        _label("challenge", "challenge_reasoning", "MEDIUM"),
        "field 'challenge.challenge_reasoning' is 'MEDIUM', expected EASY or HARD",
    ),
    (
        "lower case",
        _label("challenge", "challenge_image", "easy"),
        "field 'challenge.challenge_image' is 'easy', expected EASY or HARD",
    ),
    (
        "empty axis",
        _label("challenge", "challenge_textual", ""),
        "field 'challenge.challenge_textual' is missing or empty; a singleround row needs it",
    ),
    (
        "no challenge",
        _set("challenge", None),
        "field 'challenge.challenge_image' is missing or empty; a singleround row needs it",
    ),
    ("challenge text", _set("challenge", "EASY"), "field 'challenge' is str, expected a record"),
    (
        "no task field",
        _label("category", "question_category", None),
        "field 'category.question_category' is missing or empty",
    ),
    ("category number", _label("category", "image_category", 3), "field 'category.image_category' is int"),
    ("language number", _set("language", 7), "field 'language' is int, expected text"),
    ("image file", _set("image", "nope.png"), "field 'image': file 'nope.png' not found in"),
    ("image number", _set("image", 5), "field 'image' is int, expected image bytes"),
    ("image null", _set("image", None), "field 'image' holds no image bytes"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("mutate", "message"),
    [case[1:] for case in BAD_SINGLEROUND],
    ids=[case[0] for case in BAD_SINGLEROUND],
)
def test_bad_singleround_row_names_its_uuid_and_field(
    tmp_path: Path, mutate: Mutation, message: str
) -> None:
    records = sample_records()
    uuid = uuid_of(records, "singleround", 1)
    mutate(next(r for r in records if r["uuid"] == uuid))
    with pytest.raises(ProBenchDataError) as raised:
        read_rows(write_json_layout(tmp_path, records))
    assert re.match(rf"^[\w.-]+, uuid {uuid}: ", str(raised.value)), raised.value
    assert message in str(raised.value)


BAD_OTHER: list[tuple[str, str, Mutation, str]] = [
    ("one round", "multi-round", _turns("human", "gpt"), "has 1 human turn(s); a multi-round row has at least 2"),
    ("two rounds", "multi-linguistic", _turns(*["human", "gpt"] * 2), "a multi-linguistic row has exactly 1"),
    ("no language", "multi-linguistic", _set("language", None), "field 'language' is empty"),
    ("blank language", "multi-linguistic", _set("language", " "), "field 'language' is empty"),
    ("wrong label", "multi-round", _set("challenge", {"challenge_image": "easy"}), "'challenge.challenge_image' is 'easy'"),
    ("wrong label", "multi-linguistic", _label("challenge", "challenge_textual", "X"), "'challenge.challenge_textual' is 'X'"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("chat_type", "mutate", "message"),
    [case[1:] for case in BAD_OTHER],
    ids=[f"{case[1]}: {case[0]}" for case in BAD_OTHER],
)
def test_bad_multi_round_or_linguistic_row_names_its_uuid_and_field(
    tmp_path: Path, chat_type: str, mutate: Mutation, message: str
) -> None:
    records = sample_records()
    uuid = uuid_of(records, chat_type, 1)
    mutate(next(r for r in records if r["uuid"] == uuid))
    with pytest.raises(ProBenchDataError) as raised:
        read_rows(write_json_layout(tmp_path, records))
    assert re.match(rf"^[\w.-]+, uuid {uuid}: ", str(raised.value)) and message in str(raised.value)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.pop("challenge"),
        _set("challenge", None),
        _set("challenge", {}),
        _set("challenge", {"challenge_image": "HARD"}),
        lambda r: (r.pop("category"), r.pop("language")),
        _set("category", {"image_category": None, "question_category": ""}),
    ],
    ids=["no challenge", "null", "empty record", "one axis", "no category", "null category"],
)
def test_non_singleround_rows_may_lack_challenge_and_category(
    tmp_path: Path, mutate: Mutation
) -> None:
    """Only show_result.py's singleround filters read them; absent reads as ""."""
    records = sample_records()
    uuid = uuid_of(records, "multi-round")
    mutate(next(r for r in records if r["uuid"] == uuid))
    (row,) = [r for r in read_rows(write_json_layout(tmp_path, records)) if r.uuid == uuid]
    assert set(row.challenge) == set(CHALLENGE_AXES)
    assert set(row.challenge.values()) <= {"", "HARD"}
    assert row.rounds == 2 and row.reference_answers


@pytest.mark.parametrize("uuid", [None, "", "  ", 17])
def test_row_without_uuid_names_its_position(tmp_path: Path, uuid: Any) -> None:
    records = sample_records()
    records[3]["uuid"] = uuid
    with pytest.raises(
        ProBenchDataError, match=r"^probench.json, row 3: field 'uuid' is missing or not text"
    ):
        read_rows(write_json_layout(tmp_path, records))


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"not an image at all", "does not decode as an image"),
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 40, "does not decode as an image"),
        (None, "holds no image bytes (only the path 'sr.png')"),
    ],
    ids=["garbage", "broken png", "path only"],
)
def test_corrupt_image_is_named(tmp_path: Path, payload: bytes | None, message: str) -> None:
    records = sample_records()
    uuid = uuid_of(records, "singleround", 2)
    next(r for r in records if r["uuid"] == uuid)["image"] = {"bytes": payload, "path": "sr.png"}
    with pytest.raises(ProBenchDataError) as raised:
        read_rows(write_parquet(tmp_path, records, schema=FEATURES.arrow_schema))
    assert re.match(rf"^[\w.-]+, uuid {uuid}: field 'image' ", str(raised.value))
    assert message in str(raised.value)


def test_truncated_png_is_named() -> None:
    record = sample_records()[4]
    assert record["image"]["path"].endswith(".png")
    record["image"] = record["image"]["bytes"][:-40]
    with pytest.raises(ProBenchDataError, match=f"uuid {record['uuid']}: field 'image' does not"):
        parse_record(record, position=4)


def test_missing_parquet_column(tmp_path: Path) -> None:
    records = sample_records()
    for record in records:
        del record["conversations"]
    with pytest.raises(
        ProBenchDataError,
        match=r"^train-00000-of-00001.parquet: missing column\(s\) conversations$",
    ):
        read_rows(write_parquet(tmp_path, records))


def test_duplicate_uuid_is_an_error_even_outside_the_chat_type_read(tmp_path: Path) -> None:
    records = sample_records()
    folder = write_parquet(tmp_path, [*records, records[1]])
    message = (
        f"train-00000-of-00001.parquet, uuid {records[1]['uuid']}: field 'uuid' repeats row 1 "
        f"(row {len(records)}); it would be asked and judged twice"
    )
    for chat_type in (None, "multi-round"):
        with pytest.raises(ProBenchDataError) as raised:
            read_rows(folder, chat_type)
        assert str(raised.value) == message


# -- layouts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "layout",
    ["train.parquet", "other names", "bytes column", "json", "jsonl"],
)
def test_every_layout_reads_the_sample_rows(tmp_path: Path, layout: str) -> None:
    records = sample_records()
    if layout == "train.parquet":
        folder = write_parquet(tmp_path, records, "train.parquet", schema=FEATURES.arrow_schema)
    elif layout == "other names":  # two shards, read in name order
        write_parquet(tmp_path, records[:5], "part-a.parquet")
        folder = write_parquet(tmp_path, records[5:], "part-b.parquet")
    elif layout == "bytes column":
        plain = [{**r, "image": r["image"]["bytes"]} for r in records]
        folder = write_parquet(tmp_path, plain, "train.parquet")
    else:
        folder = write_json_layout(tmp_path, records, jsonl=layout == "jsonl")
    assert as_read(read_rows(folder)) == as_read(read_rows(SAMPLE_DIR))
    turns = [t for _, t in read_rows_and_turns(folder)]
    assert turns == [t for _, t in read_rows_and_turns(SAMPLE_DIR)]


def test_hub_shards_win_over_other_files(tmp_path: Path) -> None:
    records = sample_records()
    write_parquet(tmp_path, records[:2], "data/train-00000-of-00002.parquet")
    write_parquet(tmp_path, records[2:], "data/train-00001-of-00002.parquet")
    write_parquet(tmp_path, records[:1], "stray.parquet")
    write_json_layout(tmp_path, records[:1])
    assert as_read(read_rows(tmp_path)) == as_read(read_rows(SAMPLE_DIR))


def _link_out(folder: Path) -> str:
    outside = folder.parent / "outside.png"
    shutil.copy(next((folder / "images").iterdir()), outside)
    (folder / "images" / "link.png").symlink_to(outside)
    return "link.png"


@pytest.mark.parametrize(
    ("image", "message"),
    [
        (lambda folder: "../../../../etc/passwd", "names '../../../../etc/passwd', which resolves"),
        (lambda folder: "/etc/passwd", "names an absolute path '/etc/passwd'"),
        (_link_out, "names 'link.png', which resolves to "),
    ],
    ids=["climbing out", "absolute", "symlink out"],
)
def test_image_path_leaving_the_data_folder_is_refused(
    tmp_path: Path, image: Callable[[Path], str], message: str
) -> None:
    folder = tmp_path / "data"
    records = sample_records()
    write_json_layout(folder, records)
    uuid = uuid_of(records, "multi-linguistic")
    next(r for r in records if r["uuid"] == uuid)["image"] = image(folder)
    write_json_layout(folder, records)
    with pytest.raises(ProBenchDataError) as raised:
        read_rows(folder)
    assert re.match(
        rf"^[\w.-]+, uuid {uuid}: field 'image' {re.escape(message)}", str(raised.value)
    )


def test_image_linked_inside_the_data_folder_is_read(tmp_path: Path) -> None:
    records = sample_records()
    write_json_layout(tmp_path, records)
    (tmp_path / "images" / "link.png").symlink_to(tmp_path / "images" / "row0.img")
    records[0]["image"] = "link.png"
    write_json_layout(tmp_path, records)
    assert as_read(read_rows(tmp_path)) == as_read(read_rows(SAMPLE_DIR))


def test_folder_without_data(tmp_path: Path) -> None:
    with pytest.raises(ProBenchDataError, match=r"expected data/train-\*\.parquet, train\.parquet"):
        read_rows(tmp_path)
    (tmp_path / "a.json").write_text("[]", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ProBenchDataError, match=r"found \['a.json', 'b.jsonl'\]"):
        read_rows(tmp_path)
    with pytest.raises(ProBenchDataError, match="is not a directory"):
        read_rows(tmp_path / "a.json")


def test_invalid_json(tmp_path: Path) -> None:
    (tmp_path / "probench.json").write_text("[{", encoding="utf-8")
    with pytest.raises(ProBenchDataError, match="probench.json: not valid JSON"):
        read_rows(tmp_path)
    (tmp_path / "probench.json").write_text('{"uuid": "x"}', encoding="utf-8")
    with pytest.raises(ProBenchDataError, match="probench.json: expected a list of records"):
        read_rows(tmp_path)
