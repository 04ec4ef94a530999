"""Answer metadata with other keys than the official four (a file written by another tool):
arena-hard v2's style control reads positions, so four keys of any names (and a baseline with
two) give a number, scored as upstream scores it and noted on the board; every other layout
stops upstream, and here is an error naming the file, line, answer and keys. The cases in
`official_sweep/style_feature_cases.json` (`arena_hard_v2_other_keys`) are upstream's features
or error on each layout. The references that read counts by name need the four keys only when
they read them (style control), and then name the record too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ratings.style_cases import style_cases, v2_scores
from tests.ratings.test_cli import _parser, verdicts
from tests.ratings.verdict_golden import BASELINE, VERDICTS_FILE
from vlmscope.ratings.boards.arena_hard_v2 import NOT_THE_OFFICIAL_KEYS, v2_style_features
from vlmscope.ratings.inputs.verdict_records import (
    STYLE_FIELDS,
    verdict_record_from_dict,
    verdict_record_to_dict,
)

OFFENDING_SIDE = {
    "extra_key_everywhere": "model_metadata",
    "extra_key_in_some": "baseline_metadata",
    "extra_key_model_side": "model_metadata",
    "extra_key_baseline_side": "baseline_metadata",
    "three_keys_everywhere": "model_metadata",
    "three_keys_in_some": "model_metadata",
    "two_key_model": "model_metadata",
    "three_key_baseline": "baseline_metadata",
    "not_a_count": "model_metadata",
}
"""The side whose layout upstream stops on, per error case."""


def cases() -> list[dict[str, Any]]:
    return style_cases()["arena_hard_v2_other_keys"]


def _numbered() -> list[int]:
    return [i for i, case in enumerate(cases()) if "features" in case]


def _stopped() -> list[int]:
    return [i for i, case in enumerate(cases()) if "official_error" in case]


def test_the_cases_cover_layouts_upstream_scores_and_ones_it_stops_on() -> None:
    assert {cases()[i]["mode"] for i in _numbered()} == {
        "renamed_key",
        "unknown_key_in_place",
        "unknown_keys_shuffled",
        "two_key_baseline",
    }
    assert {cases()[i]["mode"] for i in _stopped()} == set(OFFENDING_SIDE)


@pytest.mark.parametrize("index", _numbered())
def test_layouts_upstream_scores_give_its_features(index: int) -> None:
    case = cases()[index]
    got = v2_style_features(v2_scores(case))
    np.testing.assert_allclose(got, case["features"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("index", _stopped())
def test_layouts_upstream_stops_on_are_errors_naming_answer_and_keys(index: int) -> None:
    case = cases()[index]
    side = OFFENDING_SIDE[case["mode"]]
    with pytest.raises(ValueError, match="arena-hard v2|stack|not a count") as caught:
        v2_style_features(v2_scores(case))
    message = str(caught.value)
    uid = message.split("uid 'u")[1].split("'")[0]
    keys = case["rows"][int(uid)][side].keys()
    assert f"('m' against 'base'): {side} (keys: {', '.join(keys)})" in message


def _rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in VERDICTS_FILE.read_text().splitlines()][:60]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _renamed(metadata: dict[str, Any]) -> dict[str, Any]:
    return {("tokens" if key == "token_len" else key): value for key, value in metadata.items()}


def test_renamed_keys_are_read_by_position_and_noted(tmp_path: Path) -> None:
    rows = _rows()
    plain = _write(tmp_path / "plain.jsonl", rows)
    renamed = _write(
        tmp_path / "renamed.jsonl",
        [{**row, "model_metadata": _renamed(row["model_metadata"])} for row in rows],
    )
    flags = ("--reference", "arena-hard-v2", "--style-control")
    want, got = verdicts(tmp_path, *flags, file=plain), verdicts(tmp_path, *flags, file=renamed)
    assert got["style_control"]["models"] == want["style_control"]["models"]
    [note] = got["style_control"]["settings"]["notes"]
    assert note.startswith(f"model_metadata (tokens, {', '.join(STYLE_FIELDS[1:])}) in 60 ")
    assert note.endswith(NOT_THE_OFFICIAL_KEYS)


def _error(tmp_path: Path, file: Path, *flags: str, capsys: Any) -> str:
    args = _parser().parse_args(
        ["ratings", "verdicts", str(file), "--baseline", BASELINE, *flags]
        + ["--out", str(tmp_path / "out.json")]
    )
    assert args.func(args) == 2
    return str(capsys.readouterr().err)


def test_an_extra_key_stops_v2_style_control_naming_file_line_answer_and_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows()
    extra = [
        {**row, "model_metadata": {**row["model_metadata"], "italic_count": 2}} for row in rows
    ]
    path = _write(tmp_path / "extra.jsonl", extra)
    # upstream's plain leaderboard reads no metadata: the board stands
    assert verdicts(tmp_path, "--reference", "arena-hard-v2", file=path)["models"]
    printed = _error(
        tmp_path, path, "--reference", "arena-hard-v2", "--style-control", capsys=capsys
    )
    keys = ", ".join([*STYLE_FIELDS, "italic_count"])
    first = rows[0]
    assert f"{path} line 1: uid {first['uid']!r} ({first['model']!r} against {BASELINE!r})" in (
        printed
    )
    assert f"model_metadata (keys: {keys}): 5 keys" in printed


@pytest.mark.parametrize("reference", ["arena-hard-v0.1", "probench"])
def test_references_reading_by_name_name_an_absent_key_when_they_read_it(
    tmp_path: Path, reference: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows()
    rows[3] = {**rows[3], "baseline_metadata": _renamed(rows[3]["baseline_metadata"])}
    path = _write(tmp_path / "renamed.jsonl", rows)
    if reference == "arena-hard-v0.1":  # its plain fit reads no metadata
        assert verdicts(tmp_path, "--reference", reference, file=path)["models"]
    printed = _error(tmp_path, path, "--reference", reference, "--style-control", capsys=capsys)
    assert f"{path} line 4: field 'baseline_metadata.token_len': uid {rows[3]['uid']!r}" in printed
    assert "(keys: tokens, header_count, list_count, bold_count): absent" in printed
    assert "--skip-bad-rows" not in printed  # found when scoring: no row is left out


def test_a_record_written_back_keeps_every_key() -> None:
    row = {**_rows()[0], "model_metadata": {"tokens": 5, "bold_count": {"**": 2}, "note": "x"}}
    written = verdict_record_to_dict(verdict_record_from_dict(row))
    assert written["model_metadata"] == {"tokens": 5, "bold_count": 2, "note": None}
    assert verdict_record_from_dict(written) == verdict_record_from_dict(row)
