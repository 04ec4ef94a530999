"""One results folder for every leaderboard test, each result made by its real producer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.leaderboard import fabricate
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.store import ResultStore


@pytest.fixture(scope="session")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lb") / "results"
    fabricate.run_megabench_oracle(out / "megabench_run")
    fabricate.write_hostile(out / "hostile_run")
    fabricate.run_simplevqa(out / "simplevqa_run")
    fabricate.run_colours(out / "colours_run")
    fabricate.write_arena_board(out / "arena_board")
    return out


@pytest.fixture(scope="session")
def store(results_dir: Path) -> ResultStore:
    return ResultStore(ResultsLocation.local(results_dir))
