"""arena-hard v2's style control reads each answer's metadata counts by position
(`metadata.values()` taken as tokens, headers, lists, bold); FastChat, arena-hard v0.1 and
ProBench read them by name. An answer whose metadata has the keys in another order is scored
as v2 scores it, and the board counts such answers in `settings.notes`, one note per side and
key order naming the first answer, which the command prints once with the file. The features
themselves are checked against the official code in `test_style_feature_official_sweep.py`
(`reordered_keys`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ratings.test_cli import verdicts
from tests.ratings.verdict_golden import BASELINE, VERDICTS_FILE
from vlmscope.ratings.boards.arena_hard_v2 import OUT_OF_ORDER, metadata_order_notes
from vlmscope.ratings.inputs.verdict_records import (
    STYLE_FIELDS,
    verdict_record_from_dict,
    verdict_record_to_dict,
)

MOVED = ("header_count", "token_len", "list_count", "bold_count")
EVERY = 5
"""Every fifth row's model_metadata has its keys in the order `MOVED`."""


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in VERDICTS_FILE.read_text().splitlines()][:80]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _with_model_metadata(rows: list[dict[str, Any]], remake: Any) -> list[dict[str, Any]]:
    return [
        {**row, "model_metadata": remake(row["model_metadata"])} if i % EVERY == 0 else row
        for i, row in enumerate(rows)
    ]


def _reordered(metadata: dict[str, Any]) -> dict[str, Any]:
    return {key: metadata[key] for key in MOVED}


def _moved_by_position(metadata: dict[str, Any]) -> dict[str, Any]:
    """The counts a positional reader takes from `_reordered(metadata)`, under their names."""
    return dict(zip(STYLE_FIELDS, _reordered(metadata).values(), strict=True))


def test_v2_reads_reordered_keys_by_position_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows()
    in_order = _write(tmp_path / "in_order.jsonl", rows)
    reordered = _write(tmp_path / "reordered.jsonl", _with_model_metadata(rows, _reordered))
    moved = _write(tmp_path / "moved.jsonl", _with_model_metadata(rows, _moved_by_position))
    flags = ("--reference", "arena-hard-v2", "--style-control")

    plain = verdicts(tmp_path, *flags, file=in_order)
    positional = verdicts(tmp_path, *flags, file=moved)
    capsys.readouterr()
    got = verdicts(tmp_path, *flags, file=reordered)
    printed = capsys.readouterr().err

    assert got["models"] == plain["models"]  # without style control no metadata is read
    styled = got["style_control"]
    assert styled["models"] == positional["style_control"]["models"]  # read by position
    assert styled["models"] != plain["style_control"]["models"]
    first = rows[0]
    expected = [
        f"model_metadata ({', '.join(MOVED)}) in {len(rows[::EVERY])} answer(s), first uid "
        f"{first['uid']!r} ({first['model']!r} against {BASELINE!r}): {OUT_OF_ORDER}"
    ]
    assert styled["settings"]["notes"] == expected
    assert printed.count(OUT_OF_ORDER) == 1  # one line for the file, not one per answer
    assert f"{reordered}: {expected[0]}" in printed
    for board in (plain["style_control"], positional["style_control"]):
        assert board["settings"]["notes"] == []


@pytest.mark.parametrize("reference", ["arena-hard-v0.1", "probench"])
def test_other_references_read_the_counts_by_name(tmp_path: Path, reference: str) -> None:
    rows = _rows()
    in_order = _write(tmp_path / "in_order.jsonl", rows)
    reordered = _write(tmp_path / "reordered.jsonl", _with_model_metadata(rows, _reordered))
    flags = ("--reference", reference, "--style-control")
    assert verdicts(tmp_path, *flags, file=reordered) == verdicts(tmp_path, *flags, file=in_order)


def test_a_record_written_back_keeps_its_key_order() -> None:
    row = _with_model_metadata(_rows()[:1], _reordered)[0]
    written = verdict_record_to_dict(verdict_record_from_dict(row))
    assert tuple(written["model_metadata"]) == MOVED
    assert tuple(written["baseline_metadata"]) == STYLE_FIELDS
    assert verdict_record_from_dict(written) == verdict_record_from_dict(row)


def test_one_note_per_side_and_key_order_with_its_count() -> None:
    rows = _with_model_metadata(_rows()[:10], _reordered)  # rows 0 and 5
    backwards = tuple(reversed(STYLE_FIELDS))
    rows[3] = {
        **rows[3],
        "baseline_metadata": {k: rows[3]["baseline_metadata"][k] for k in backwards},
    }
    rows[7] = {**rows[7], "model_metadata": {k: rows[7]["model_metadata"][k] for k in backwards}}
    notes = metadata_order_notes([verdict_record_from_dict(row) for row in rows])
    assert [note.split(" answer(s), first uid ")[0] for note in notes] == [
        f"model_metadata ({', '.join(MOVED)}) in 2",
        f"baseline_metadata ({', '.join(backwards)}) in 1",
        f"model_metadata ({', '.join(backwards)}) in 1",
    ]
    assert [note.split("first uid ")[1].split(" ")[0] for note in notes] == [
        repr(rows[i]["uid"]) for i in (0, 3, 7)
    ]
