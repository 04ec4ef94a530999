"""Bootstrap of the Core score over the number of examples per task (paper Sec. 4.3)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from tests.megabench.golden_json import AGGREGATION, load
from vlmscope.tracks.megabench.bootstrap import (
    DEFAULT_NUM_DRAWS,
    DEFAULT_SAMPLE_SIZES,
    bootstrap_core_scores,
    format_bootstrap_report,
    query_scores_by_task,
    summarize_bootstrap,
)

TASKS = {
    "a": [1.0, 0.0, 1.0, 1.0, 0.5],
    "b": [0.2, 0.9, -1, 0.4],
    "c": [0.0, 0.0, 1.0, math.nan, 0.3, 0.6, 0.1],
}


def test_defaults_follow_the_paper() -> None:
    assert DEFAULT_SAMPLE_SIZES == (3, 5, 7, 9, 11, 13, 15)
    assert DEFAULT_NUM_DRAWS == 10_000
    distributions = bootstrap_core_scores(TASKS, rng=np.random.default_rng(0))
    assert sorted(distributions) == list(DEFAULT_SAMPLE_SIZES)
    assert all(scores.shape == (10_000,) for scores in distributions.values())


def test_same_seed_same_draws_and_a_reference_loop_agrees() -> None:
    first = bootstrap_core_scores(
        TASKS, rng=np.random.default_rng(7), sample_sizes=(3, 5), num_draws=50
    )
    again = bootstrap_core_scores(
        TASKS, rng=np.random.default_rng(7), sample_sizes=(3, 5), num_draws=50
    )
    other = bootstrap_core_scores(
        TASKS, rng=np.random.default_rng(8), sample_sizes=(3, 5), num_draws=50
    )
    assert all(np.array_equal(first[n], again[n]) for n in (3, 5))
    assert not np.array_equal(first[3], other[3])

    rng = np.random.default_rng(7)
    for size in (3, 5):
        task_means = []
        for scores in TASKS.values():
            picks = rng.integers(0, len(scores), size=(50, size))
            counted = [
                [max(scores[i], 0.0) if scores[i] == scores[i] else 0.0 for i in row]
                for row in picks
            ]
            task_means.append([sum(row) / size for row in counted])
        expected = [sum(column) / len(TASKS) for column in zip(*task_means, strict=True)]
        np.testing.assert_allclose(first[size], expected, rtol=0, atol=1e-12)


def test_negative_and_nan_queries_count_as_zero() -> None:
    distributions = bootstrap_core_scores(
        {"x": [-1, -1], "y": [math.nan], "z": [0.5]}, rng=np.random.default_rng(0), num_draws=20
    )
    for scores in distributions.values():
        np.testing.assert_allclose(scores, 0.5 / 3)


def test_spread_shrinks_like_one_over_root_n() -> None:
    generator = np.random.default_rng(1)
    tasks = {f"t{i}": generator.random(15).tolist() for i in range(40)}
    distributions = bootstrap_core_scores(tasks, rng=np.random.default_rng(2), num_draws=4000)
    point = np.mean([np.mean(scores) for scores in tasks.values()])
    per_task_variance = sum(np.var(scores) for scores in tasks.values())
    for summary in summarize_bootstrap(distributions):
        expected_std = math.sqrt(per_task_variance / summary.sample_size) / len(tasks)
        assert summary.mean == pytest.approx(point, abs=4 * expected_std / math.sqrt(4000))
        assert summary.std == pytest.approx(expected_std, rel=0.06)
        assert summary.low < summary.mean < summary.high


def test_core_tasks_are_read_from_a_scored_file() -> None:
    rule = load(AGGREGATION / "pipeline_example" / "expected" / "data_with_scores.json")
    judged = load(AGGREGATION / "pipeline_example" / "inputs" / "data_with_scores_open.json")
    core = query_scores_by_task(rule)
    assert len(core) == 24
    assert core["interpret_force_perspective_illusion"] == [1.0, 0.0, 0.0]
    assert query_scores_by_task(judged) == {}
    assert query_scores_by_task(judged, eval_type="llm") == {"unusual_images": [0.9, 0.1, 0.6]}


def test_report_and_bad_inputs() -> None:
    distributions = bootstrap_core_scores(
        TASKS, rng=np.random.default_rng(0), sample_sizes=(3, 15), num_draws=100
    )
    report = format_bootstrap_report(summarize_bootstrap(distributions))
    lines = report.splitlines()
    assert lines[0].startswith("| n per task | mean | std | 95% low")
    assert [line.split("|")[1].strip() for line in lines[2:]] == ["3", "15"]
    with pytest.raises(ValueError, match="without query scores"):
        bootstrap_core_scores({"a": []}, rng=np.random.default_rng(0))
    with pytest.raises(ValueError):
        bootstrap_core_scores({}, rng=np.random.default_rng(0))


def test_bootstrap_command_prints_a_row_per_size(tmp_path, capsys):
    from vlmscope.cli.megabench import main

    source = (
        Path(__file__).parents[1]
        / "golden"
        / "megabench_aggregation"
        / "pipeline_example"
        / "expected"
        / "data_with_scores.json"
    )
    out = tmp_path / "boot.json"
    assert (
        main(["bootstrap", str(source), "--sizes", "3", "15", "--draws", "500", "--out", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "| 3 |" in printed and "| 15 |" in printed
    rows = json.loads(out.read_text())
    assert [r["sample_size"] for r in rows] == [3, 15]
    assert rows[1]["std"] < rows[0]["std"]  # more examples per task, less spread
