"""Every entry point ends input it cannot use the same way: one `error:` line naming the file (and
the row and field), exit status 2, no traceback; `--debug` adds the traceback, and a bug of ours
keeps it. The dataset modules run as a user runs them, in a process of their own."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest

import run_eval
from vlmscope.cli import main
from vlmscope.datasets.simplevqa import SimpleVQA
from vlmscope.input_errors import guarded
from vlmscope.tracks.shipped_samples import SAMPLES_ROOT
from vlmscope.tracks.simplevqa.rows import SimpleVQADataError

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _process(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=300
    )


def _copy(tmp_path: Path, sample: str) -> Path:
    folder = tmp_path / sample
    shutil.copytree(SAMPLES_ROOT / sample, folder)
    return folder


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _repeat_first_row(path: Path) -> None:
    table = pq.read_table(path)
    rows = table.to_pylist()
    pq.write_table(table.from_pylist([*rows, rows[0]], schema=table.schema), path)


@pytest.mark.parametrize("dataset", ["simplevqa", "megabench"])
def test_the_dataset_modules_print_one_line_for_a_bad_row(tmp_path: Path, dataset: str) -> None:
    data = _copy(tmp_path, dataset)
    if dataset == "simplevqa":
        _repeat_first_row(data / "test.parquet")
        argv = ["--out", str(tmp_path / "hub"), "--data-dir", str(data)]
        named = "test.parquet, data_id 0: field 'data_id' repeats row 0"
    else:
        _repeat_first_row(data / "core" / "test-00000-of-00001.parquet")
        argv = ["--data-dir", str(data), "--out", str(tmp_path / "hub")]
        named = "field 'id' repeats a row already read"
    done = _process("-m", f"vlmscope.datasets.{dataset}", *argv, "--cache-dir", str(tmp_path / "c"))
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert named in done.stderr and not (tmp_path / "hub").exists()


def test_a_truncated_parquet_is_named_by_the_builder_and_the_rating_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _copy(tmp_path, "simplevqa")
    _truncate(data / "test.parquet")
    from vlmscope.datasets.simplevqa import main as export

    assert export(["--out", str(tmp_path / "hub"), "--data-dir", str(data)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {data / 'test.parquet'}: does not read as parquet (")
    assert err.count("\n") == 1

    battles = tmp_path / "battles.parquet"
    battles.write_bytes(b"PAR1" + b"\0" * 64)
    assert main(["ratings", "battles", str(battles), "--out", str(tmp_path / "b.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: vlmscope ratings battles: {battles}: does not read as parquet")


def test_a_builders_own_download_and_prepare_says_the_row(tmp_path: Path) -> None:
    data = _copy(tmp_path, "simplevqa")
    _repeat_first_row(data / "test.parquet")
    builder = SimpleVQA(config_name="default", data_dir=str(data), cache_dir=str(tmp_path / "c"))
    with pytest.raises(datasets.exceptions.DatasetGenerationError) as raised:
        builder.download_and_prepare()
    assert str(raised.value) == (
        "test.parquet, data_id 0: field 'data_id' repeats row 0 (row 6); "
        "it would be asked and graded twice"
    )
    assert isinstance(raised.value.__cause__, SimpleVQADataError)


@pytest.mark.parametrize("what", ["task meta", "simplevqa json"])
def test_a_file_that_is_not_utf8_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    if what == "task meta":
        data = _copy(tmp_path, "megabench")
        bad = data / "all_task_meta.json"
        bad.write_bytes(b'{"caf\xe9": {}}')
        from vlmscope.datasets.megabench import main as export

        code = export(
            [
                "--data-dir",
                str(data),
                "--out",
                str(tmp_path / "hub"),
                "--cache-dir",
                str(tmp_path / "c"),
            ]
        )
    else:
        data = tmp_path / "svqa"
        data.mkdir()
        bad = data / "test.json"
        bad.write_bytes(b'[{"question": "caf\xe9"}]')
        from vlmscope.datasets.simplevqa import main as export

        code = export(["--out", str(tmp_path / "hub"), "--data-dir", str(data)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}: not UTF-8 text (byte b'\\xe9' at offset ")
    assert err.count("\n") == 1


def test_category_on_a_text_category_tag_names_the_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.ratings.arena_golden import GOLDEN_DIR

    rows = [json.loads(line) for line in (GOLDEN_DIR / "battles_5k.jsonl").open()][:30]
    rows[4]["category_tag"] = "ocr"
    file = tmp_path / "b.jsonl"
    file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    argv = ["ratings", "battles", str(file), "--category", "ocr", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    assert f"{file} line 5: field 'category_tag': 'ocr' is not an object" in capsys.readouterr().err


@pytest.mark.parametrize("path", ["/no/such/model", "models/a/b/c", "no-such-org/no-such-model"])
def test_an_hf_model_path_that_does_not_load_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str
) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(
        f"output_dir: {tmp_path / 'out'}\nmodels: [{{backend: hf, name: m, path: {path}}}]\n"
        "tracks: [{name: colours, options: {n_samples: 2}}]\n",
        encoding="utf-8",
    )
    assert run_eval.main(["--config", str(config)]) == 2
    err = capsys.readouterr().err  # after the progress bar the model was to fill
    assert "Traceback" not in err and err.count("error:") == 1
    assert err.splitlines()[-1].startswith(f"error: model 'm': path {path!r} ")


def test_an_unreadable_megabench_image_at_run_time_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _copy(tmp_path, "megabench")
    image = data / "data/Perception/Sample/sample_single_answer/q0.png"
    image.write_bytes(b"not a png")
    config = tmp_path / "run.yaml"
    config.write_text(
        json.dumps(
            {
                "output_dir": str(tmp_path / "out"),
                "models": [{"backend": "oracle"}],
                "tracks": [{"name": "megabench", "subset": "core", "data_dir": str(data)}],
            }
        ),
        encoding="utf-8",
    )
    assert run_eval.main(["--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: task 'sample_single_answer', row 0: field 'query_media': media ")
    assert "q0.png cannot be read" in err and err.count("\n") == 1


def test_debug_adds_the_traceback_and_a_bug_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    absent = tmp_path / "absent.yaml"
    assert main(["run", "--config", str(absent)]) == 2
    assert capsys.readouterr().err == f"error: {absent}: No such file or directory\n"
    assert main(["run", "--config", str(absent), "--debug"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert err.endswith(f"error: {absent}: No such file or directory\n")

    def bug() -> int:
        raise KeyError("a bug of ours")

    with pytest.raises(KeyError):
        guarded(bug)


def test_under_accelerate_launch_the_error_is_one_line(tmp_path: Path) -> None:
    if shutil.which("accelerate") is None:
        pytest.skip("accelerate's launcher is not installed")
    config = tmp_path / "run.yaml"
    config.write_text("models: [{backend: oracle}]\ntracks: [{name: colours}]\nlimit: true\n")
    done = subprocess.run(
        ["accelerate", "launch", "-q", "--num_processes", "1", "--num_machines", "1",
         "--mixed_precision", "no", "--dynamo_backend", "no",
         "run_eval.py", "--config", str(config)],
        capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode != 0
    assert done.stderr == f"error: {config}: limit: expected a number, got True\n"
