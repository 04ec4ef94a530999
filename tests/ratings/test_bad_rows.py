"""Rows that cannot be used are an error naming file, line and field, or skipped and counted.

Each probe inserts one bad row into a small clean file (line 6) and checks, through the CLI and
through the functions: the default run stops (exit 2) with a message naming the file, the line
and the field; `--skip-bad-rows` / `skip_bad_rows=True` counts the row under its reason in the
board's `settings.skipped`; and the rows left give the same board as the file without it.
Then: the evaluate module's items, and fits that cannot happen (NaN, a constant style feature,
an optimiser that did not move), which raise instead of showing every model at 1000.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.ratings.arena_golden import GOLDEN_DIR
from tests.ratings.verdict_golden import BASELINE, VERDICTS_FILE
from vlmscope.cli import main
from vlmscope.hub_export import load_folder
from vlmscope.ratings.boards.battle_presets import BattleSettings, battle_board
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.ratings.boards.verdict_presets import VerdictSettings, verdict_board
from vlmscope.ratings.fits import _newton
from vlmscope.ratings.fits.bootstrap import bootstrap_bt, bootstrap_style_control
from vlmscope.ratings.fits.bradley_terry import fit_bt
from vlmscope.ratings.fits.fit_checks import FitError
from vlmscope.ratings.inputs.battles import Battles, battles_from_columns, read_battle_records
from vlmscope.ratings.inputs.row_checks import BadRowError
from vlmscope.ratings.inputs.verdict_records import read_verdict_file, verdict_record_from_dict

BAD_LINE = 6  # 1-based line of the inserted row; 5 good rows come before it
Row = dict[str, Any]


def _rows(path: Path, n: int) -> list[Row]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return [json.loads(line) for line in lines[:n]]


BATTLES = _rows(GOLDEN_DIR / "battles_5k.jsonl", 200)
VERDICTS = _rows(VERDICTS_FILE, 80)


def _set(path: str, value: Any) -> Callable[[Row], Row | str]:
    """A probe: the row at BAD_LINE with the dotted `path` set to `value`."""

    def bad(row: Row) -> Row:
        row = copy.deepcopy(row)
        *parents, last = path.split(".")
        target = row
        for key in parents:
            target = target[key]
        target[last] = value
        return row

    return bad


@dataclass(frozen=True)
class Probe:
    name: str
    bad: Callable[[Row], Row | str]  # the bad row made from the good one it replaces
    reason: str
    field: str | None  # None: the row as a whole (not JSON)


BATTLE_PROBES = [
    Probe("bad winner", _set("winner", "banana"), "bad_winner", "winner"),
    Probe("null model", _set("model_b", None), "missing_model", "model_b"),
    Probe("empty model", _set("model_a", " "), "missing_model", "model_a"),
    Probe("self battle", lambda r: {**r, "model_b": r["model_a"]}, "self_battle", "model_b"),
    Probe("not JSON", lambda r: '{"model_a": "x",', "not_json", None),
    Probe("not an object", lambda r: "[1, 2]", "not_json", None),
    Probe(
        "NaN style count",
        _set("conv_metadata.header_count_a.h2", float("nan")),
        "bad_number",
        "conv_metadata.header_count_a.h2",
    ),
    Probe(
        "inf token length",
        _set("conv_metadata.sum_assistant_b_tokens", float("inf")),
        "bad_number",
        "conv_metadata.sum_assistant_b_tokens",
    ),
    Probe(
        "bool as number",
        _set("conv_metadata.bold_count_a.**", True),
        "bad_number",
        "conv_metadata.bold_count_a.**",
    ),
    Probe("string tstamp", _set("tstamp", "yesterday"), "bad_number", "tstamp"),
    Probe("string anony", _set("anony", "false"), "bad_flag", "anony"),  # would count as true
    Probe("null anony", _set("anony", None), "bad_flag", "anony"),  # would drop the battle
]

VERDICT_PROBES = [
    Probe("model is baseline", _set("model", BASELINE), "self_battle", "model"),
    Probe("null model", _set("model", None), "missing_model", "model"),
    Probe(
        "inf token length",
        _set("model_metadata.token_len", float("inf")),
        "bad_number",
        "model_metadata.token_len",
    ),
    Probe(  # a boolean is a count to every verdict reference (test_odd_count_values)
        "string as number",
        _set("baseline_metadata.list_count.ordered", "3"),
        "bad_number",
        "baseline_metadata.list_count.ordered",
    ),
    Probe("three games", lambda r: {**r, "games": r["games"] * 2}, "bad_games", "games"),
    Probe("not JSON", lambda r: "NaN]", "not_json", None),
]


def _write(path: Path, rows: list[Row | str]) -> Path:
    """JSON lines (a str row is written as is); json.dumps writes NaN / Infinity literals."""
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n",
        encoding="utf-8",
    )
    return path


def _files(tmp_path: Path, rows: list[Row], probe: Probe) -> tuple[Path, Path]:
    """(the clean file, the same with a bad row inserted at BAD_LINE)."""
    bad = probe.bad(rows[BAD_LINE - 1])
    mixed: list[Row | str] = [*rows[: BAD_LINE - 1], bad, *rows[BAD_LINE - 1 :]]
    return _write(tmp_path / "clean.jsonl", list(rows)), _write(tmp_path / "bad.jsonl", mixed)


def _cli(command: str, file: Path, out: Path, *flags: str) -> int:
    extra = ["--baseline", BASELINE] if command == "verdicts" else []
    argv = ["ratings", command, str(file), *extra, "--bootstrap", "5", "--style-control"]
    return main([*argv, *flags, "--out", str(out)])


def _without_skipped(board: dict[str, Any]) -> dict[str, Any]:
    return {**board, "settings": {k: v for k, v in board["settings"].items() if k != "skipped"}}


def _assert_names(message: str, where: str, probe: Probe) -> None:
    assert where in message
    assert f"({probe.reason})" in message
    if probe.field is not None:
        assert f"field {probe.field!r}" in message


@pytest.mark.parametrize(
    ("command", "rows", "probe"),
    [("battles", BATTLES, p) for p in BATTLE_PROBES]
    + [("verdicts", VERDICTS, p) for p in VERDICT_PROBES],
    ids=lambda value: value.name if isinstance(value, Probe) else None,
)
def test_cli_stops_or_skips_and_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, rows: list[Row], probe: Probe
) -> None:
    clean, bad = _files(tmp_path, rows, probe)
    out = tmp_path / "board.json"

    assert _cli(command, bad, out) == 2
    _assert_names(capsys.readouterr().err, f"{bad} line {BAD_LINE}", probe)
    assert not out.exists()

    assert _cli(command, bad, out, "--skip-bad-rows") == 0
    printed = capsys.readouterr()
    assert f"skipped 1 bad rows ({probe.reason} 1)" in printed.out
    _assert_names(printed.err, f"{bad} line {BAD_LINE}", probe)
    skipped = json.loads(out.read_text())

    assert _cli(command, clean, out) == 0
    reference = json.loads(out.read_text())
    assert skipped["settings"]["skipped"] == {probe.reason: 1}
    assert reference["settings"]["skipped"] == {}
    assert _without_skipped(skipped) == _without_skipped(reference)


@pytest.mark.parametrize("probe", BATTLE_PROBES, ids=lambda p: p.name)
def test_battle_functions_name_the_row_or_count_it(tmp_path: Path, probe: Probe) -> None:
    clean, bad = _files(tmp_path, BATTLES, probe)
    with pytest.raises(BadRowError) as raised:
        read_battle_records(bad, style=True)
    error = raised.value
    assert (error.reason, error.field, error.place and error.place.line) == (
        probe.reason,
        probe.field,
        BAD_LINE,
    )
    checked = read_battle_records(bad, style=True, skip_bad_rows=True)
    assert checked.skipped == {probe.reason: 1}
    assert checked.rows == read_battle_records(clean, style=True).rows

    settings = BattleSettings(rounds=5)
    bad_row: Any = probe.bad(BATTLES[BAD_LINE - 1])
    if isinstance(bad_row, str):  # in memory, not JSON means not a mapping
        bad_row = [bad_row]
    mixed = [*BATTLES[: BAD_LINE - 1], bad_row, *BATTLES[BAD_LINE - 1 :]]
    with pytest.raises(BadRowError, match=f"^index {BAD_LINE - 1}: "):
        battle_board(mixed, settings, style_companion=True)
    board = battle_board(mixed, settings, style_companion=True, skip_bad_rows=True)
    assert board.skipped_rows == {probe.reason: 1}
    expected = battle_board(BATTLES, settings, style_companion=True)
    assert _without_skipped(board.to_json()) == _without_skipped(expected.to_json())


@pytest.mark.parametrize("probe", VERDICT_PROBES, ids=lambda p: p.name)
def test_verdict_functions_name_the_row_or_count_it(tmp_path: Path, probe: Probe) -> None:
    clean, bad = _files(tmp_path, VERDICTS, probe)
    with pytest.raises(BadRowError) as raised:
        read_verdict_file(bad, BASELINE)
    error = raised.value
    assert (error.reason, error.field) == (probe.reason, probe.field)
    assert str(error).startswith(f"{bad} line {BAD_LINE}: ")
    checked = read_verdict_file(bad, BASELINE, skip_bad_rows=True)
    assert checked.skipped == {probe.reason: 1}
    assert checked.rows == read_verdict_file(clean, BASELINE).rows
    settings = VerdictSettings(baseline=BASELINE, rounds=5)
    assert verdict_board(checked.rows, settings) == verdict_board(
        [verdict_record_from_dict(row) for row in VERDICTS], settings
    )


def test_line_numbers_count_blank_lines_and_arrays_name_the_index(tmp_path: Path) -> None:
    text = "\n".join(json.dumps(r) for r in BATTLES[:3]) + "\n\n\nnot json\n"
    with pytest.raises(BadRowError, match=r"jsonl line 6: not JSON"):
        read_battle_records(_write(tmp_path / "a.jsonl", [text.rstrip("\n")]))
    array = tmp_path / "a.json"
    array.write_text(json.dumps([BATTLES[0], {**BATTLES[1], "model_a": None}]), encoding="utf-8")
    with pytest.raises(BadRowError, match=r"a\.json index 1: field 'model_a': null"):
        read_battle_records(array)
    array.write_text("[{", encoding="utf-8")
    with pytest.raises(ValueError, match="a.json: not a JSON array"):
        read_battle_records(array, skip_bad_rows=True)


def test_a_csv_table_is_refused_with_the_formats_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A battles table saved as CSV is named as a table, not as 'line 1: not JSON', and the
    error says which formats are read; a `.csv` file that holds JSON lines is still read."""
    table = tmp_path / "battles.csv"
    table.write_text("model_a,model_b,winner\na,b,model_a\n", encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"battles\.csv: a \.csv table is not read here; give JSON"
    ):
        read_battle_records(table, skip_bad_rows=True)
    refused = main(["ratings", "battles", str(table), "--out", str(tmp_path / "b.json")])
    assert refused == 2 and "a .csv table is not read here" in capsys.readouterr().err
    table.write_text("\n".join(json.dumps(r) for r in BATTLES[:3]), encoding="utf-8")
    assert len(read_battle_records(table).rows) == 3


