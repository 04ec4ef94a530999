"""Weights a run cannot have are found before the first track, naming the model entry: offline
and not cached (naming HF_HUB_OFFLINE), the Hub unreachable, a folder that is not there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vlmscope.config import ConfigError, parse_config
from vlmscope.runner.model_sources import check_model_sources

ROOT = Path(__file__).resolve().parents[2]
REPO_ID = "someorg/not-a-cached-model"


def _config(path: str, **extra: object):  # noqa: ANN202
    return parse_config(
        {
            "models": [
                {"backend": "oracle"},
                {"backend": "hf", "name": "mine", "path": path, **extra},
            ],
            "tracks": [
                {"name": "simplevqa", "judge": {"backend": "hf", "name": "j", "path": "./judge"}}
            ],
        }
    )


def _seed_cache(hf_home: Path, repo_id: str) -> None:
    """A repo in the Hugging Face cache layout, as a download leaves it."""
    repo = hf_home / "hub" / f"models--{repo_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / ("0" * 40)
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40)


def test_each_kind_of_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    asked: list[str] = []

    def probe(endpoint: str) -> str | None:
        asked.append(endpoint)
        return None

    (tmp_path / "judge").mkdir()
    monkeypatch.chdir(tmp_path)
    check_model_sources(_config(str(tmp_path)), probe=probe)  # a folder that is there
    check_model_sources(_config("./built-later", tiny_arch="llava"), probe=probe)
    with pytest.raises(
        ConfigError, match=r"^model 'mine': path './gone' is no folder .*\(models\.1 in config\)$"
    ):
        check_model_sources(_config("./gone"), probe=probe)
    with pytest.raises(ConfigError, match="HF_HUB_OFFLINE is set"):
        check_model_sources(_config(REPO_ID), source="run.yaml", probe=probe)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    check_model_sources(_config(REPO_ID), probe=probe)  # the Hub answers: the download may try
    assert asked == ["https://huggingface.co"]
    with pytest.raises(ConfigError, match=r"the Hub \(https://huggingface.co\) cannot be reached"):
        check_model_sources(_config(REPO_ID), probe=lambda endpoint: "ConnectError: refused")
    with pytest.raises(
        ConfigError, match=r"^model 'j': path './judge' is no folder .*\(tracks\.0\.judge in"
    ):
        (tmp_path / "judge").rmdir()
        check_model_sources(_config(str(tmp_path)), probe=probe)


def test_a_cached_repo_needs_no_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    _seed_cache(tmp_path / "hf", REPO_ID)
    (tmp_path / "judge").mkdir()
    monkeypatch.chdir(tmp_path)

    def no_probe(endpoint: str) -> str | None:
        raise AssertionError("a cached repo must not ask the Hub")

    import huggingface_hub.constants as hub

    monkeypatch.setattr(hub, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    check_model_sources(_config(REPO_ID), probe=no_probe)


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"HF_HUB_OFFLINE": "1"}, "and HF_HUB_OFFLINE is set, so it cannot be downloaded"),
        ({"HF_HUB_OFFLINE": "0", "HF_ENDPOINT": "http://127.0.0.1:9"},
         "the Hub (http://127.0.0.1:9) cannot be reached (ConnectError"),
    ],
)  # fmt: skip
def test_the_run_stops_at_once_naming_the_model_entry(
    tmp_path: Path, settings: dict[str, str], reason: str
) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(
        f"models:\n  - {{backend: hf, name: mymodel, path: {REPO_ID}}}\n"
        "tracks:\n  - {name: simplevqa, options: {grader: offline_match}}\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HOME": str(tmp_path / "hf"), **settings}
    done = subprocess.run(
        [sys.executable, "-m", "vlmscope", "run", "--config", str(config),
         "--output-dir", str(tmp_path / "out")],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: model 'mymodel': path '{REPO_ID}' ")
    assert reason in line and line.endswith(f"(models.0 in {config})")
    assert not (tmp_path / "out" / "mymodel").exists()  # no track ran
