"""`benchmarks/arena_hard_v2.py` times against upstream's own code only: without the checkout it
stops with one usage error rather than timing a stand-in; and its sizes are exact row counts."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from make_verdicts import BASELINE, verdict_rows  # noqa: E402


def test_without_the_reference_it_says_so_and_fails() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "arena_hard_v2.py"), "--sizes", "10"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines()[-1] == (
        "arena_hard_v2.py: error: the reference is needed: give --arena-hard ARENA_HARD_DIR "
        "(an arena-hard-auto v2 checkout); there is no stand-in"
    )


def test_a_size_is_that_many_rows_shared_by_the_models_in_file_order() -> None:
    rows, records = verdict_rows(203, n_models=4)
    assert len(rows) == 203
    per_model = Counter(row.model for row in rows)
    assert per_model == {"vm-00": 51, "vm-01": 51, "vm-02": 51, "vm-03": 50}
    assert [row.model for row in rows] == sorted(row.model for row in rows)  # one file a model
    assert {row.baseline for row in rows} == {BASELINE}
    assert {row.score for row in rows} == {0.0, 0.5, 1.0}
    uids = {(r["model"], r["uid"]) for r in records}
    assert all((row.model, row.uid) in uids for row in rows)
