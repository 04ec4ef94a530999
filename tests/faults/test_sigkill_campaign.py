"""SIGKILL a run again and again, in every phase; resumed, it loses and duplicates nothing.

Each round starts from an empty output folder and walks through kill points in phase order
(`kills.Campaign`): a bot's k-th call or the k-th cache row (generate), the judge's k-th call
(judge, during scoring), a result folder half-written or the k-th one replaced (write), every
result written or the joint board half-written (aggregate), and a random time; every run after
the first resumes the one before. A last run then finishes, and the folder must match an
uninterrupted reference run of the same config: the same cache keys, each once; the same details
and summaries for every (model, track); the same joint board.

Bounded version: one round of 4 kill points (generate, judge, write, aggregate). `-m slow`: 3
rounds of 10, two of them at random times (at least 20 kills).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.helpers import (
    cache_rows,
    integrity,
    leftovers,
    stable_board,
    stable_result,
)
from tests.faults.kills import (
    BOARD_TRACK,
    BOTS,
    JUDGE,
    MODELS,
    TRACKS,
    Campaign,
    Kill,
    KillSwitch,
    Totals,
    write_config,
)
from tests.servers import OpenAIStub
from vlmscope.config import load_config
from vlmscope.runner.loop import run

BOUNDED = ("generate", "judge", "writing", "board")
FULL = ("time", "generate", "rows", "judge", "writing", "written", "judge", "aggregate", "board",
        "time")  # fmt: skip


Served = tuple[KillSwitch, Path]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One stub for the module: its URL is part of the API models' identity, so the reference
    and every killed run must talk to the same one."""
    switch = KillSwitch()
    with OpenAIStub(switch, latency_s=0.005) as stub:
        config = write_config(tmp_path_factory.mktemp("config") / "run.yaml", stub.base_url)
        yield switch, config


@pytest.fixture(scope="module")
def reference(served: Served, tmp_path_factory: pytest.TempPathFactory) -> Path:
    _, config = served
    out = tmp_path_factory.mktemp("reference") / "out"
    run(load_config(config, {"output_dir": str(out)}))
    return out


def snapshot(out: Path) -> dict[str, object]:
    results = {(m, t): stable_result(out, m, t) for m in MODELS for t in TRACKS}
    return {"results": results, "board": stable_board(out, BOARD_TRACK)}


def campaign(
    served: Served, reference: Path, tmp_path: Path, rounds: int, points: tuple[str, ...]
) -> tuple[list[Kill], Counter[str]]:
    switch, config = served
    keys = cache_rows(reference / "cache.sqlite")
    by_backend = Counter(b for _, b, _ in keys)
    totals = Totals(
        generated=sum(by_backend[m] for m in MODELS),
        judged=by_backend[JUDGE],
        bots=sum(by_backend[b] for b in BOTS),
    )
    # 24 samples, 20 distinct prompts, 3 models; per bot 8 prompts x 2 games + 4 nudges, less
    # the 2 prompts where the bot's answer equals the baseline's (both games are one request)
    assert (totals.generated, totals.judged) == (3 * 20, 2 * (16 + 4 - 2))
    expected = snapshot(reference)
    kills: list[Kill] = []
    missed: list[str] = []
    litter: list[str] = []
    runs = 0
    for number in range(rounds):
        out = tmp_path / f"round{number}" / "out"
        round_ = Campaign(config, out, switch, totals, random.Random(1000 + number))
        for point in points:
            round_.kill_at(point)
        round_.run_to_end()
        runs += round_.runs
        kills += round_.kills
        missed += round_.missed

        stored = cache_rows(out / "cache.sqlite")
        stored_keys = [k for k, _, _ in stored]
        assert len(stored_keys) == len(set(stored_keys))  # no duplicate
        assert stored_keys == [k for k, _, _ in keys]  # none lost, none extra
        assert all(ok for _, _, ok in stored) and integrity(out / "cache.sqlite") == "ok"
        assert snapshot(out) == expected
        litter += leftovers(out)

    phases = Counter(k.phase for k in kills)
    print(f"\nSIGKILL campaign: {rounds} round(s), {runs} runs, {len(kills)} kills, "
          f"{len(missed)} kill points the run finished before: {missed}")  # fmt: skip
    print(f"  kills by phase: {dict(sorted(phases.items()))}")
    for kill in kills:
        s = kill.state
        print(f"  {kill.point:9} -> {kill.phase:15} rows {s.generated:2}+{s.judged:2} judge, "
              f"{s.fresh} folders replaced, board {'new' if s.board_fresh else 'old'}, "
              f"half-written {s.staging}")  # fmt: skip
    print(f"  after the last runs: 0 lost, 0 duplicated ({len(keys)} cache keys, details and "
          f"board equal to the reference); hidden folders killed exports left: {len(litter)}")  # fmt: skip
    return kills, phases


def test_killed_runs_resume_to_the_reference(served, reference, tmp_path):
    kills, phases = campaign(served, reference, tmp_path, 1, BOUNDED)
    assert len(kills) == len(BOUNDED)
    assert {"generate", "judge", "write", "aggregate"} <= set(phases), phases


@pytest.mark.slow
def test_killed_runs_resume_to_the_reference_at_scale(served, reference, tmp_path):
    kills, phases = campaign(served, reference, tmp_path, 3, FULL)
    assert len(kills) >= 20
    assert all(phases[p] >= 2 for p in ("generate", "judge", "write", "aggregate")), phases
