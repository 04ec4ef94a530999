"""The VisionArena leaderboard (every board, style control, 100-round bootstrap) vs FastChat's
`report_elo_analysis_results` on the same battles, in the same run.

Battles: `make_battles.battle_lines` (FastChat clean-battle records: preset images, multi-turn,
ties; 10 % not anonymous), each given every vision category flag and the refusal flag (20 %
each, seeded) and one of three languages, so that every board of the leaderboard is fitted.

Ours: `arena_leaderboard`, which fits the full board, every category board of the vision
leaderboard and one per language, each plain and style-controlled, with FastChat's random
streams, plus tie shares, thin models and rank changes.

Reference: what FastChat runs for the same boards, `report_elo_analysis_results` called twice
per board (plain, then `style_control=True`), re-implemented step by step:
- the records as a `pandas.DataFrame`, the board's filter applied row by row
  (`DataFrame.apply(filter_func, axis=1)`; FastChat uses tqdm's `progress_apply`), the stable
  sort by `tstamp`, anonymous battles only, the tie-free subset;
- the online Elo pass over the battles (`compute_elo`: K 4, one update per row);
- the fits: `fastchat.serve.monitor.rating_systems` when importable, else the faithful
  re-implementation of `benchmarks/ratings.py` (scipy L-BFGS-B per fit, one refit per
  bootstrap round in a process pool of `--cpus`, as FastChat does);
- the leaderboard table (bootstrap quantiles, variance, CI ranking, battle counts) and the
  tables behind its figures (pairwise win fractions and battle counts, pivot tables of the
  tie-free battles). The plotly figures themselves are left out, which only flatters the
  reference.
The fits alone are timed too and printed beside it, so the share of the pipeline is visible.
Printed: seconds for each, the ratios, and the largest point-rating difference over every
board (goal: within 0.1).

    python benchmarks/arena_leaderboard.py [--battles 30000] [--rounds 100] [--cpus 2]
    python benchmarks/arena_leaderboard.py --fastchat FASTCHAT_DIR

With `--fastchat PATH` the reference is FastChat's own code from a lm-sys/FastChat checkout at
PATH (never copied here): `elo_analysis.report_elo_analysis_results` itself, called twice per
board (plain, then `style_control=True`, each after the CLI's `np.random.seed(42)`), figures
included, on the same records; the re-implementation above is then not used.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_battles import battle_lines  # noqa: E402
from ratings import Reimplementation, Upstream, timed, warm_up  # noqa: E402

from vlmscope.ratings.boards.board import RatingBoard  # noqa: E402
from vlmscope.ratings.inputs.battles import (  # noqa: E402
    STYLE_ELEMENTS_A,
    STYLE_ELEMENTS_B,
    Battles,
)
from vlmscope.ratings.inputs.filters import VISION_CATEGORIES, board_filter  # noqa: E402
from vlmscope.tracks.visionarena.report import ArenaSettings, arena_leaderboard  # noqa: E402


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


def reference_fits(
    battles: Battles, style_control: bool, rounds: int, cpus: int
) -> tuple[np.ndarray, np.ndarray]:
    """FastChat's point fit and bootstrap for one board; returns (point ratings, rounds x models)."""
    try:
        ref: Any = Upstream(battles, cpus)
    except ImportError:
        ref = Reimplementation(battles, cpus)
    if style_control:
        points, _ = ref.style()
        samples, _ = ref.bootstrap_style(rounds)
    else:
        points, _ = ref.bt()
        samples, _ = ref.bootstrap_bt(rounds)
    return np.asarray(points, dtype=float), np.asarray(samples, dtype=float)


def online_elo(
    frame: Any, k: float = 4.0, base: float = 10.0, scale: float = 400.0
) -> dict[str, float]:
    """FastChat's `compute_elo`: every model starts at 1000, one update per battle in row order."""
    rating: dict[str, float] = defaultdict(lambda: 1000.0)
    scores = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}
    for _, model_a, model_b, winner in frame[["model_a", "model_b", "winner"]].itertuples():
        ra, rb = rating[model_a], rating[model_b]
        expected_a = 1 / (1 + base ** ((rb - ra) / scale))
        expected_b = 1 / (1 + base ** ((ra - rb) / scale))
        score_a = scores[winner]
        rating[model_a] += k * (score_a - expected_a)
        rating[model_b] += k * (1 - score_a - expected_b)
    return dict(rating)


def frame_battles(frame: Any) -> Battles:
    """The selected DataFrame's battles as the fits take them (style counts summed per element)."""
    winner = frame["winner"].to_numpy()
    outcome = np.select([winner == "model_a", winner == "model_b"], [1.0, 0.0], 0.5)
    counts = np.array(
        [
            frame["conv_metadata"]
            .map(lambda meta, e=element: meta[e] if type(meta[e]) is int else sum(meta[e].values()))
            .to_numpy(dtype=float)
            for element in (*STYLE_ELEMENTS_A, *STYLE_ELEMENTS_B)
        ]
    ).T
    half = len(STYLE_ELEMENTS_A)
    return Battles.from_names(
        frame["model_a"].tolist(),
        frame["model_b"].tolist(),
        outcome,
        style_a=counts[:, :half],
        style_b=counts[:, half:],
    )


