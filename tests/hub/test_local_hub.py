"""Benchmark data read from a Hub dataset repo at a pinned revision, without the internet.

A local server (`tests/hub_server.py`) holds the shipped samples in their upstream layouts
(MEGA-Bench's media as `data.zip`); each command runs in its own process, as a user's would,
with `HF_ENDPOINT` pointed at the server and a throwaway `HF_HOME`. Checked: download, unzip,
build and run, with the commit and fingerprint in the summary; a second run and an offline run
make no request; a corrupted or truncated file is named; an unknown revision and an offline
cold cache say what is wrong and what to do.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.faults.helpers import rows
from tests.hub.repos import megabench_repo, sample_repo
from tests.hub_server import HubRepo, HubServer
from vlmscope.leaderboard.data_origin import data_note, origin_text
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.safe_html import markdown_literal

ROOT = Path(__file__).resolve().parents[2]
MEGABENCH = "TIGER-Lab/MEGA-Bench"
pytestmark = pytest.mark.timeout(600)


def hub_env(server: HubServer, home: Path, *, offline: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    return {
        **env,
        "HF_ENDPOINT": server.endpoint,
        "HF_HOME": str(home),
        "HF_HUB_OFFLINE": "1" if offline else "0",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "NO_PROXY": "127.0.0.1",
    }


def vlmscope(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=500
    )


def run_config(tmp_path: Path, name: str, revision: str) -> Path:
    config = {
        "output_dir": str(tmp_path / name),
        "models": [{"backend": "oracle"}],
        "tracks": [
            {"name": "megabench", "data": {"repo": MEGABENCH, "revision": revision}},
        ],
    }
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def summary(out: Path) -> dict:
    (row,) = rows(out / "oracle" / "megabench", "summary")
    return row["scores"]  # typed: a struct, read as a dict


def test_megabench_from_the_hub_pinned_verified_and_cached(tmp_path: Path) -> None:
    repo = megabench_repo()
    (commit,) = repo.commits
    home = tmp_path / "hf"
    with HubServer([repo]) as server:
        first = vlmscope(
            hub_env(server, home), "-m", "vlmscope", "run", "--config",
            str(run_config(tmp_path, "first", "main")),
        )  # fmt: skip
        assert first.returncode == 0, first.stderr[-3000:]
        assert any("/revision/main" in r for r in server.requests)  # the branch was resolved
        assert any(r.endswith("/data.zip") and r.startswith("GET") for r in server.requests)
        data = summary(tmp_path / "first")["data"]
        assert data["source"] == "hub" and data["repo"] == MEGABENCH
        assert (data["revision"], data["commit"], data["files"]) == ("main", commit, 6)
        assert len(data["fingerprint"]) == 64
        assert summary(tmp_path / "first")["core"] == 1.0  # the oracle, video task included
        store = ResultStore(ResultsLocation.local(tmp_path / "first"))  # what the Space shows
        assert origin_text(data) == f"{MEGABENCH}@{commit[:12]} (files {data['fingerprint'][:8]})"
        assert (
            data_note(store.summaries, "megabench")
            == f"Data: {markdown_literal(origin_text(data))}"
        )
        unpacked = home / "vlmscope" / "data" / "TIGER-Lab--MEGA-Bench" / commit / "data"
        assert (unpacked / "Perception/Sample/sample_video_file/q0.mp4").is_file()

        # pinned to the commit: nothing is asked of the Hub, the same data is recorded
        before = len(server.requests)
        second = vlmscope(
            hub_env(server, home), "-m", "vlmscope", "run", "--config",
            str(run_config(tmp_path, "second", commit)),
        )  # fmt: skip
        assert second.returncode == 0, second.stderr[-3000:]
        assert server.requests[before:] == []
        assert summary(tmp_path / "second")["data"]["fingerprint"] == data["fingerprint"]

        # offline, by branch name: resolved from the cache's refs, still no request
        export = vlmscope(
            hub_env(server, home, offline=True), "-m", "vlmscope.datasets.megabench",
            "--repo", MEGABENCH, "--revision", "main", "--out", str(tmp_path / "export"),
        )  # fmt: skip
        assert export.returncode == 0, export.stderr[-3000:]
        assert server.requests[before:] == []
        assert len(rows(tmp_path / "export", "core")) == 14


def fetch_code(repo: str, revision: str) -> list[str]:
    """A process that fetches MEGA-Bench's layout and reports a `HubDataError` as the commands do."""
    return [
        "-c",
        "import sys\n"
        "from vlmscope.hub_data import HubDataError\n"
        "from vlmscope.tracks.hub_sources import fetch\n"
        "try:\n"
        f"    print(fetch('megabench', {repo!r}, {revision!r}).folder)\n"
        "except HubDataError as err:\n"
        "    sys.exit(f'error: {err}')\n",
    ]


