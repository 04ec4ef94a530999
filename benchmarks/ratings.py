"""Ratings engine vs FastChat's rating code, same battles, same run.

Synthetic battles (20 models, ties, style counts; `vlmscope.ratings.synthetic_battles`) at
each size; for each: Bradley-Terry point fit, 100-round bootstrap, style-controlled point fit
and 100-round style-controlled bootstrap. Ours uses FastChat's random streams
(`stream="fastchat"`) so the bootstrap quantiles are comparable sample by sample; our default
Generator stream is timed too. Printed: seconds, reference / ours, and the largest rating
difference (points) and coefficient difference.

The reference is `fastchat.serve.monitor.rating_systems` when importable. Otherwise (the PyPI
`fschat` releases predate that module) the script runs a faithful re-implementation of the
same algorithm: rows merged with `np.unique` and fitted by scipy L-BFGS-B (maxiter 100, gtol
1e-6) for Bradley-Terry, the per-row penalised loss for style control, one refit per
bootstrap round in a `multiprocessing.Pool(cpus).imap_unordered`, as FastChat does.

    python benchmarks/ratings.py [--sizes 30000 300000] [--rounds 100] [--cpus 2]
    python benchmarks/ratings.py --fastchat FASTCHAT_DIR [--whole-command 30000] [--pairs 2]

`--fastchat PATH` takes the reference from a lm-sys/FastChat checkout at PATH (never copied
here): the fits above use its `rating_systems`, and first the whole command from a file is
timed against FastChat's own `elo_analysis.py`, plain and with style control
(`ratings_whole_command.py`), each in fresh processes, A B A B.

A size of 1,000,000 or more is the large-file run: the battles are written once under /tmp as
JSON lines and as Parquet (`make_battles.py`), each file is streamed and rated with style
control and the bootstrap in its own process (seconds, CPU seconds, peak RSS; goal 30 s and
4 GB at 3,000,000 on 2 cores), then the reference comparison runs at 300,000.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vlmscope.ratings import (  # noqa: E402
    FASTCHAT_ANCHOR,
    Battles,
    bootstrap_bt,
    bootstrap_style_control,
    bt_ratings,
    style_control_ratings,
    style_features,
    synthetic_battles,
    to_rating_scale,
)
from vlmscope.ratings.fits.fastchat_optimiser import lbfgs_bt, lbfgs_style  # noqa: E402

Fit = tuple[np.ndarray, np.ndarray | None]  # ratings (rounds x models or models), coefficients


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


# --- reference: re-implementation of FastChat's algorithm -------------------------------


def _fit_style_rows(
    idx: np.ndarray, a: np.ndarray, b: np.ndarray, f: np.ndarray, y: np.ndarray, m: int
) -> np.ndarray:
    return lbfgs_style(a[idx], b[idx], f[idx], y[idx], m, math.log(10.0))


class Reimplementation:
    name = "re-implementation of FastChat rating_systems (fastchat not importable)"

    def __init__(self, battles: Battles, cpus: int) -> None:
        self.b, self.cpus, self.m = battles, cpus, battles.n_models

    def _unique(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        outcome_id = np.rint(self.b.outcome * 2).astype(np.int64)
        rows, counts = np.unique(
            np.column_stack([self.b.model_a, self.b.model_b, outcome_id]),
            axis=0,
            return_counts=True,
        )
        return rows[:, 0], rows[:, 1], rows[:, 2] / 2.0, counts.astype(np.float64)

    def _scale(self, strengths: np.ndarray) -> np.ndarray:
        return to_rating_scale(strengths, self.b.models, FASTCHAT_ANCHOR)

    def bt(self) -> Fit:
        a, b, y, w = self._unique()
        return self._scale(lbfgs_bt(a, b, y, w, self.m, math.log(10.0))), None

    def bootstrap_bt(self, rounds: int) -> Fit:
        a, b, y, w = self._unique()
        n = len(self.b)
        boot = np.random.default_rng(seed=0).multinomial(n, w / w.sum(), size=rounds) / n
        fit = partial(lbfgs_bt, a, b, y, n_models=self.m, alpha=math.log(10.0))
        with mp.Pool(self.cpus) as pool:
            results = list(pool.imap_unordered(fit, boot))
        return self._scale(np.array(results)), None

    def _features(self) -> np.ndarray:
        assert self.b.style_a is not None and self.b.style_b is not None
        return style_features(self.b.style_a, self.b.style_b)

    def style(self) -> Fit:
        params = lbfgs_style(
            self.b.model_a, self.b.model_b, self._features(), self.b.outcome, self.m, math.log(10.0)
        )
        return self._scale(params[: self.m]), params[self.m :]

    def bootstrap_style(self, rounds: int) -> Fit:
        n = len(self.b)
        idxs = np.random.RandomState(42).randint(0, n, size=(rounds, n))
        fit = partial(
            _fit_style_rows,
            a=self.b.model_a,
            b=self.b.model_b,
            f=self._features(),
            y=self.b.outcome,
            m=self.m,
        )
        with mp.Pool(self.cpus) as pool:
            results = np.array(list(pool.imap_unordered(fit, idxs)))
        return self._scale(results[:, : self.m]), results[:, self.m :]


class Upstream:
    """FastChat's own functions on a DataFrame of the same battles."""

    name = "fastchat.serve.monitor.rating_systems"

    def __init__(self, battles: Battles, cpus: int) -> None:
        import pandas as pd
        from fastchat.serve.monitor import rating_systems

        self.rs, self.cpus, self.models = rating_systems, cpus, battles.models
        assert battles.style_a is not None and battles.style_b is not None
        keys_a = ["sum_assistant_a_tokens", "header_count_a", "list_count_a", "bold_count_a"]
        keys_b = ["sum_assistant_b_tokens", "header_count_b", "list_count_b", "bold_count_b"]
        meta = [
            {
                **dict(zip(keys_a, map(int, sa), strict=True)),
                **dict(zip(keys_b, map(int, sb), strict=True)),
            }
            for sa, sb in zip(battles.style_a, battles.style_b, strict=True)
        ]
        names = np.array(battles.models, dtype=object)
        winner = np.select(
            [battles.outcome == 1.0, battles.outcome == 0.0], ["model_a", "model_b"], "tie"
        )
        self.df = pd.DataFrame(
            {
                "model_a": names[battles.model_a],
                "model_b": names[battles.model_b],
                "winner": winner,
                "conv_metadata": meta,
            }
        )

    def _order(self, frame: Any) -> np.ndarray:
        return np.asarray(frame[list(self.models)], dtype=np.float64)

    def bt(self) -> Fit:
        return self._order(self.rs.compute_bt(self.df)), None

    def bootstrap_bt(self, rounds: int) -> Fit:
        return self._order(self.rs.compute_bootstrap_bt(self.df, rounds, num_cpu=self.cpus)), None

    def style(self) -> Fit:
        ratings, coefs = self.rs.compute_style_control(self.df)
        return self._order(ratings), np.asarray(coefs)

    def bootstrap_style(self, rounds: int) -> Fit:
        np.random.seed(42)
        ratings, coefs = self.rs.compute_bootstrap_style_control(self.df, rounds, num_cpu=self.cpus)
        return self._order(ratings), np.asarray(coefs)