def test_every_reason_is_counted_and_the_result_dataset_keeps_the_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows: list[Row | str] = [
        *BATTLES[:50],
        {**BATTLES[50], "winner": "banana"},
        {**BATTLES[51], "model_b": None},
        {**BATTLES[52], "model_b": BATTLES[52]["model_a"]},
        "oops",
        {**BATTLES[53], "tstamp": float("nan")},
        *BATTLES[54:],
    ]
    file = _write(tmp_path / "mixed.jsonl", rows)
    folder = tmp_path / "result"
    argv = ["ratings", "battles", str(file), "--bootstrap", "5", "--skip-bad-rows"]
    assert main([*argv, "--categories", "ocr", "--result-dir", str(folder)]) == 0
    expected = {"not_json": 1, "missing_model": 1, "self_battle": 1, "bad_winner": 1}
    expected["bad_number"] = 1
    assert "skipped 5 bad rows" in capsys.readouterr().out
    summary = load_folder(folder, "summary")[0]
    board = RatingBoard.from_json(summary["board"])
    assert board.skipped_rows == expected
    assert list(board.skipped_rows) == list(expected)  # in the reasons' documented order
    kept_anonymous = sum(r["anony"] for r in BATTLES[:50] + BATTLES[54:])  # the board's rows
    assert summary["n_rows"] == kept_anonymous == load_folder(folder, "details").num_rows


