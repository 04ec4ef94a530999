"""`vlmscope compare` of MEGA-Bench runs whose shared queries leave the single-image rows without
a number: a run of Core only or Open only against a full run (one set of the subset shared), and
a run of no single-image task at all (none of the subset shared). Each row without a number says
why, in the terminal table and the JSON; no number is NaN and nothing fails.

Every run is a real `vlmscope run` (the builder configs `core` and `open`, and a data folder whose
Core config holds only the sample's multi-image and video tasks) against the full run of the
oracle, the coin backend answering. No judge is configured, so the judged Open task scores 0 for
both (a difference of exactly 0); the Core tasks are scored by rule, where the oracle is ahead.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from tests.compare.test_single_image_cli import compare_single_image, shown_row
from tests.leaderboard import fabricate
from vlmscope.leaderboard.compare.megabench_single_image import EMPTY, LABELS, NOT_SHARED
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.tracks.megabench.keywords import load_task_meta
from vlmscope.tracks.megabench.single_image import SINGLE_IMAGE_NUM_INPUT
from vlmscope.tracks.shipped_samples import sample_dir

ORACLE, CORE_ONLY, OPEN_ONLY, NO_SINGLE_IMAGE = "oracle", "coin-core", "coin-open", "coin-no-si"
OPTIONS = {"cot": "with", "max_new_tokens": 24}


def _without_single_image_tasks(folder: Path) -> Path:
    """The shipped sample with only its Core tasks that take more than one image (or a video)."""
    shutil.copytree(sample_dir("megabench"), folder)
    meta = load_task_meta(folder / "all_task_meta.json")
    (path,) = (folder / "core").glob("test-*.parquet")
    table = pq.read_table(path)
    names = table["task_name"].to_pylist()
    keep = [
        name not in meta or meta[name].get("num_input") != SINGLE_IMAGE_NUM_INPUT for name in names
    ]
    assert 0 < sum(keep) < len(keep)
    pq.write_table(table.filter(pc.cast(keep, "bool")), path)
    return folder


@pytest.fixture(scope="module")
def partial_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle's full run beside the coin's partial ones, in one results folder."""
    base = tmp_path_factory.mktemp("partial")
    out = base / "results"
    no_single_image = _without_single_image_tasks(base / "no_single_image_data")
    runs: list[tuple[str, dict[str, Any]]] = [
        (ORACLE, {"backend": "oracle"}),
        (CORE_ONLY, {"backend": "coin", "name": CORE_ONLY, "subset": "core"}),
        (OPEN_ONLY, {"backend": "coin", "name": OPEN_ONLY, "subset": "open"}),
        (
            NO_SINGLE_IMAGE,
            {
                "backend": "coin",
                "name": NO_SINGLE_IMAGE,
                "data_dir": str(no_single_image),
                "subset": "core",
            },
        ),
    ]
    for name, spec in runs:
        track = {"name": "megabench", "options": OPTIONS}
        track.update({k: spec.pop(k) for k in ("subset", "data_dir") if k in spec})
        run = out / name
        fabricate._run(
            fabricate._write_config(run, {"models": [spec], "tracks": [track]}), run, None
        )
    return out


@pytest.mark.parametrize(
    ("model", "shared", "missing", "difference"),
    [(CORE_ONLY, "core", "open", pytest.approx(1.0)), (OPEN_ONLY, "open", "core", 0.0)],
    ids=["core-only", "open-only"],
)
def test_a_run_of_one_set_compares_that_set_alone(
    partial_runs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    model: str,
    shared: str,
    missing: str,
    difference: Any,
) -> None:
    shown, numbers = compare_single_image(
        partial_runs, tmp_path / "c.json", capsys, (ORACLE, model)
    )
    store = ResultStore(ResultsLocation.local(partial_runs))
    oracle = store.summary("megabench", ORACLE).scores
    # the set both ran: each model's subset score of that set, paired
    number = numbers[LABELS[shared]]
    assert number["note"] == ""
    assert number["a"] == pytest.approx(
        oracle["single_image"]["model_summary"][shared]["macro_mean_score"], abs=1e-12
    )
    assert number["estimate"]["value"] == pytest.approx(number["a"] - number["b"], abs=1e-12)
    assert number["estimate"]["value"] == difference
    assert f"{100 * number['a']:.2f}" in shown_row(shown, LABELS[shared])
    # the set one of them did not run, and the overall that needs both: a reason each
    for key in (missing, "overall"):
        empty = numbers[LABELS[key]]
        assert (empty["a"], empty["b"], empty["estimate"]) == (None, None, None)
        assert empty["note"] == EMPTY[key]
        assert f"n/a ({EMPTY[key]})" in shown_row(shown, LABELS[key])
    assert "nan" not in shown.lower()


def test_runs_sharing_no_single_image_task_say_so(
    partial_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shown, numbers = compare_single_image(
        partial_runs, tmp_path / "c.json", capsys, (ORACLE, NO_SINGLE_IMAGE)
    )
    for label in LABELS.values():
        number = numbers[label]
        assert (number["a"], number["b"], number["estimate"]) == (None, None, None)
        assert number["note"] == NOT_SHARED
        assert f"n/a ({NOT_SHARED})" in shown_row(shown, label)
    # the full benchmark's Core is still compared over the tasks both ran
    core = numbers["Core"]
    assert core["note"] == "" and core["estimate"]["value"] == pytest.approx(
        core["a"] - core["b"], abs=1e-12
    )
    assert "nan" not in shown.lower()
