"""The VisionArena leaderboard (every board, style control, 100-round bootstrap) vs FastChat's
algorithm on the same battles, in the same run.

Battles: `make_battles.battle_lines` (FastChat clean-battle records: preset images, multi-turn,
ties; 10 % not anonymous), each given every vision category flag and the refusal flag (20 %
each, seeded) and one of three languages, so that every board of the leaderboard is fitted. Ours: `arena_leaderboard`,
which fits the full board, every category board of the vision leaderboard and one per language,
each plain and style-controlled, with FastChat's random streams. Reference: for the same boards
(selected by the same filters), `fastchat.serve.monitor.rating_systems` when importable, else
the faithful re-implementation of `benchmarks/ratings.py` (scipy L-BFGS-B per fit, one refit per
bootstrap round in a process pool of `--cpus`, as FastChat does). Printed: seconds for each,
the ratio, and the largest point-rating difference over every board (goal: within 0.1).

    python benchmarks/arena_leaderboard.py [--battles 30000] [--rounds 100] [--cpus 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_battles import battle_lines  # noqa: E402
from ratings import Reimplementation, Upstream, timed, warm_up  # noqa: E402

from vlmscope.ratings.battle_presets import select_board_battles  # noqa: E402
from vlmscope.ratings.battles import Battles  # noqa: E402
from vlmscope.ratings.board import RatingBoard  # noqa: E402
from vlmscope.ratings.filters import VISION_CATEGORIES  # noqa: E402
from vlmscope.tracks.visionarena.leaderboard import ArenaSettings, arena_leaderboard  # noqa: E402


def with_every_board(records: list[dict[str, Any]], seed: int = 7) -> list[dict[str, Any]]:
    """Every category flag (and refusal) drawn at 20 %, languages English / Chinese / Russian."""
    rng = np.random.default_rng(seed)
    tags = [*VISION_CATEGORIES.values(), ("refusal_v0.1", "refusal")]
    flags = rng.random((len(records), len(tags))) < 0.2
    languages = rng.choice(
        ["English", "Chinese", "Russian"], size=len(records), p=[0.6, 0.25, 0.15]
    )
    for record, row, language in zip(records, flags, languages, strict=True):
        record["category_tag"] = {
            tag: {flag: bool(v)} for (tag, flag), v in zip(tags, row, strict=True)
        }
        record["language"] = str(language)
    return records


def reference_board(selected: list[Any], rounds: int, cpus: int) -> dict[str, float]:
    """FastChat's four fits on one board's battles; returns the plain point ratings."""
    battles = Battles.from_records(selected, style=True)
    try:
        ref: Any = Upstream(battles, cpus)
    except ImportError:
        ref = Reimplementation(battles, cpus)
    points, _ = ref.bt()
    ref.bootstrap_bt(rounds)
    ref.style()
    ref.bootstrap_style(rounds)
    return dict(zip(battles.models, np.asarray(points, dtype=float), strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--cpus", type=int, default=2, help="reference pool size (num_cpu)")
    args = parser.parse_args()
    warm_up(args.cpus)
    records = with_every_board([json.loads(line) for line in battle_lines(args.battles)])
    settings = ArenaSettings(rounds=args.rounds)
    cpu = time.process_time()
    t_ours, board = timed(lambda: arena_leaderboard(records, settings))
    cpu_ours = time.process_time() - cpu
    names: list[str | None] = [None, *board.categories]
    print(f"{args.battles} battles, {len(names)} boards (each plain + style control)")
    if board.skipped_categories:
        print(f"  not fitted: {board.skipped_categories}")

    def reference_all() -> dict[str | None, dict[str, float]]:
        return {
            name: reference_board(select_board_battles(records, name), args.rounds, args.cpus)
            for name in names
        }

    t_ref, ref_points = timed(reference_all)
    gap = 0.0
    for name in names:
        ours: RatingBoard = board if name is None else board.categories[name]
        for model, rating in ref_points[name].items():
            gap = max(gap, abs(ours.models[model].rating - rating))
    print(f"ours      {t_ours:8.2f} s  (cpu {cpu_ours:.2f} s)")
    print(f"reference {t_ref:8.2f} s  ({'fastchat' if _upstream() else 're-implementation'})")
    print(f"ratio reference / ours: {t_ref / t_ours:.1f}x (goal >= 10x)")
    print(f"largest point-rating difference over every board: {gap:.4f} (goal <= 0.1)")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def _upstream() -> bool:
    try:
        import fastchat.serve.monitor.rating_systems  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    main()