def test_a_label_less_judgment_is_unparseable_not_a_bad_row(tmp_path: Path) -> None:
    row = {**VERDICTS[0], "games": [{"judgment": None}, {"judgment": "no verdict here"}]}
    checked = read_verdict_file(_write(tmp_path / "v.jsonl", [row, *VERDICTS[1:]]), BASELINE)
    assert checked.skipped == {} and len(checked.rows) == len(VERDICTS)
    settings = VerdictSettings(baseline=BASELINE, rounds=5)
    before = verdict_board([verdict_record_from_dict(row) for row in VERDICTS], settings)
    board = verdict_board(checked.rows, settings)
    assert board.unparseable == before.unparseable + 2
    assert board.excluded["no_judgment"] == before.excluded.get("no_judgment", 0) + 1


def test_evaluate_module_names_the_item_and_field() -> None:
    evaluate = pytest.importorskip("evaluate")
    module = Path(__file__).resolve().parents[2] / "evaluate_metrics" / "arena_ratings"
    metric = evaluate.load(str(module), "bt")
    good = {"model_a": ["x", "y", "x"], "model_b": ["y", "z", "z"], "winner": ["model_a"] * 3}
    bad_items: list[tuple[dict[str, Any], str]] = [
        ({"winner": ["model_a", "banana", "tie"]}, "winner"),
        ({"model_b": ["y", None, "z"]}, "model_b"),
        ({"model_b": ["y", "y", "z"]}, "model_b"),
        ({"weight": [1.0, float("nan"), 1.0]}, "weight"),
        ({"weight": [1.0, True, 1.0]}, "weight"),
    ]
    for change, field in bad_items:
        with pytest.raises(ValueError, match=f"^index 1: field '{field}'"):
            metric.compute(**{**good, **change}, rounds=3)
    assert set(metric.compute(**good, rounds=3)["models"]) == {"x", "y", "z"}


