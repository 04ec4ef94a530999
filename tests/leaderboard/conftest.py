"""One results folder for every leaderboard test: a real oracle run plus fabricated results."""

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
    fabricate.write_simplevqa(out / "simplevqa_run")
    fabricate.write_rating_board(out / "arena_run")
    return out


@pytest.fixture(scope="session")
def store(results_dir: Path) -> ResultStore:
    return ResultStore(ResultsLocation.local(results_dir))