# --- comparison -------------------------------------------------------------------------


def quantile_gap(ours: np.ndarray, ref: np.ndarray) -> float:
    """Largest difference of the 2.5 / 50 / 97.5 % bootstrap quantiles over models."""
    return float(
        max(
            np.abs(np.quantile(ours, q, axis=0) - np.quantile(ref, q, axis=0)).max()
            for q in (0.025, 0.5, 0.975)
        )
    )


_TOTALS = {"ours": 0.0, "ref": 0.0}


def row(label: str, ours_s: float, ref_s: float, diff: str) -> None:
    _TOTALS["ours"] += ours_s
    _TOTALS["ref"] += ref_s
    print(
        f"  {label:<34} ours {ours_s:8.3f} s   ref {ref_s:8.3f} s   ref/ours {ref_s / ours_s:7.1f}x   {diff}"
    )


def warm_up(cpus: int) -> None:
    """One tiny run of everything, so one-time import and set-up costs are not timed."""
    tiny = synthetic_battles(500, n_models=20, seed=1)
    bootstrap_style_control(tiny, rounds=2, stream="fastchat")
    bootstrap_bt(tiny, rounds=2, stream="fastchat")
    try:
        Upstream(tiny, cpus).bt()
    except ImportError:
        Reimplementation(tiny, cpus).bt()


