"""`vlmscope probench agreement labels|boards` on small files written in tmp_path: the printed
table, the JSON, and bad input rows named by file, line and field (exit status 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.ratings.test_judge_agreement import (
    FLIPPED_MODEL,
    mirror_verdict_row,
    verdict,
    write_lines,
)
from tests.ratings.verdict_golden import BASELINE, VERDICTS_FILE
from vlmscope.cli import main

MODEL = "m"


def verdict_row(uid: str, first: str | None, second: str | None) -> dict[str, Any]:
    """A ProBench judgment row: "1" shows the baseline as A, "0" the model; no baseline named."""
    return {"uuid": uid, "model": MODEL, "1": {"judgment": first}, "0": {"judgment": second}}


def label_row(uid: str, game: str, label: str) -> dict[str, Any]:
    return {"uid": uid, "model": MODEL, "game": game, "label": label}


VERDICT_ROWS = [
    verdict_row("u1", verdict("A>>B"), verdict("B>A")),
    verdict_row("u2", verdict("A=B"), "no verdict"),
    verdict_row("u3", verdict("B>>A"), verdict("A>B")),
]
LABEL_ROWS = [
    label_row("u1", "baseline_first", "A>B"),  # judge A>>B: direction only
    label_row("u1", "0", "B>A"),  # model as A, judge B>A: exact
    label_row("u2", "1", "A=B"),  # judge A=B: exact
    label_row("u2", "model_first", "A=B"),  # judge gave no label: unparseable
    label_row("u3", "baseline_first", "A>B"),  # judge B>>A: neither
    label_row("u3", "model_first", "A>>B"),  # judge A>B: direction only
    label_row("u4", "1", "A>B"),  # no verdict record
]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["probench", "agreement", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_labels_prints_and_writes_both_rates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    verdicts = write_lines(tmp_path / "judgments.jsonl", VERDICT_ROWS)
    labels = write_lines(tmp_path / "labels.jsonl", LABEL_ROWS)
    out = tmp_path / "agreement.json"
    argv = ["labels", "--verdicts", str(verdicts), "--labels", str(labels), "--out", str(out)]
    code, printed, _ = run(argv, capsys)
    assert code == 0
    assert (
        "7 labels, 5 compared; left out: 1 with an unparseable judge verdict (no_label 1), "
        in printed
    )
    assert "1 without a verdict record" in printed
    assert "exact agreement (same of the 5 labels):            40.0%  (2/5)" in printed
    assert "direction agreement (A better / tie / B better):   80.0%  (4/5)" in printed
    table = {line.split()[0]: line.split()[1:] for line in printed.splitlines()[-7:-1]}
    assert table["human\\judge"] == ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
    assert table["A>B"] == ["1", "0", "0", "0", "1"]  # the judge said A>>B once, B>>A once
    assert table["A>>B"] == ["0", "1", "0", "0", "0"]
    result = json.loads(out.read_text())
    assert result["exact_agreement"] == pytest.approx(0.4)
    assert result["direction_agreement"] == pytest.approx(0.8)
    assert (result["labels"], result["compared"], result["without_record"]) == (7, 5, 1)
    assert result["unparseable_by_reason"] == {"no_label": 1}
    assert result["confusion"]["A>B"] == {"A>>B": 1, "A>B": 0, "A=B": 0, "B>A": 0, "B>>A": 1}
    assert result["inputs"] == {"verdicts": [str(verdicts)], "labels": str(labels)}


def test_a_bad_label_row_stops_with_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    verdicts = write_lines(tmp_path / "judgments.jsonl", VERDICT_ROWS)
    labels = write_lines(tmp_path / "labels.jsonl", [LABEL_ROWS[0], label_row("u2", "1", "A=b")])
    out = tmp_path / "agreement.json"
    argv = ["labels", "--verdicts", str(verdicts), "--labels", str(labels), "--out", str(out)]
    code, printed, error = run(argv, capsys)
    assert (code, printed) == (2, "")
    assert f"{labels} line 2: field 'label': 'A=b' is not one of" in error
    assert not out.exists()


def test_a_bad_verdict_row_stops_with_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [*VERDICT_ROWS, {**VERDICT_ROWS[0], "model": None}]
    verdicts = write_lines(tmp_path / "judgments.jsonl", rows)
    labels = write_lines(tmp_path / "labels.jsonl", LABEL_ROWS)
    code, _, error = run(["labels", "--verdicts", str(verdicts), "--labels", str(labels)], capsys)
    assert code == 2
    assert f"{verdicts} line 4: field 'model': null" in error


def test_boards_compare_two_fitted_probench_boards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = VERDICTS_FILE.read_text(encoding="utf-8").splitlines()
    rows = [mirror_verdict_row(json.loads(line)) for line in lines if line.strip()]
    x = write_lines(tmp_path / "x.jsonl", lines)
    y = write_lines(tmp_path / "y.jsonl", rows)
    out = tmp_path / "boards.json"
    argv = ["boards", "--verdicts", str(x), "--verdicts-y", str(y), "--rounds", "100"]
    code, printed, _ = run([*argv, "--out", str(out)], capsys)
    assert code == 0
    # Worked out in tests/ratings/test_judge_agreement.py: rho -0.2, tau 0 without the baseline.
    assert f"board agreement over 4 shared models; left out, pinned on both: {BASELINE}" in printed
    assert "spearman -0.200  kendall tau 0.000" in printed
    assert "yi-vl-11b-00" in printed and "1574 [1536, 1636]" in printed
    result = json.loads(out.read_text())
    assert result["spearman"] == pytest.approx(-0.2)
    assert result["kendall_tau"] == pytest.approx(0.0, abs=1e-12)
    assert result["excluded"] == [BASELINE]
    assert FLIPPED_MODEL in result["models"] and BASELINE not in result["models"]
    assert result["boards"]["x"]["settings"]["reference"] == "probench"
    assert result["boards"]["y"]["models"][FLIPPED_MODEL]["rating"] < 867

    code, printed, _ = run([*argv, "--keep-pinned"], capsys)
    assert code == 0
    assert "board agreement over 5 shared models" in printed
    assert "spearman 0.000" in printed


def test_boards_against_the_same_file_agree_fully(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["boards", "--verdicts", str(VERDICTS_FILE), "--verdicts-y", str(VERDICTS_FILE)]
    code, printed, _ = run([*argv, "--bootstrap", "20", "--seed", "7"], capsys)
    assert code == 0
    assert "spearman 1.000  kendall tau 1.000" in printed


def test_boards_with_a_baseline_the_rows_contradict_fail_cleanly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["boards", "--verdicts", str(VERDICTS_FILE), "--verdicts-y", str(VERDICTS_FILE)]
    code, _, error = run([*argv, "--baseline-y", "someone-else"], capsys)
    assert code == 2
    assert "baseline: records are judged against gpt-4o-2024-05-13" in error


def test_help_names_both_readings(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["probench", "agreement", "labels", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "exact agreement" in text and "direction agreement" in text
    assert "--verdicts" in text and "--labels" in text