def test_columns_are_checked_like_records() -> None:
    with pytest.raises(BadRowError, match="^index 2: field 'winner'"):
        battles_from_columns(["a", "b", "a"], ["b", "c", "c"], ["tie", "model_a", None])
    with pytest.raises(ValueError, match="columns"):
        battles_from_columns(["a"], ["b", "c"], ["tie"])


# Fits that cannot happen raise FitError instead of leaving every model at its start (1000).


def _styled(style_a: np.ndarray, style_b: np.ndarray) -> Battles:
    return Battles.from_names(
        ["x", "y", "x", "z"], ["y", "z", "z", "y"], [1, 0.5, 0, 1], style_a=style_a, style_b=style_b
    )


STYLE_A = np.array([[100, 1, 0, 2], [50, 0, 1, 0], [70, 2, 0, 1], [30, 0, 0, 0]], float)
STYLE_B = np.array([[80, 0, 1, 0], [90, 1, 0, 1], [60, 0, 0, 0], [40, 1, 2, 0]], float)


def test_nan_style_count_in_code_built_battles_raises() -> None:
    style_a = STYLE_A.copy()
    style_a[2, 1] = np.nan
    with pytest.raises(FitError, match="row 2, column 1 is nan"):
        bootstrap_style_control(_styled(style_a, STYLE_B), rounds=3)
    bootstrap_style_control(_styled(STYLE_A, STYLE_B), rounds=3)  # the clean one fits


def test_a_style_feature_that_never_varies_raises_and_drops_only_the_style_twin() -> None:
    style_a, style_b = STYLE_A.copy(), STYLE_B.copy()
    style_a[:, 3] = style_b[:, 3] = 0  # nobody writes bold
    with pytest.raises(FitError, match="'bold' is the same for every battle"):
        bootstrap_style_control(_styled(style_a, style_b), rounds=3)

    records = copy.deepcopy(BATTLES)
    humor = [r for r in records if r["category_tag"]["humor_v0.1"]["humor"]]
    assert len(humor) >= 2
    for record in humor:
        record["conv_metadata"] = humor[0]["conv_metadata"]
    board = battle_board(
        records, BattleSettings(rounds=5), categories=["humor", "ocr"], style_companion=True
    )
    humor_board = board.categories["humor"]  # its plain ratings stand; the twin is named gone
    assert humor_board.style_control is None
    assert "cannot be standardised" in humor_board.settings.extra["style_control_skipped"]
    assert board.categories["ocr"].style_control is not None
    assert board.skipped_categories == {}
    with pytest.raises(FitError, match="cannot be standardised"):  # asked for directly: raises
        battle_board(records, BattleSettings(rounds=5, category="humor", style_control=True))


def test_nan_outcome_raises() -> None:
    battles = Battles.from_names(["x", "y"], ["y", "x"], [1.0, np.nan])
    with pytest.raises(FitError, match="outcome at row 1 is nan"):
        bootstrap_bt(battles, rounds=3)


def test_an_optimiser_that_does_not_move_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b, outcome = [0, 0, 1, 0], [1, 2, 2, 1], [1.0, 1.0, 1.0, 0.0]

    def no_decrease(d: Any, theta: Any, rows: Any, *args: Any) -> Any:
        return rows  # every backtracking search fails: the fit stays at its start

    monkeypatch.setattr(_newton, "_line_search", no_decrease)
    with pytest.raises(FitError, match="did not move from its start"):
        fit_bt(a, b, outcome, n_models=3)


def test_a_start_that_is_already_optimal_is_not_a_stall() -> None:
    # one win each way: the MLE is the start itself, and the fit takes no step
    ratings = fit_bt([0, 1], [1, 0], [1.0, 1.0], models=("x", "y"))
    assert ratings.tolist() == [1000.0, 1000.0]
