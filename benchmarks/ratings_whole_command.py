"""`ratings.py --fastchat PATH`: the whole command from a file against FastChat's own.

One clean-battle file in the arena's shape (`make_battles.py --models 60 --arena-tags`, a JSON
array as FastChat's files are) is rated by both commands, each in a fresh process, A B A B:
- ours: `vlmscope ratings battles FILE --reference fastchat --bootstrap R --out BOARD.json`
  (with `--style-control` the plain board and the style-controlled one, both);
- FastChat: `elo_analysis.py --clean-battle-file FILE --num-bootstrap R --num-cpu C` run from
  the checkout at PATH (`fastchat_reference.py`): `pandas.read_json`, `report_elo_analysis_results`
  (online Elo, the fits, the leaderboard table and its plotly figures), a pickle of the results;
  with `--style-control` only the style-controlled board.
Printed: medians of wall and CPU seconds (children included), the median of the pair ratios, and
the largest point-rating difference between the two boards.
"""

from __future__ import annotations

import json
import os
import pickle
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from ab_pairs import process_pairs
from make_battles import write_battles
from megabench_against_official import timed_process

REPO = Path(__file__).resolve().parent.parent
FASTCHAT_DRIVER = Path(__file__).resolve().parent / "fastchat_reference.py"
GOAL_RATIO = 10.0


def _load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def _reference_ratings(folder: Path) -> dict[str, float]:
    [results] = folder.glob("elo_results_*.pkl")
    with results.open("rb") as handle:
        final: dict[str, float] = pickle.load(handle)["full"]["elo_rating_final"]
    return final


def _our_ratings(board_file: Path, style_control: bool) -> dict[str, float]:
    board: dict[str, Any] = json.loads(board_file.read_text(encoding="utf-8"))
    if style_control:
        board = board["style_control"]
    return {name: entry["rating"] for name, entry in board["models"].items()}


def whole_command(
    fastchat: Path, n: int, rounds: int, cpus: int, pairs: int, style_control: bool
) -> float:
    """Print the figures for one setting; returns the median ratio FastChat / ours."""
    with tempfile.TemporaryDirectory(prefix="ratings-whole-command-") as scratch:
        root = Path(scratch)
        battles = root / f"clean_battle_{n}.json"
        write_battles(battles, n, models=60, arena_tags=True)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
        style = ["--style-control"] if style_control else []
        ours = [sys.executable, "-m", "vlmscope", "ratings", "battles", str(battles)]
        ours += ["--reference", "fastchat", "--bootstrap", str(rounds), *style]
        ours += ["--out", str(root / "board.json")]
        theirs = [sys.executable, str(FASTCHAT_DRIVER), str(fastchat)]
        theirs += ["--clean-battle-file", str(battles), "--num-bootstrap", str(rounds)]
        theirs += ["--num-cpu", str(cpus), *style]
        label = "style control" if style_control else "plain"
        print(f"\nwhole command, {n} battles (60 models), {rounds} rounds, {label}; {_load()}")
        rounds_seen = process_pairs(
            pairs,
            "FastChat",
            lambda: timed_process(theirs, env, root),
            lambda: timed_process(ours, env, REPO),
            _load,
        )
        reference = _reference_ratings(root)
        mine = _our_ratings(root / "board.json", style_control)
    gap = max(abs(mine[model] - rating) for model, rating in reference.items())
    ratio = statistics.median(r[0] / r[2] for r in rounds_seen)
    print(
        f"  FastChat elo_analysis.py: median {statistics.median(r[0] for r in rounds_seen):.2f} s "
        f"(cpu {statistics.median(r[1] for r in rounds_seen):.2f} s)"
    )
    print(
        f"  vlmscope ratings battles: median {statistics.median(r[2] for r in rounds_seen):.2f} s "
        f"(cpu {statistics.median(r[3] for r in rounds_seen):.2f} s)"
    )
    print(
        f"  ratio FastChat / ours (median of pairs): {ratio:.1f}x (goal >= {GOAL_RATIO:.0f}x: "
        f"{'met' if ratio >= GOAL_RATIO else 'not met'}); largest point-rating difference "
        f"{gap:.4f} over {len(reference)} models"
    )
    return ratio
