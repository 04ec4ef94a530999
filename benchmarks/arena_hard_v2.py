"""arena-hard v2's boards against upstream's own `show_result.py`, same rows, same run.

    python benchmarks/arena_hard_v2.py --arena-hard ARENA_HARD_DIR [--sizes 500 5000]
                                       [--rounds 100] [--pairs 2] [--models 8]

`--arena-hard PATH` is a lmarena/arena-hard-auto v2 checkout (never copied here); its
`show_result.py` is imported from there. There is no stand-in: without the path the script
says so and exits non-zero.

At each size (score rows, each model an equal share; `make_verdicts.py`) both boards are
timed in this process, A B A B:
- style control: upstream's `print_leaderboard_with_style_features(battles, .., ["length",
  "markdown"])` (style features, 100 fixed-step torch L-BFGS fits, quantiles, the printed
  table) against ours, `arena_hard_v2_style_board` (the same fit in torch float32);
- no style: upstream's `print_leaderboard` (100 rounds of pandas `groupby().sample()` per
  model) against `arena_hard_v2_board`.
Upstream runs as its command runs it, with three things filled in that it reads from disk or
shows on screen: `JUDGE_SETTINGS` names the baseline for the category, `get_model_style_metadata`
returns the answers' metadata from memory, and tqdm bars are off (its stdout is discarded).
Both sides start from the rows already built (upstream's exploded `battles` frame, our
`JudgedScore` rows) and from `np.random.seed(42)` / seed 42, so their bootstrap draws are the
same ones. Both run on one torch thread (`torch.set_num_threads(1)`; ours sets it for its own
fit too) and one BLAS thread where the environment sets `OMP_NUM_THREADS=1`.
A 100-row board of each kind is run on both sides first, untimed (first-call costs).
Printed: median seconds of each side, the median of the pair ratios upstream / ours, and how
many models' printed score (`Scores (%)`) and interval (`CI (%)`) are the same on both.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ab_pairs import alternate  # noqa: E402
from checkouts import ARENA_HARD_V2, checkout  # noqa: E402
from help_defaults import show_defaults  # noqa: E402
from make_verdicts import BASELINE, CATEGORY, verdict_rows  # noqa: E402

from vlmscope.ratings.inputs.verdict_battles import JudgedScore  # noqa: E402

Table = dict[str, tuple[float, str]]
"""Model -> (printed score in %, printed interval), as upstream's table shows them."""


def _load() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"


def upstream_module(folder: Path) -> Any:
    """Upstream's `show_result`, imported from the checkout, its progress bars off."""
    sys.path.insert(0, str(folder))
    import show_result
    import utils.math_utils

    def quiet(items: Any, **_: Any) -> Any:
        return items

    show_result.tqdm = quiet
    utils.math_utils.tqdm = quiet
    return show_result


def upstream_input(
    rows: Sequence[JudgedScore], records: Sequence[dict[str, Any]]
) -> tuple[Any, dict[str, dict[str, Any]]]:
    """The exploded `battles` frame `load_judgments` makes of these rows, and the answers'
    metadata `get_model_style_metadata` reads from the answer files (by model, then uid)."""
    import pandas as pd

    battles = pd.DataFrame(
        {
            "uid": [row.uid for row in rows],
            "model": [row.model for row in rows],
            "category": [CATEGORY] * len(rows),
            "scores": pd.Series([row.score for row in rows], dtype=object),
        }
    )
    metadata: dict[str, dict[str, Any]] = {}
    for record in records:
        metadata.setdefault(record["model"], {})[record["uid"]] = record["model_metadata"]
        metadata.setdefault(BASELINE, {})[record["uid"]] = record["baseline_metadata"]
    return battles, metadata


def run_upstream(
    show_result: Any, battles: Any, metadata: dict[str, Any], style: bool
) -> tuple[float, Table]:
    """(seconds, printed table) of one upstream board on a copy of `battles`."""
    show_result.JUDGE_SETTINGS = {CATEGORY: {"baseline": BASELINE}}
    show_result.get_model_style_metadata = lambda benchmark: metadata
    shown: dict[str, Any] = {}
    table_of = show_result.format_confidence_interval

    def keep_table(*args: Any, **kwargs: Any) -> Any:
        shown["table"] = table = table_of(*args, **kwargs)
        return table

    show_result.format_confidence_interval = keep_table
    frame = battles.copy()  # the style board renames the models in place
    np.random.seed(42)
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        if style:
            show_result.print_leaderboard_with_style_features(
                frame, "arena-hard-v2.0", CATEGORY, ["length", "markdown"]
            )
        else:
            show_result.print_leaderboard(frame, CATEGORY)
    seconds = time.perf_counter() - start
    show_result.format_confidence_interval = table_of
    table = shown["table"]
    return seconds, {
        str(r["Model"]): (float(r["Scores (%)"]), str(r["CI (%)"])) for _, r in table.iterrows()
    }


