"""The four dataset commands take the same options, read the shipped sample when given no
`--data-dir`, and print the configs and row counts they wrote; the README's Python snippets run
as pasted."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.demo_run import DemoRun

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {  # the command's arguments before the shared options, and the configs it writes
    "megabench": ([], {"core", "open", "core_single_image", "open_single_image"}),
    "simplevqa": ([], {"default", "atomic"}),
    "probench": ([], {"all", "singleround", "multi-round", "multi-linguistic"}),
    "visionarena": (["bench"], {"default"}),
}


def _env(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
    }


@pytest.mark.parametrize("track", list(COMMANDS))
def test_each_dataset_command_exports_the_sample_and_says_what_it_wrote(
    track: str, tmp_path: Path
) -> None:
    before, configs = COMMANDS[track]
    module = f"vlmscope.datasets.{track}"
    help_text = subprocess.run(
        [sys.executable, "-m", module, "--help"], env=_env(tmp_path), capture_output=True,
        text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    assert help_text.startswith(f"usage: python -m {module} ")  # as the README runs it
    assert all(option in help_text for option in ("--data-dir", "--out", "--cache-dir"))
    assert "default: the shipped sample" in " ".join(help_text.split())
    done = subprocess.run(
        [sys.executable, "-m", module, *before, "--out", "export", "--cache-dir", "cache"],
        cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    first, *rest = done.stdout.strip().splitlines()
    assert first == (
        f"wrote export: {len(configs)} config(s), open one with load_dataset('export', CONFIG)"
    )
    listed = dict(re.fullmatch(r"  (\S+): (\d+) rows?", line).groups() for line in rest)  # type: ignore[union-attr]
    assert set(listed) == configs
    for config, rows in listed.items():
        shards = sorted((tmp_path / "export" / config).glob("*.parquet"))
        assert int(rows) == sum(pq.read_metadata(s).num_rows for s in shards) > 0


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_the_readme_python_snippets_run_as_pasted(tmp_path: Path, demo_run: DemoRun) -> None:
    """Each block in a folder where a user would be: beside the repository's `evaluate_metrics`,
    after `vlmscope demo` (the session's run, as `results/demo`); a block that downloads from the
    Hub (a `<commit>` to fill in) runs offline up to its first download."""
    blocks = _python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 3 and any("results/demo" in block for block in blocks)
    (tmp_path / "evaluate_metrics").symlink_to(ROOT / "evaluate_metrics")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "demo").symlink_to(demo_run.out)
    env = _env(tmp_path)
    for block in blocks:
        done = subprocess.run(
            [sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True,
            text=True, timeout=600, check=False,
        )  # fmt: skip
        if "<commit>" in block:
            # A Hub download (a commit to fill in): offline, as here, it must get as far as the
            # Hub cache and end in the error that says what to download.
            assert done.returncode == 1 and "HubDataError" in done.stderr, done.stderr[-3000:]
            assert "hf download" in done.stderr.strip().splitlines()[-1], block
            continue
        assert done.returncode == 0, f"{block}\n{done.stderr[-3000:]}"
