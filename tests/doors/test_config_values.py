"""A config is read as written: a boolean is not a count, a key given twice is an error naming
both lines, a name is never empty, and a file that does not read is named. Each ends `vlmscope
run` with one `error:` line and exit status 2, before anything is run."""

from __future__ import annotations

from pathlib import Path

import pytest

import run_eval
from vlmscope.cli import main
from vlmscope.config import ConfigError, load_config

GOOD = "models:\n  - backend: oracle\ntracks:\n  - name: colours\n"


def _run(
    tmp_path: Path, text: str | bytes, capsys: pytest.CaptureFixture[str], *, read: bool = True
) -> str:
    """The one error line of a run of `text`; `read` (the default): refused while reading the
    config, before the output folder was touched."""
    config = tmp_path / "run.yaml"
    if isinstance(text, bytes):
        config.write_bytes(text)
    else:
        config.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert run_eval.main(["--config", str(config), "--output-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert out.exists() != read
    return err


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (GOOD + "limit: true\n", "limit"),
        (GOOD.replace("oracle", "oracle\n    image_budget: {max_images: true}"), "max_images"),
        (
            "models:\n  - {backend: hf, name: m, path: p, batch_size: true}\n"
            "tracks: [{name: colours}]\n",
            "batch_size",
        ),
        (GOOD + "limit: '3'\n", "limit"),
    ],
    ids=["limit", "image-budget", "batch-size", "string-count"],
)
def test_a_boolean_or_a_string_is_not_a_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, field: str
) -> None:
    err = _run(tmp_path, text, capsys)
    assert err.startswith(f"error: {tmp_path / 'run.yaml'}: ")
    assert field in err and "expected a number, got " in err


def test_a_key_given_twice_names_the_key_and_both_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _run(tmp_path, GOOD + "limit: 3\nlimit: 5\n", capsys)
    assert err == (
        f"error: {tmp_path / 'run.yaml'}: key 'limit' is given twice (lines 5 and 6); "
        "the first value would be dropped\n"
    )
    nested = GOOD.replace("backend: oracle", "backend: oracle\n    name: a\n    name: b")
    err = _run(tmp_path, nested, capsys)
    assert "key 'name' is given twice (lines 3 and 4)" in err


@pytest.mark.parametrize("name", ['""', "'   '"])
def test_an_empty_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    err = _run(
        tmp_path, GOOD.replace("backend: oracle", f"backend: oracle\n    name: {name}"), capsys
    )
    assert "models.0.name (oracle model): a name is needed" in err
    err = _run(tmp_path, GOOD.replace("name: colours", f"name: {name}"), capsys)
    assert "tracks.0.name: a name is needed" in err


def test_a_config_that_is_not_utf8_or_not_a_file_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _run(tmp_path, b"models:\n  - backend: oracle  # caf\xe9\n", capsys)
    assert err == (f"error: {tmp_path / 'run.yaml'}: not UTF-8 text (byte b'\\xe9' at offset 34)\n")
    with pytest.raises(ConfigError, match=f"^{tmp_path}: Is a directory$"):
        load_config(tmp_path)
    assert main(["run", "--config", str(tmp_path / "absent.yaml")]) == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path / 'absent.yaml'}: No such file or directory\n"
    )


def test_a_cache_path_that_is_a_folder_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "cache_here"
    folder.mkdir()
    err = _run(tmp_path, GOOD + f"cache_path: {folder}\n", capsys, read=False)
    assert err.startswith(f"error: {folder}: is a folder, not a regular file")


def test_the_good_config_still_loads(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(GOOD + "limit: 3\n", encoding="utf-8")
    assert load_config(config).limit == 3