def run_ours(rows: Sequence[JudgedScore], style: bool, rounds: int) -> tuple[float, Table]:
    """(seconds, the table our board prints) of one of our boards."""
    from vlmscope.ratings.boards.arena_hard_v2 import arena_hard_v2_board, arena_hard_v2_style_board

    board_of = arena_hard_v2_style_board if style else arena_hard_v2_board
    start = time.perf_counter()
    board = board_of(rows, BASELINE, rounds=rounds, seed=42)
    seconds = time.perf_counter() - start
    return seconds, {  # upstream rounds numpy floats: `round(x * 100, 1)` is numpy's rounding
        model: (float(np.round(rate.score * 100, 1)), rate.ci_text())
        for model, rate in board.win_rates.items()
    }


def agreement(theirs: Table, ours: Table) -> str:
    """How many models print the same score and interval, and the first that does not."""
    same = [m for m in theirs if ours.get(m) == theirs[m]]
    text = f"{len(same)} of {len(theirs)} models print the same score and CI"
    if set(theirs) != set(ours):
        text += f"; models differ: upstream {sorted(theirs)}, ours {sorted(ours)}"
    differing = [m for m in theirs if m in ours and ours[m] != theirs[m]]
    if differing:
        m = differing[0]
        text += f" (first other: {m} upstream {theirs[m]}, ours {ours[m]})"
    return text


def compare(
    show_result: Any, n_rows: int, n_models: int, rounds: int, pairs: int, style: bool
) -> tuple[float, bool]:
    """Print one size's figures for one board; returns (median ratio, every model agrees)."""
    rows, records = verdict_rows(n_rows, n_models=n_models)
    battles, metadata = upstream_input(rows, records)
    label = "style control (length, markdown)" if style else "no style"
    print(f"\n{n_rows} rows, {n_models} models + baseline, {label}; {_load()}", flush=True)
    runs = alternate(
        pairs,
        lambda: run_upstream(show_result, battles, metadata, style),
        lambda: run_ours(rows, style, rounds),
        lambda theirs, mine: (
            f"upstream {theirs[0]:7.3f} s, ours {mine[0]:7.3f} s: "
            f"{theirs[0] / mine[0]:5.1f}x; {_load()}"
        ),
    )
    timings = [(theirs[0], mine[0]) for theirs, mine in runs]
    ratio = statistics.median(up / mine for up, mine in timings)
    tables = (runs[-1][0][1], runs[-1][1][1])  # the last pair's tables
    print(
        f"  median: upstream {statistics.median(t[0] for t in timings):.3f} s, ours "
        f"{statistics.median(t[1] for t in timings):.3f} s; upstream / ours {ratio:.1f}x"
    )
    print(f"  {agreement(*tables)}")
    return ratio, tables[0] == tables[1]


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="Needs --arena-hard: the reference is upstream's own show_result.py.",
    )
    parse.add_argument(
        "--arena-hard",
        type=checkout("lmarena/arena-hard-auto v2", ARENA_HARD_V2),
        metavar="ARENA_HARD_DIR",
        help="an arena-hard-auto v2 checkout (its show_result.py and utils/); required",
    )
    parse.add_argument("--sizes", type=int, nargs="+", default=[500, 5000], help="score rows")
    parse.add_argument("--models", type=int, default=8, help="judged models besides the baseline")
    parse.add_argument(
        "--rounds",
        type=int,
        default=100,
        help="bootstrap rounds: upstream fixes 100, so only 100 compares",
    )
    parse.add_argument("--pairs", type=int, default=2, help="A B pairs per board and size")
    parse.add_argument("--no-plain", action="store_true", help="only the style-controlled board")
    return show_defaults(parse)


def main(argv: Sequence[str] | None = None) -> int:
    parse = parser()
    args = parse.parse_args(argv)
    if args.arena_hard is None:
        parse.error(
            "the reference is needed: give --arena-hard ARENA_HARD_DIR (an arena-hard-auto v2 "
            "checkout); there is no stand-in"
        )
    if args.rounds != 100:
        parse.error("upstream fits 100 rounds, fixed; --rounds must be 100 to compare")
    import torch

    torch.set_num_threads(1)
    show_result = upstream_module(args.arena_hard)
    print(
        f"arena-hard v2 boards, upstream {args.arena_hard / 'show_result.py'} vs vlmscope; "
        f"torch threads: {torch.get_num_threads()} (both sides), "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}"
    )
    warm_rows, warm_records = verdict_rows(100, n_models=args.models, seed=7)
    warm_battles, warm_metadata = upstream_input(warm_rows, warm_records)
    for style in (True, False):  # first-call costs (torch.optim's import, pandas' paths): untimed
        run_upstream(show_result, warm_battles, warm_metadata, style)
        run_ours(warm_rows, style, args.rounds)
    agree = [
        compare(show_result, n_rows, args.models, args.rounds, args.pairs, style)[1]
        for n_rows in args.sizes
        for style in ((True,) if args.no_plain else (True, False))
    ]
    return 0 if all(agree) else 1


if __name__ == "__main__":
    sys.exit(main())
