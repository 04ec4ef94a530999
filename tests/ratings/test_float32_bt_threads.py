"""The float32 v2 fit's one-thread setting: restored when a fit fails, and not lost when two
boards are fitted at once in threads (the setting is process-wide, so fits take turns)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from vlmscope.ratings.fits import float32_bt_lbfgs
from vlmscope.ratings.fits.float32_bt_lbfgs import bootstrap_float32_bt

torch = pytest.importorskip("torch")


def _problem() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    design = rng.normal(size=(60, 4)).astype(np.float32)
    outcome = (rng.random(60) < 0.5).astype(np.float32)
    return design, outcome, rng.integers(0, 60, size=(4, 60))


def _threads_in_a_new_thread() -> int:
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
    thread.start()
    thread.join()
    return seen[0]


def test_a_failing_fit_restores_the_callers_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: Any) -> None:
        assert torch.get_num_threads() == 1
        raise RuntimeError("fit failed")

    monkeypatch.setattr(float32_bt_lbfgs, "_fit", fail)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(3)
        with pytest.raises(RuntimeError, match="fit failed"):
            bootstrap_float32_bt(*_problem())
        assert torch.get_num_threads() == 3
        assert _threads_in_a_new_thread() == 3
    finally:
        torch.set_num_threads(before)


def test_fits_in_threads_take_turns_and_keep_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    design, outcome, picks = _problem()
    alone = bootstrap_float32_bt(design, outcome, picks)
    fit, running, most = float32_bt_lbfgs._fit, [0], [0]
    count = threading.Lock()

    def watched(*args: Any) -> Any:
        with count:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.01)  # long enough for a second board's fit to start, were it let in
        try:
            return fit(*args)
        finally:
            with count:
                running[0] -= 1

    monkeypatch.setattr(float32_bt_lbfgs, "_fit", watched)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(3)
        with ThreadPoolExecutor(max_workers=2) as pool:
            boards = list(pool.map(lambda _: bootstrap_float32_bt(design, outcome, picks), "ab"))
        assert most[0] == 1
        assert _threads_in_a_new_thread() == 3
        assert torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)
    for board in boards:
        np.testing.assert_array_equal(board, alone)