def run_size(n: int, rounds: int, cpus: int) -> None:
    _TOTALS.update(ours=0.0, ref=0.0)
    battles = synthetic_battles(n, n_models=20, seed=2024)
    try:
        ref: Any = Upstream(battles, cpus)
    except ImportError:
        ref = Reimplementation(battles, cpus)
    ties = float(np.mean(battles.outcome == 0.5))
    print(f"\n{n} battles, 20 models, {ties:.0%} ties; reference: {ref.name}")

    t_ours, ours = timed(lambda: bt_ratings(battles))
    t_ref, (ref_bt, _) = timed(ref.bt)
    row(
        "Bradley-Terry point fit",
        t_ours,
        t_ref,
        f"max |d rating| {np.abs(ours - ref_bt).max():.4f}",
    )

    t_ours, boot = timed(lambda: bootstrap_bt(battles, rounds=rounds, stream="fastchat"))
    t_ref, (ref_boot, _) = timed(lambda: ref.bootstrap_bt(rounds))
    row(
        f"BT bootstrap, {rounds} rounds",
        t_ours,
        t_ref,
        f"max |d quantile| {quantile_gap(boot.samples, ref_boot):.4f}",
    )
    t_gen, gen = timed(
        lambda: bootstrap_bt(battles, rounds=rounds, rng=np.random.default_rng(2024))
    )
    print(
        f"    our default Generator stream: {t_gen:.3f} s, max |d quantile| vs reference stream {quantile_gap(gen.samples, ref_boot):.2f} (sampling noise)"
    )

    t_ours, fit = timed(lambda: style_control_ratings(battles))
    t_ref, (ref_sc, ref_coef) = timed(ref.style)
    row(
        "style-controlled point fit",
        t_ours,
        t_ref,
        f"max |d rating| {np.abs(fit.ratings - ref_sc).max():.4f}, max |d coef| {np.abs(fit.coefs - ref_coef).max():.2e}",
    )

    t_ours, sboot = timed(
        lambda: bootstrap_style_control(battles, rounds=rounds, stream="fastchat")
    )
    t_ref, (ref_sboot, ref_scoef) = timed(lambda: ref.bootstrap_style(rounds))
    assert sboot.coef_samples is not None
    coef_gap = np.abs(np.median(sboot.coef_samples, axis=0) - np.median(ref_scoef, axis=0)).max()
    row(
        f"style bootstrap, {rounds} rounds",
        t_ours,
        t_ref,
        f"max |d quantile| {quantile_gap(sboot.samples, ref_sboot):.4f}, median coef {coef_gap:.2e}",
    )
    t_gen, sgen = timed(
        lambda: bootstrap_style_control(battles, rounds=rounds, rng=np.random.default_rng(2024))
    )
    print(
        f"    our default Generator stream: {t_gen:.3f} s, max |d quantile| vs reference stream {quantile_gap(sgen.samples, ref_sboot):.2f} (sampling noise)"
    )
    ours, ref = _TOTALS["ours"], _TOTALS["ref"]
    print(f"  all four at {n}: ours {ours:.3f} s, ref {ref:.3f} s, ref/ours {ref / ours:.1f}x")


