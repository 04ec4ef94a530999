"""`vlmscope megabench bootstrap`: how the Core score would move with n examples per task."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from vlmscope.atomic_files import write_text_atomic
from vlmscope.tracks.megabench.bootstrap import (
    DEFAULT_NUM_DRAWS,
    DEFAULT_SAMPLE_SIZES,
    bootstrap_core_scores,
    format_bootstrap_report,
    query_scores_by_task,
    summarize_bootstrap,
)
from vlmscope.tracks.megabench.official_files import read_json


def handle_bootstrap(args: argparse.Namespace) -> int:
    """Resample every Core task of a `data_with_scores.json` to n queries (paper Sec. 4.3) and
    print the distribution of the Core score for each n as a Markdown table."""
    import numpy as np  # here, not at the top: building the `vlmscope megabench` parser skips it

    scores = query_scores_by_task(read_json(args.data_with_scores))
    if not scores:
        print("no Core (rule-scored) tasks in that file")
        return 2
    distributions = bootstrap_core_scores(
        scores, rng=np.random.default_rng(args.seed), sample_sizes=args.sizes, num_draws=args.draws
    )
    summaries = summarize_bootstrap(distributions)
    report = format_bootstrap_report(summaries)
    print(report)
    if args.out is not None:
        write_text_atomic(args.out, json.dumps([s.__dict__ for s in summaries], indent=2) + "\n")
    return 0


def add_bootstrap(sub: Any) -> None:
    parser = sub.add_parser(
        "bootstrap",
        help="distribution of the Core score with n examples per task (paper Sec. 4.3)",
        description=handle_bootstrap.__doc__,
    )
    parser.add_argument("data_with_scores", type=Path, help="an official data_with_scores.json")
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=list(DEFAULT_SAMPLE_SIZES),
        help="queries per task to resample to, one table row each (default: "
        + " ".join(map(str, DEFAULT_SAMPLE_SIZES))
        + ")",
    )
    parser.add_argument(
        "--draws", type=int, default=DEFAULT_NUM_DRAWS, help="draws per n (default 10,000)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the numpy Generator (default: 0)"
    )
    parser.add_argument("--out", type=Path, default=None, help="also write the summaries as JSON")
    parser.set_defaults(func=handle_bootstrap)
