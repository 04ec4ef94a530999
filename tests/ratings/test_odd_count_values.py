"""A boolean, a float or a dict of them as a style count: each reference's own reading.

arena-hard v2 reads ``v if isinstance(v, int) else sum(v.values())`` (a boolean counts, a float
stops it), arena-hard v0.1 and ProBench ``x if type(x) is int else sum(x.values())`` (both stop);
all sum a dict's booleans and floats. `official_sweep/style_feature_cases.json`
(`odd_count_values`) holds what the official code gave on each: features where it gives a
number, its exception where it stops."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ratings.style_cases import style_cases, v2_scores
from tests.ratings.test_cli import verdicts
from tests.ratings.test_v2_other_metadata_keys import _error, _rows, _write
from tests.ratings.verdict_golden import BASELINE
from vlmscope.ratings.boards.arena_hard_v01 import duplicated_style_design
from vlmscope.ratings.boards.arena_hard_v2 import v2_style_features
from vlmscope.ratings.boards.style_value_checks import BY_NAME_READER, require_readable_values
from vlmscope.ratings.inputs.battles import Battles
from vlmscope.ratings.inputs.verdict_records import (
    AnswerStyle,
    verdict_record_from_dict,
    verdict_record_to_dict,
)

MODES = {
    "boolean",
    "boolean_baseline",
    "float",
    "float_tokens",
    "dict_of_booleans",
    "dict_of_floats",
    "dict_of_floats_tokens",
}
STOPS = {
    "arena_hard_v2": {"float", "float_tokens"},
    "arena_hard_v01": {"float", "float_tokens", "boolean", "boolean_baseline"},
    "probench": {"float", "float_tokens", "boolean", "boolean_baseline"},
}
"""The modes each reference stops on (the rest give a number)."""


def _cases(reference: str) -> list[dict[str, Any]]:
    return [c for c in style_cases()["odd_count_values"] if c["reference"] == reference]


def _ids() -> list[tuple[str, int]]:
    return [(ref, i) for ref in STOPS for i in range(len(_cases(ref)))]


def test_upstream_stops_exactly_on_the_modes_named_and_gives_numbers_for_the_rest() -> None:
    for reference, stops in STOPS.items():
        cases = _cases(reference)
        assert {c["mode"] for c in cases} == MODES
        assert {c["mode"] for c in cases if "official_error" in c} == stops


def _by_name_features(case: dict[str, Any]) -> np.ndarray:
    """`construct_style_matrices`' four style columns: baseline as a, the judged model as b."""
    rows = case["rows"]
    styles = [
        [AnswerStyle.from_metadata(row[side], side).as_tuple() for row in rows]
        for side in ("baseline_metadata", "model_metadata")
    ]
    table = Battles.from_names(
        ["base"] * len(rows),
        ["m"] * len(rows),
        [(1.0, 0.0, 0.5)[i % 3] for i in range(len(rows))],
        style_a=styles[0],
        style_b=styles[1],
    )
    return duplicated_style_design(table).design[:, -4:]


def _records(case: dict[str, Any]) -> list[Any]:
    return [
        verdict_record_from_dict(
            {"uid": f"u{i}", "model": "m", "baseline": "base", "games": [None, None], **row}
        )
        for i, row in enumerate(case["rows"])
    ]


@pytest.mark.parametrize(("reference", "index"), _ids())
def test_each_reference_gives_upstreams_number_or_stops_where_it_stops(
    reference: str, index: int
) -> None:
    case = _cases(reference)[index]
    if "features" in case:
        if reference == "arena_hard_v2":
            got = v2_style_features(v2_scores(case))
            np.testing.assert_allclose(got, case["features"], rtol=1e-5, atol=1e-5)
        else:
            got = _by_name_features(case)
            np.testing.assert_allclose(got, case["features"], rtol=1e-12, atol=1e-12)
        return
    with pytest.raises(ValueError) as caught:
        if reference == "arena_hard_v2":
            v2_style_features(v2_scores(case))
        else:
            require_readable_values(_records(case), BY_NAME_READER)
    message = str(caught.value)
    assert case["official_error"] in message  # upstream's own exception, word for word
    [(i, row, side, key)] = [
        (i, row, side, key)
        for i, row in enumerate(case["rows"])
        for side in ("model_metadata", "baseline_metadata")
        for key, value in row[side].items()
        if type(value) in (bool, float)
    ][:1]
    assert f"field '{side}.{key}': uid 'u{i}' ('m' against 'base')" in message


def _with(rows: list[dict[str, Any]], side: str, key: str, value: Any, every: int) -> list[Any]:
    return [
        {**row, side: {**row[side], key: value(row[side][key])}} if i % every == 2 else row
        for i, row in enumerate(rows)
    ]


