"""`vlmscope megabench score` over several models' response files in one process: each model's
three files are the ones a run on that model alone writes, in OUT/<model>."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from tests.megabench.golden_json import load
from tests.megabench.pipeline import INPUTS
from tests.megabench.test_rescore import assert_matches_pipeline_goldens
from vlmscope.cli.megabench_rescore import add_score, score_targets
from vlmscope.tracks.megabench.rescore import RescoreOutputs, TaskResult

FILES = ("data_with_scores.json", "task_results.json", "summary_and_keyword_stats.json")


def _score(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser()
    add_score(parser.add_subparsers())
    args = parser.parse_args(["score", *arguments])
    code: int = args.func(args)
    return code


def _written(folder: Path) -> RescoreOutputs:
    return RescoreOutputs(
        data_with_scores=load(folder / "data_with_scores.json"),
        task_results=[TaskResult.from_json(e) for e in load(folder / "task_results.json")],
        summary_and_keyword_stats=load(folder / "summary_and_keyword_stats.json"),
        problem_outcomes={},
    )


def test_two_models_in_one_process_write_what_each_alone_writes(tmp_path: Path) -> None:
    first = tmp_path / "results" / "model-one" / "all_query_responses.json"
    first.parent.mkdir(parents=True)
    shutil.copy(INPUTS / "all_query_responses.json", first)
    common = [
        "--samples",
        str(INPUTS / "task_samples.json"),
        "--extra-scored",
        str(INPUTS / "data_with_scores_open.json"),
    ]
    out = tmp_path / "out"
    assert (
        _score(
            [
                str(first),
                f"model-two={INPUTS / 'all_query_responses.json'}",
                *common,
                "--out",
                str(out),
            ]
        )
        == 0
    )
    alone = tmp_path / "alone"
    assert _score([str(first), *common, "--out", str(alone)]) == 0
    for model in ("model-one", "model-two"):
        assert_matches_pipeline_goldens(_written(out / model))
        for name in FILES:
            assert (out / model / name).read_bytes() == (alone / name).read_bytes()
    assert sorted(p.name for p in out.iterdir()) == ["model-one", "model-two"]


def test_targets_name_models_by_folder_or_by_name() -> None:
    out = Path("out")
    assert score_targets(["r/a.json"], out) == [(None, Path("r/a.json"), out)]
    assert score_targets(["x=r/a.json"], out) == [("x", Path("r/a.json"), out / "x")]
    assert score_targets(["m1/r.json", "m2/r.json"], out) == [
        ("m1", Path("m1/r.json"), out / "m1"),
        ("m2", Path("m2/r.json"), out / "m2"),
    ]
    with pytest.raises(ValueError, match="named twice"):
        score_targets(["same/r.json", "same/s.json"], out)
    with pytest.raises(ValueError, match="no model name"):
        score_targets(["=r.json", "b/r.json"], out)
