"""The judged tracks' joint board is refitted once per state of its files, whoever asks.

Comparing on ProBench refits the joint board (every bootstrap round), the slow part of opening
the Space's Compare page on it. The fit does not depend on the pair, so opening the page again
(a new view over the same results) or picking another pair must reuse it, and a rewritten board
file must not: the count of fits says which happened.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.compare.conftest import COIN, ORACLE, TWIN
from vlmscope.cli.space.compare_page import CompareView
from vlmscope.leaderboard.compare import board_fits
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore

TRACK = "probench"


@pytest.fixture
def own_results(compare_results: Path, tmp_path: Path) -> Path:
    """A copy of the comparison results this test may rewrite."""
    return Path(shutil.copytree(compare_results, tmp_path / "results"))


def _open(store: ResultStore, a: str, b: str) -> float:
    """Open the Compare page anew on the pair; P(A beats B) as it shows it."""
    compared = CompareView(store, {}).compared(TRACK, [a, b])
    pair = compared.pair(a, b)
    assert pair is not None and not compared.skipped
    estimate = next(n for n in pair.numbers if n.label == f"P({a} beats {b})").estimate
    assert estimate is not None
    return estimate.value


def test_board_is_fitted_once_per_state_of_its_files(
    own_results: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    fit = board_fits.fit_board

    def counted(*args: object, **kwargs: object) -> board_fits.BoardFits:
        calls.append(1)
        return fit(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(board_fits, "fit_board", counted)
    store = ResultStore(ResultsLocation.local(own_results))
    first = _open(store, ORACLE, COIN)
    assert _open(store, ORACLE, COIN) == first  # the page opened a second time
    _open(store, ORACLE, TWIN)  # another pair of the same results
    _open(ResultStore(ResultsLocation.local(own_results)), COIN, TWIN)  # the results reloaded
    assert len(calls) == 1

    shard = next((store.boards[TRACK].folder / "details").glob("*.parquet"))
    stat = shard.stat()
    os.utime(shard, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # rewritten
    assert _open(store, ORACLE, COIN) == first  # same verdicts, so the same forecast
    assert len(calls) == 2
    _open(store, ORACLE, TWIN)
    assert len(calls) == 2


def test_file_identity_sees_a_file_added_resized_or_touched(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("1")
    before = board_fits.file_identity(tmp_path)
    assert board_fits.file_identity(tmp_path) == before
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_text("2")
    added = board_fits.file_identity(tmp_path)
    assert [p for p, _, _ in added] == ["a", "sub/b"]
    (tmp_path / "a").write_text("12")
    resized = board_fits.file_identity(tmp_path)
    assert resized != added
    stat = (tmp_path / "a").stat()
    os.utime(tmp_path / "a", ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert board_fits.file_identity(tmp_path) != resized