def win_fraction_table(frame: Any) -> Any:
    """FastChat's `compute_pairwise_win_fraction`: wins as a and as b over battles per pair."""
    import pandas as pd

    def size_table(rows: Any) -> Any:
        return pd.pivot_table(
            rows, index="model_a", columns="model_b", aggfunc="size", fill_value=0
        )

    a_wins = size_table(frame[frame["winner"] == "model_a"])
    b_wins = size_table(frame[frame["winner"] == "model_b"])
    battles = size_table(frame)
    return (a_wins + b_wins.T) / (battles + battles.T)


def report_reference(
    records: list[dict[str, Any]], board: str | None, style_control: bool, rounds: int, cpus: int
) -> tuple[dict[str, float], float]:
    """One `report_elo_analysis_results` call (figures left out): the point ratings, and the
    seconds its fits took."""
    import pandas as pd

    keep = board_filter(board) if board else (lambda row: True)
    frame = pd.DataFrame(records)
    frame = frame[frame.apply(keep, axis=1)]
    frame = frame.sort_values(ascending=True, by=["tstamp"])
    frame = frame[frame["anony"]].reset_index(drop=True)
    no_ties = frame[~frame["winner"].str.contains("tie")]
    online_elo(frame)
    battles = frame_battles(frame)
    start = time.perf_counter()
    points, samples = reference_fits(battles, style_control, rounds, cpus)
    fit_seconds = time.perf_counter() - start
    final = pd.Series(points, index=list(battles.models))
    bootstrap = pd.DataFrame(samples, columns=list(battles.models))
    low, high = bootstrap.quantile(0.025), bootstrap.quantile(0.975)
    ranking = {model: 1 + int((low.drop(model) > high[model]).sum()) for model in final.index}
    pd.DataFrame(
        {
            "rating": final,
            "variance": bootstrap.var(),
            "rating_q975": high,
            "rating_q025": low,
            "num_battles": frame["model_a"]
            .value_counts()
            .add(frame["model_b"].value_counts(), fill_value=0),
            "final_ranking": pd.Series(ranking),
        }
    )
    order = list(final.sort_values(ascending=False).index[:25])
    fractions = win_fraction_table(no_ties)
    fractions.reindex(index=order, columns=order)  # the heatmap
    fractions.mean(axis=1).sort_values(ascending=False)  # the average win rate bars
    counts = pd.pivot_table(
        no_ties, index="model_a", columns="model_b", aggfunc="size", fill_value=0
    )
    (counts + counts.T).reindex(index=order, columns=order)  # the battle count heatmap
    return dict(final.items()), fit_seconds


def fastchat_report(
    elo_analysis: Any,
    records: list[dict[str, Any]],
    board: str | None,
    style_control: bool,
    rounds: int,
    cpus: int,
) -> tuple[dict[str, float], float]:
    """FastChat's own `report_elo_analysis_results` for one board: the point ratings, and its
    seconds (all of it: the fits are inside)."""
    keep = board_filter(board) if board else (lambda row: True)

    def board_filter_func(row: Any) -> bool:  # FastChat names its progress bar after it
        return bool(keep(row))

    np.random.seed(42)  # as elo_analysis.py's command line does before its reports
    start = time.perf_counter()
    result = elo_analysis.report_elo_analysis_results(
        records,
        rating_system="bt",
        num_bootstrap=rounds,
        filter_func=board_filter_func,
        style_control=style_control,
        num_cpu=cpus,
    )
    return dict(result["elo_rating_final"]), time.perf_counter() - start


def main() -> None:
    from checkouts import FASTCHAT, checkout  # beside this script

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--cpus", type=int, default=2, help="reference pool size (num_cpu)")
    parser.add_argument(
        "--fastchat",
        type=checkout("lm-sys/FastChat", FASTCHAT),
        metavar="DIR",
        help="a lm-sys/FastChat checkout",
    )
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args()
    elo_analysis = None
    if args.fastchat is not None:
        from fastchat_reference import reference_modules

        elo_analysis, _ = reference_modules(args.fastchat)
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

    fit_seconds: list[float] = []

    def reference_all() -> dict[str | None, dict[str, float]]:
        points = {}
        for name in names:
            if elo_analysis is not None:
                points[name], _ = fastchat_report(
                    elo_analysis, records, name, False, *reference_args
                )
                fastchat_report(elo_analysis, records, name, True, *reference_args)
                continue
            points[name], plain_fits = report_reference(records, name, False, *reference_args)
            _, style_fits = report_reference(records, name, True, *reference_args)
            fit_seconds.extend((plain_fits, style_fits))
        return points

    reference_args = (args.rounds, args.cpus)
    t_ref, ref_points = timed(reference_all)
    t_fits = sum(fit_seconds)
    gap = 0.0
    for name in names:
        ours: RatingBoard = board if name is None else board.categories[name]
        for model, rating in ref_points[name].items():
            gap = max(gap, abs(ours.models[model].rating - rating))
    print(f"ours      {t_ours:8.2f} s  (cpu {cpu_ours:.2f} s)")
    if elo_analysis is not None:
        print(f"reference {t_ref:8.2f} s  (FastChat's own report_elo_analysis_results)")
        print(f"ratio reference / ours: {t_ref / t_ours:.1f}x (goal >= 10x)")
    else:
        fits = "fastchat rating_systems" if _upstream() else "re-implemented fits"
        print(f"reference {t_ref:8.2f} s  (report_elo_analysis_results re-implemented, {fits})")
        print(f"  of which the fits {t_fits:8.2f} s")
        print(f"ratio reference / ours: {t_ref / t_ours:.1f}x (goal >= 10x)")
        print(f"ratio fits alone / ours: {t_fits / t_ours:.1f}x")
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
