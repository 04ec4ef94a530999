"""A missing WordNet stops a MEGA-Bench run before any model is loaded, with the install command;
told to go on, the run says in its summary what was missing and what it affects."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import run_eval
from vlmscope.config import parse_config
from vlmscope.dependencies import MissingDependency
from vlmscope.hub_export import load_folder
from vlmscope.literals import python_literal
from vlmscope.metrics.megabench.lexicon import WORDNET_DIR_ENV
from vlmscope.runner.loop import run
from vlmscope.runner.results import result_dir
from vlmscope.sandbox import Isolation, SandboxUnavailable, requirements
from vlmscope.sandbox.requirements import missing_kernel_layers, sandbox_dependency

SAMPLE = Path(__file__).resolve().parents[2] / "vlmscope" / "samples" / "megabench"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """The shipped sample with its first Core task scored by `constrained_generation`."""
    return _scored_by(tmp_path / "data", "constrained_generation")


def _scored_by(data: Path, metric: str) -> Path:
    """A copy of the shipped sample at `data` whose first Core task is scored by `metric`."""
    shutil.copytree(SAMPLE, data)
    shard = next((data / "core").glob("test-*.parquet"))
    table = pq.read_table(shard)
    infos = [python_literal(text) for text in table.column("metric_info").to_pylist()]
    first_task = table.column("task_name")[0].as_py()
    for info, task in zip(infos, table.column("task_name").to_pylist(), strict=True):
        if task == first_task:
            info["field_score_function"] = dict.fromkeys(info["field_score_function"], metric)
    column = table.column_names.index("metric_info")
    table = table.set_column(column, "metric_info", pa.array([repr(info) for info in infos]))
    pq.write_table(table, shard)
    return data


@pytest.fixture
def config_for(data_dir):
    def make(out, **extra):
        return parse_config(
            {
                "output_dir": str(out),
                "limit": 1,
                "models": [{"backend": "oracle"}],
                "tracks": [{"name": "megabench", "subset": "core", "data_dir": str(data_dir)}],
                **extra,
            }
        )

    return make


def test_missing_wordnet_stops_the_run_with_the_install_command(tmp_path, monkeypatch, config_for):
    monkeypatch.setenv(WORDNET_DIR_ENV, str(tmp_path / "no-wordnet"))
    with pytest.raises(MissingDependency) as err:
        run(config_for(tmp_path / "out"))
    message = str(err.value)
    assert "WordNet noun files: index.noun, noun.exc not found in" in message
    assert "apt-get install wordnet-base" in message and "constrained_generation" in message
    assert not (tmp_path / "out" / "cache.sqlite").exists()  # nothing was asked


def test_the_command_line_says_so_and_exits_2(tmp_path, monkeypatch, capsys, data_dir):
    monkeypatch.setenv(WORDNET_DIR_ENV, str(tmp_path / "no-wordnet"))
    config = tmp_path / "run.yaml"
    config.write_text(
        "models: [{backend: oracle}]\n"
        f"tracks: [{{name: megabench, subset: core, data_dir: '{data_dir}'}}]\n"
    )
    assert run_eval.main(["--config", str(config), "--output-dir", str(tmp_path / "o")]) == 2
    assert "apt-get install wordnet-base" in capsys.readouterr().err


def test_allowed_to_go_on_the_summary_states_what_was_missing(tmp_path, monkeypatch, config_for):
    monkeypatch.setenv(WORDNET_DIR_ENV, str(tmp_path / "no-wordnet"))
    run(config_for(tmp_path / "out", allow_missing_dependencies=True))
    summary = load_folder(result_dir(tmp_path / "out", "oracle", "megabench", 1), "summary")[0]
    degraded = summary["scores"]["degraded"]
    assert [d["name"] for d in degraded] == ["WordNet noun files"]
    assert "constrained_generation" in degraded[0]["affects"]


def test_present_wordnet_needs_nothing(tmp_path, config_for):
    report = run(config_for(tmp_path / "out"))
    assert "degraded" not in report.tracks[0].summary


def _program_judge_data(tmp_path: Path) -> Path:
    """The shipped sample with its first Core task scored by `program_judge`."""
    return _scored_by(tmp_path / "pj-data", "program_judge")


def _weak_isolation() -> Isolation:
    return Isolation(
        namespaces=(),
        pid_namespace_init=False,
        uid=1000,
        drop_to_uid=None,
        seccomp=False,
        landlock=False,
        launcher=(),
    )


def test_a_sandbox_without_kernel_layers_stops_a_code_task_run(tmp_path, monkeypatch):
    monkeypatch.setattr(requirements, "_default_isolation", _weak_isolation)
    data = _program_judge_data(tmp_path)

    def config(**extra):
        return parse_config(
            {
                "output_dir": str(tmp_path / "out"),
                "limit": 1,
                "models": [{"backend": "oracle"}],
                "tracks": [{"name": "megabench", "subset": "core", "data_dir": str(data)}],
                **extra,
            }
        )

    with pytest.raises(MissingDependency) as err:
        run(config())
    message = str(err.value)
    assert "sandbox kernel isolation: network not blocked by the kernel" in message
    assert "no Landlock" in message and "Landlock enabled" in message
    assert "program_judge" in message
    assert not (tmp_path / "out" / "cache.sqlite").exists()

    run(config(allow_missing_dependencies=True))
    (row,) = load_folder(result_dir(tmp_path / "out", "oracle", "megabench", 1), "summary")
    (degraded,) = row["scores"]["degraded"]
    assert degraded["name"] == "sandbox kernel isolation" and "seccomp" in degraded["missing"]


def test_the_kernel_layers_this_machine_gives_are_reported():
    full = Isolation(("net", "pid"), True, 0, None, seccomp=True, landlock=True, launcher=())
    assert missing_kernel_layers(full) == []
    only_seccomp = Isolation((), False, 0, None, seccomp=True, landlock=False, launcher=())
    assert missing_kernel_layers(only_seccomp) == [
        "file writes not confined by the kernel (no Landlock)"
    ]
    dependency = sandbox_dependency(lambda: full)
    assert dependency.missing is None

    def refuses() -> Isolation:
        raise SandboxUnavailable("no sandbox worker could start (isolation='namespaces')")

    assert "no sandbox worker could start" in str(sandbox_dependency(refuses).missing)
