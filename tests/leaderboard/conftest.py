"""One results folder for every leaderboard test, each result made by its real producer."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.leaderboard import broken, fabricate, keyword_results
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore


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
def keyword_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MEGA-Bench results with keywords of many tasks and of too few (`keyword_results`)."""
    out = tmp_path_factory.mktemp("keywords") / "results"
    keyword_results.write_keyword_results(out)
    return out


@pytest.fixture(scope="session")
def degraded_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One good run, one of an unknown track, one in format 1, and a folder of each bad kind."""
    out = tmp_path_factory.mktemp("degraded") / "results"
    broken.write_degraded(out)
    return out


@pytest.fixture(scope="session")
def space_app() -> tuple[ModuleType, ModuleType, ModuleType]:
    """The Space's `app`, `track_pages` and `sample_page` modules (shipped in the package)."""
    from vlmscope.cli.space import app, sample_page, track_pages

    return app, track_pages, sample_page