def end_to_end(n: int, rounds: int, suffix: str = ".jsonl") -> None:
    """A FastChat-shaped file of ``n`` battles (JSON lines or Parquet, written under /tmp once),
    streamed and rated with style control and a ``rounds`` bootstrap, in a fresh process (so
    the peak RSS printed is that run's own)."""
    import subprocess

    from make_battles import write_battles

    path = Path(f"/tmp/vlmscope_battles_{n}{suffix}")
    if not path.exists():
        write_battles(path, n)
    command = [sys.executable, __file__, "--rate-file", str(path), "--rounds", str(rounds)]
    subprocess.run(command, check=True)


def rate_file(path: Path, rounds: int) -> None:
    """Stream ``path`` (``read_board_battles``) and rate it like FastChat with style control."""
    import resource

    from vlmscope.ratings.boards.battle_presets import BattleSettings, rate_table
    from vlmscope.ratings.inputs.battle_stream import read_board_battles

    cpu = time.process_time()
    t_read, streamed = timed(lambda: read_board_battles(path, style=True))
    cpu_read = time.process_time() - cpu
    settings = BattleSettings(reference="fastchat", style_control=True, rounds=rounds)
    t_fit, _ = timed(lambda: rate_table(streamed.battles, settings))
    cpu_fit = time.process_time() - cpu - cpu_read
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    load = os.getloadavg()[0]
    print(
        f"\n{len(streamed.battles)} rated of the battles in {path} "
        f"({path.stat().st_size / 1e9:.2f} GB): read {t_read:.1f} s (cpu {cpu_read:.1f} s), "
        f"style control + {rounds}-round bootstrap {t_fit:.1f} s (cpu {cpu_fit:.1f} s), "
        f"total {t_read + t_fit:.1f} s (goal <= 30 s), peak RSS {peak:.2f} GB (goal < 4 GB); "
        f"load average {load:.1f} on {os.cpu_count()} CPUs",
        flush=True,
    )


def main() -> None:
    from checkouts import FASTCHAT, checkout  # beside this script

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30_000, 300_000])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument(
        "--cpus", type=int, default=2, help="reference pool size (FastChat num_cpu)"
    )
    parser.add_argument("--rate-file", type=Path, help=argparse.SUPPRESS)  # one end-to-end run
    parser.add_argument(
        "--fastchat",
        type=checkout("lm-sys/FastChat", FASTCHAT),
        metavar="DIR",
        help="a lm-sys/FastChat checkout",
    )
    parser.add_argument(
        "--whole-command",
        type=int,
        default=30_000,
        metavar="N",
        help="--fastchat: battles in the file both commands rate (default 30000; 0: skip)",
    )
    parser.add_argument("--pairs", type=int, default=2, help="--fastchat: A B pairs (medians)")
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args()
    if args.rate_file is not None:
        rate_file(args.rate_file, args.rounds)
        return
    if args.fastchat is not None:
        from fastchat_reference import reference_modules
        from ratings_whole_command import whole_command

        reference_modules(args.fastchat)  # the fits below then use FastChat's rating_systems
        if args.whole_command:
            for style_control in (False, True):
                whole_command(
                    args.fastchat,
                    args.whole_command,
                    args.rounds,
                    args.cpus,
                    args.pairs,
                    style_control,
                )
    warm_up(args.cpus)
    for n in args.sizes:
        if n >= 1_000_000:  # streamed from disk; the reference comparison runs at 300k
            end_to_end(n, args.rounds, ".jsonl")
            end_to_end(n, args.rounds, ".parquet")
            run_size(300_000, args.rounds, args.cpus)
        else:
            run_size(n, args.rounds, args.cpus)


if __name__ == "__main__":
    main()
