"""One results folder for the comparison tests, made by the real runner.

Three models answer every track with a shipped sample, offline: the oracle, its twin (another
oracle under another name: the same answers, so every difference must be exactly 0), and the
coin backend as a model (a verdict label for every answer: wrong on MEGA-Bench and SimpleVQA),
judged by the coin stand-in where a track is judged. Beside them, `coin-quick` ran MEGA-Bench
with `--limit 1` only (one query per task: a mismatch every comparison with it must list), and
the VisionArena human battles of the FastChat golden as a board (`vlmscope ratings battles
--result-dir`).

`demo_results` is the README's demo itself (`configs/demo.yaml`: the tiny random model and the
oracle on every track), the run the whole test session shares.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.demo_run import DemoRun
from tests.leaderboard import fabricate
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore

ORACLE, TWIN, COIN, QUICK = "oracle", "oracle-twin", "coin-model", "coin-quick"
JUDGE = {"backend": "coin", "name": "coin-judge"}
CONFIG = {
    "models": [
        {"backend": "oracle"},
        {"backend": "oracle", "name": TWIN},
        {"backend": "coin", "name": COIN},
    ],
    "tracks": [
        {"name": "megabench", "options": {"cot": "with", "max_new_tokens": 24}},
        {"name": "simplevqa", "options": {"grader": "offline_match", "bootstrap_rounds": 50}},
        {"name": "probench", "judge": JUDGE, "options": {"bootstrap_rounds": 20}},
        {
            "name": "visionarena_bench",
            "judge": JUDGE,
            "options": {"anchor_answers": "anchor_answers.jsonl", "bootstrap_rounds": 20},
        },
    ],
}
QUICK_CONFIG = {
    "models": [{"backend": "coin", "name": QUICK}],
    "tracks": [{"name": "megabench", "options": {"cot": "with", "max_new_tokens": 24}}],
}


@pytest.fixture(scope="session")
def compare_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("compare") / "results"
    run = out / "run"
    fabricate._run(fabricate._write_config(run, CONFIG), run, None)
    quick = out / "quick"
    fabricate._run(fabricate._write_config(quick, QUICK_CONFIG), quick, 1)
    fabricate.write_arena_board(out / "arena_board")
    return out


@pytest.fixture(scope="session")
def compare_store(compare_results: Path) -> ResultStore:
    return ResultStore(ResultsLocation.local(compare_results))


@pytest.fixture(scope="session")
def demo_results(demo_run: DemoRun) -> Path:
    """The session's one run of the README's demo (`tests/demo_run.py`)."""
    return demo_run.out
