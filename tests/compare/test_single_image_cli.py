"""`vlmscope compare` compares MEGA-Bench's single-image overall beside the full benchmark's,
by the same paired bootstrap run over the single-image tasks, and says why the row is empty for
summaries written before the subset's intervals were recorded."""

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
from vlmscope.leaderboard.compare.megabench_single_image import LABEL
from vlmscope.leaderboard.headline_intervals import OLD_SINGLE_IMAGE, OLD_SUMMARY
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.tracks.megabench.intervals import SINGLE_IMAGE_KEY


def _compare(results: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, Any]:
    argv = ["compare", str(results), ORACLE, COIN, "--track", "megabench", "--rounds", "200"]
    assert main([*argv, "--out", str(out)]) == 0
    (pair,) = json.loads(out.read_text())["tracks"][0]["pairs"]
    (number,) = [n for n in pair["numbers"] if n["label"] == LABEL]
    return capsys.readouterr().out, number


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
    shown, number = _compare(results, tmp_path / "comparison.json", capsys)
    assert (number["a"], number["b"], number["estimate"]) == (None, None, None)
    assert number["note"] == f"{ORACLE}: {OLD_SINGLE_IMAGE}; {COIN}: {OLD_SUMMARY}"
    row = next(line for line in shown.splitlines() if line.strip().startswith(LABEL))
    assert f"n/a ({ORACLE}: " in row
    overall = next(line for line in shown.splitlines() if line.strip().startswith("overall"))
    assert "n/a" not in overall  # the full benchmark's overall is still compared
