"""One results folder for every leaderboard test, each result made by its real producer."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.leaderboard import broken, fabricate
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore

SPACE = Path(__file__).resolve().parents[2] / "leaderboard_space"


@pytest.fixture(scope="session")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lb") / "results"
    fabricate.run_megabench_oracle(out / "megabench_run")
    fabricate.write_hostile(out / "hostile_run")
    fabricate.run_simplevqa(out / "simplevqa_run")
    fabricate.run_colours(out / "colours_run")
    fabricate.write_arena_board(out / "arena_board")
    # debug runs: one after the oracle's full run (which it must not hide), one with no full run
    fabricate.run_megabench_oracle(out / "megabench_debug", limit=1)
    fabricate.run_colours(out / "colours_debug", model=fabricate.LIMITED_MODEL, limit=3)
    return out


@pytest.fixture(scope="session")
def store(results_dir: Path) -> ResultStore:
    return ResultStore(ResultsLocation.local(results_dir))


@pytest.fixture(scope="session")
def degraded_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One good run, one of an unknown track, one in format 1, and a folder of each bad kind."""
    out = tmp_path_factory.mktemp("degraded") / "results"
    broken.write_degraded(out)
    return out


@pytest.fixture(scope="session")
def space_app() -> Iterator[tuple[ModuleType, ModuleType, ModuleType]]:
    """The Space's `app`, `track_pages` and `sample_page` modules, imported as `python app.py`
    imports them (its folder on `sys.path`)."""
    sys.path.insert(0, str(SPACE))
    try:
        import app
        import sample_page
        import track_pages

        yield app, track_pages, sample_page
    finally:
        sys.path.remove(str(SPACE))
