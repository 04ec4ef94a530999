"""`vlmscope compare` compares MEGA-Bench's single-image overall, Core and Open beside the full
benchmark's, by the same paired bootstrap run over the single-image tasks, and says why the rows
are empty for summaries written before the subset's intervals were recorded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from tests.compare.conftest import COIN, ORACLE
from tests.leaderboard.broken import rewrite_summary, set_column
from vlmscope.cli import main
from vlmscope.leaderboard.compare.megabench_single_image import LABEL, LABELS
from vlmscope.leaderboard.headline_intervals import OLD_SINGLE_IMAGE, OLD_SUMMARY
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.tracks.megabench.intervals import SINGLE_IMAGE_KEY


def _compare(results: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Any]:
    shown, numbers = compare_single_image(results, out, capsys)
    return shown, numbers[LABEL]


def compare_single_image(
    results: Path,
    out: Path,
    capsys: pytest.CaptureFixture[str],
    models: tuple[str, str] = (ORACLE, COIN),
) -> tuple[str, dict[str, Any]]:
    """`vlmscope compare` of MEGA-Bench: what it prints, and its JSON rows by label, the
    single-image rows next after overall, Core and Open."""
    argv = ["compare", str(results), *models, "--track", "megabench", "--rounds", "200"]
    assert main([*argv, "--out", str(out)]) == 0
    (pair,) = json.loads(out.read_text(), parse_constant=_no_nan)["tracks"][0]["pairs"]
    labels = [n["label"] for n in pair["numbers"]]
    assert labels[:6] == ["overall", "Core", "Open", *LABELS.values()]
    return capsys.readouterr().out, {n["label"]: n for n in pair["numbers"][:6]}


def shown_row(shown: str, label: str) -> str:
    """The terminal table's row of `label`."""
    (row,) = [line for line in shown.splitlines() if line.strip().startswith(f"{label} ")]
    return row


def _no_nan(constant: str) -> None:
    raise AssertionError(f"the comparison's JSON holds {constant}")


def test_the_single_image_overall_is_compared_paired(
    compare_results: Path,
    compare_store: ResultStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown, number = _compare(compare_results, tmp_path / "comparison.json", capsys)
    a, b = (compare_store.summary("megabench", m).scores for m in (ORACLE, COIN))
    assert a["single_image_overall"] != a["overall"]  # the subset's own number, not the full one
    assert (number["section"], number["note"]) == ("", "")
    assert (number["a"], number["b"]) == pytest.approx(
        (a["single_image_overall"], b["single_image_overall"]), abs=1e-12
    )
    estimate = number["estimate"]
    assert estimate["value"] == pytest.approx(number["a"] - number["b"], abs=1e-12)
    assert estimate["lower"] <= estimate["value"] <= estimate["upper"]
    assert estimate["lower"] > 0 and estimate["p_value"] < 0.05  # the oracle is ahead, really
    # each model's own value lies in the interval its summary records for the subset
    for own, value in ((a, number["a"]), (b, number["b"])):
        lower, upper = own["intervals"][SINGLE_IMAGE_KEY]["overall"]
        assert lower <= value <= upper
    row = next(line for line in shown.splitlines() if line.strip().startswith(LABEL))
    assert f"{100 * number['a']:.2f}" in row and f"+{100 * estimate['value']:.2f} [" in row
    assert "over the single-image tasks alone" in shown


def test_the_single_image_core_and_open_are_compared_paired(
    compare_results: Path,
    compare_store: ResultStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown, numbers = compare_single_image(compare_results, tmp_path / "comparison.json", capsys)
    a, b = (compare_store.summary("megabench", m).scores for m in (ORACLE, COIN))
    for key in ("core", "open"):
        number = numbers[LABELS[key]]
        assert (number["section"], number["note"]) == ("", "")
        # each summary's subset Core / Open (these models score the same on the subset as on
        # the full sets; test_single_image_sets_cli.py compares runs where the two differ)
        own = [s["single_image"]["model_summary"][key]["macro_mean_score"] for s in (a, b)]
        assert (number["a"], number["b"]) == pytest.approx(own, abs=1e-12)
        estimate = number["estimate"]
        assert estimate["value"] == pytest.approx(number["a"] - number["b"], abs=1e-12)
        assert estimate["lower"] <= estimate["value"] <= estimate["upper"]
        for summary, value in ((a, number["a"]), (b, number["b"])):
            lower, upper = summary["intervals"][SINGLE_IMAGE_KEY][key]
            assert lower <= value <= upper
        row = shown_row(shown, LABELS[key])
        assert f"{100 * number['a']:.2f}" in row and f"{100 * estimate['value']:+.2f} [" in row


def test_older_summaries_say_why_the_row_is_empty(
    compare_results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    shutil.copytree(compare_results, results)
    store = ResultStore(ResultsLocation.local(results))
    # the oracle's summary from before the subset's intervals, the coin's from before any
    for model, drop in ((ORACLE, SINGLE_IMAGE_KEY), (COIN, None)):
        record = store.summary("megabench", model)
        scores = dict(record.scores)
        if drop is None:
            del scores["intervals"]
        else:
            scores["intervals"] = {k: v for k, v in scores["intervals"].items() if k != drop}
        rewrite_summary(record.folder, set_column("scores", json.dumps(scores), pa.string()))
    shown, numbers = compare_single_image(results, tmp_path / "comparison.json", capsys)
    for label in LABELS.values():  # overall, Core and Open alike
        number = numbers[label]
        assert (number["a"], number["b"], number["estimate"]) == (None, None, None)
        assert number["note"] == f"{ORACLE}: {OLD_SINGLE_IMAGE}; {COIN}: {OLD_SUMMARY}"
        assert f"n/a ({ORACLE}: " in shown_row(shown, label)
    overall = next(line for line in shown.splitlines() if line.strip().startswith("overall"))
    assert "n/a" not in overall  # the full benchmark's overall is still compared