def test_v2_counts_a_boolean_as_upstream_and_notes_the_key_and_first_answer(
    tmp_path: Path,
) -> None:
    rows = _with(_rows(), "model_metadata", "bold_count", lambda v: 1, 4)
    as_bool = _with(_rows(), "model_metadata", "bold_count", lambda v: True, 4)
    flags = ("--reference", "arena-hard-v2", "--style-control")
    want = verdicts(tmp_path, *flags, file=_write(tmp_path / "ints.jsonl", rows))
    got = verdicts(tmp_path, *flags, file=_write(tmp_path / "bools.jsonl", as_bool))
    assert got["style_control"]["models"] == want["style_control"]["models"]
    assert want["style_control"]["settings"]["notes"] == []
    [note] = got["style_control"]["settings"]["notes"]
    first = as_bool[2]
    assert note.startswith(
        f"model_metadata.bold_count is a boolean in 15 answer(s), first uid {first['uid']!r} "
        f"({first['model']!r} against {BASELINE!r}): arena-hard v2's show_result"
    )


@pytest.mark.parametrize("reference", ["arena-hard-v0.1", "probench"])
def test_by_name_references_count_booleans_in_a_dict_and_note_them(
    tmp_path: Path, reference: str
) -> None:
    ints = _with(_rows(), "baseline_metadata", "list_count", lambda v: {"a": 1, "b": 0}, 3)
    bools = _with(_rows(), "baseline_metadata", "list_count", lambda v: {"a": True, "b": False}, 3)
    flags = ("--reference", reference, "--style-control")
    want = verdicts(tmp_path, *flags, file=_write(tmp_path / "ints.jsonl", ints))
    got = verdicts(tmp_path, *flags, file=_write(tmp_path / "bools.jsonl", bools))

    def board(out: dict[str, Any]) -> dict[str, Any]:
        return out.get("style_control") or out  # probench's board is the style-controlled one

    assert board(got)["models"] == board(want)["models"]
    assert "notes" not in board(want)["settings"]
    [note] = board(got)["settings"]["notes"]
    assert note.startswith(
        f"baseline_metadata.list_count is a dict with booleans in 20 answer(s), first uid "
        f"{bools[2]['uid']!r}"
    )


@pytest.mark.parametrize(
    ("reference", "value", "kind"),
    [
        ("arena-hard-v2", 2.0, "float"),
        ("arena-hard-v0.1", 2.0, "float"),
        ("arena-hard-v0.1", True, "bool"),
        ("probench", True, "bool"),
    ],
)
def test_a_value_upstream_stops_on_names_file_line_answer_side_and_key_before_any_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: str, value: Any, kind: str
) -> None:
    rows = _with(_rows(), "model_metadata", "header_count", lambda v: value, 7)
    path = _write(tmp_path / "odd.jsonl", rows)
    printed = _error(tmp_path, path, "--reference", reference, "--style-control", capsys=capsys)
    assert (
        f"{path} line 3: field 'model_metadata.header_count': uid {rows[2]['uid']!r} "
        f"({rows[2]['model']!r} against {BASELINE!r})"
    ) in printed
    assert f"AttributeError: '{kind}' object has no attribute 'values'" in printed


def test_a_record_written_back_keeps_booleans_and_floats() -> None:
    meta = {"token_len": 9.5, "header_count": True, "list_count": {"a": 0.5}, "bold_count": 0}
    row = {**_rows()[0], "model_metadata": meta}
    written = verdict_record_to_dict(verdict_record_from_dict(row))
    assert written["model_metadata"] == {**meta, "list_count": {"sum": 0.5}}
    assert type(written["model_metadata"]["header_count"]) is bool
    assert verdict_record_from_dict(written) == verdict_record_from_dict(row)


def test_a_record_written_back_keeps_its_dicts_with_booleans() -> None:
    meta = {"token_len": 9, "header_count": {"a": True, "b": False}, "list_count": 2}
    meta |= {"bold_count": {"a": True, "b": 0.5}}
    row = {**_rows()[0], "model_metadata": meta}
    written = verdict_record_to_dict(verdict_record_from_dict(row))
    assert written["model_metadata"] == {
        **meta,
        "header_count": {"sum": 1, "boolean": False},
        "bold_count": {"sum": 1.5, "boolean": False},
    }
    again = verdict_record_from_dict(written)
    assert again == verdict_record_from_dict(row)
    assert again.model_style is not None
    assert dict(again.model_style.odd_kinds) == {
        "header_count": "a dict with booleans",
        "bold_count": "a dict with booleans",
    }  # a board read from the written record notes them as the first one did