def test_unknown_revision_and_cold_offline_cache_say_what_to_do(tmp_path: Path) -> None:
    with HubServer([megabench_repo()]) as server:
        missing = vlmscope(hub_env(server, tmp_path / "hf"), *fetch_code(MEGABENCH, "v9.9"))
        assert missing.returncode != 0
        assert f"dataset {MEGABENCH}: revision 'v9.9' does not exist" in missing.stderr
        unknown = vlmscope(hub_env(server, tmp_path / "hf"), *fetch_code("nobody/nothing", "main"))
        assert "dataset nobody/nothing not found" in unknown.stderr
        before = len(server.requests)
        cold = vlmscope(
            hub_env(server, tmp_path / "cold", offline=True), *fetch_code(MEGABENCH, "main")
        )
        assert cold.returncode != 0 and server.requests[before:] == []
        assert "is not (completely) in the Hub cache" in cold.stderr
        assert f"hf download {MEGABENCH} --repo-type dataset --revision main" in cold.stderr
        # the way out names the option of a command as well as the field of a config
        assert "`data_dir:`" in cold.stderr and "`--data-dir`" in cold.stderr


def corrupt(data: bytes) -> bytes:
    return data[:100] + bytes([data[100] ^ 0xFF]) + data[101:]


@pytest.mark.parametrize("damage", ["served corrupted", "served truncated", "cache truncated"])
def test_a_damaged_file_is_named(tmp_path: Path, damage: str) -> None:
    repo = megabench_repo()
    (commit,) = repo.commits
    zip_bytes = repo.commits[commit]["data.zip"]
    home = tmp_path / "hf"
    with HubServer([repo]) as server:
        env = hub_env(server, home)
        if damage == "served corrupted":
            repo.serve_bytes["data.zip"] = corrupt(zip_bytes)
        elif damage == "served truncated":
            repo.serve_bytes["data.zip"] = zip_bytes[: len(zip_bytes) // 2]
        else:
            assert vlmscope(env, *fetch_code(MEGABENCH, commit)).returncode == 0
            blob = (
                home / "hub" / "datasets--TIGER-Lab--MEGA-Bench" / "snapshots" / commit / "data.zip"
            ).resolve()
            blob.write_bytes(zip_bytes[:-10])
        failed = vlmscope(env, *fetch_code(MEGABENCH, commit))
    assert failed.returncode != 0 and "Traceback" not in failed.stderr
    (message,) = [line for line in failed.stderr.splitlines() if line.startswith("error: ")]
    assert f"dataset {MEGABENCH}" in message and "data.zip" in message
    if damage == "served truncated":
        assert "download failed" in message
    if damage == "served corrupted":
        assert "does not match the Hub's git blob id" in message
    if damage == "cache truncated":
        assert f"is {len(zip_bytes) - 10} bytes where the Hub lists {len(zip_bytes)}" in message


@pytest.mark.parametrize(
    ("command", "repo", "config"),
    [
        (["vlmscope.datasets.simplevqa"], sample_repo("simplevqa", "m-a-p/SimpleVQA"), "default"),
        (["vlmscope.datasets.probench"], sample_repo("probench", "HelloKKMe/ProBench"), "all"),
        (
            ["vlmscope.datasets.visionarena", "bench"],
            sample_repo("visionarena", "lmarena-ai/vision-arena-bench-v0.1", "bench"),
            "default",
        ),
    ],
    ids=["simplevqa", "probench", "visionarena-bench"],
)
def test_dataset_commands_read_a_hub_repo(
    tmp_path: Path, command: list[str], repo: HubRepo, config: str
) -> None:
    """The same export from the Hub repo as from the shipped sample it holds."""
    (commit,) = repo.commits
    with HubServer([repo]) as server:
        env = hub_env(server, tmp_path / "hf")
        local = vlmscope(env, "-m", *command, "--out", str(tmp_path / "local"))
        hub = vlmscope(
            env, "-m", *command, "--out", str(tmp_path / "hub"),
            "--repo", repo.repo_id, "--revision", commit,
        )  # fmt: skip
    assert local.returncode == 0 and hub.returncode == 0, hub.stderr[-3000:]
    assert f"data: {repo.repo_id}@{commit[:12]}" in hub.stderr
    split = "test" if command[0].endswith("simplevqa") else "train"
    shards = sorted((tmp_path / "hub" / config).glob(f"{split}-*.parquet"))
    assert shards
    assert [p.read_bytes() for p in shards] == [
        p.read_bytes() for p in sorted((tmp_path / "local" / config).glob(f"{split}-*.parquet"))
    ]
