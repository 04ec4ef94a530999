"""What `vlmscope run` does besides running: the dry run's flags and table, the ledger printed
after a run, and the run's config kept beside its results (for `vlmscope rejudge`).

Only light modules are imported here at start; the runner is imported when a command needs it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from vlmscope.atomic_files import write_text_atomic
from vlmscope.runner.run_files import RUN_CONFIG_FILE

if TYPE_CHECKING:
    from vlmscope.config import RunConfig
    from vlmscope.runner.ledger import RunTotals
    from vlmscope.runner.loop import RunReport
    from vlmscope.runner.token_estimate import EstimateSettings


def add_estimate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="send nothing, write nothing: print per track, phase and model how many requests "
        "the run would make, how many are cached already, the input tokens of the rest "
        "(counted with a local model's processor, approximated for an API model) and their "
        "expected output tokens, and the cost at the pricing file's prices",
    )
    parser.add_argument(
        "--output-tokens",
        type=int,
        default=256,
        metavar="N",
        help="expected reply length of a model with no earlier replies in the cache (capped "
        "at each request's limit; default 256); a model with some: their mean",
    )
    parser.add_argument(
        "--chars-per-token",
        type=float,
        default=4.0,
        metavar="F",
        help="the approximation of an API model's prompt: characters per token (default 4)",
    )
    parser.add_argument(
        "--image-tokens",
        type=int,
        metavar="N",
        help="the approximation of an API model's prompt: tokens per image (default: "
        "OpenAI's rule for a detailed image, from its size)",
    )
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="with --dry-run: also write the estimate here"
    )


def estimate_settings(args: argparse.Namespace) -> EstimateSettings:
    from vlmscope.runner.token_estimate import EstimateSettings

    if args.output_tokens < 0 or args.chars_per_token <= 0 or (args.image_tokens or 0) < 0:
        raise ValueError("--output-tokens, --image-tokens >= 0 and --chars-per-token > 0")
    return EstimateSettings(args.output_tokens, args.chars_per_token, args.image_tokens)


def dry_run(config: RunConfig, args: argparse.Namespace) -> int:
    """Print (and with --json write) the estimate of running `config`."""
    from vlmscope.cli.run_estimate import estimate_table
    from vlmscope.runner.estimate import dry_run as estimate
    from vlmscope.runner.plan import plan_tracks
    from vlmscope.runner.pricing import run_pricer

    planned = plan_tracks(config, source=str(args.config))
    result = estimate(config, planned, run_pricer(config), estimate_settings(args))
    print(estimate_table(result, config))
    if args.json is not None:
        payload = {"config": str(args.config), "lines": [x.to_json() for x in result.lines]}
        write_text_atomic(args.json, json.dumps(payload, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0


def report_ledger(report: RunReport) -> RunTotals:
    from vlmscope.runner.ledger import run_totals

    return run_totals((t.model, t.track, t.ledger) for t in report.tracks if t.ledger)


def format_ledger(totals: RunTotals, pricing: str | None) -> str:
    from vlmscope.runner.ledger_table import format_ledger as table

    return table(totals, pricing)


def write_run_config(config: RunConfig) -> None:
    """The config beside the results, so they can be judged again from their answers."""
    write_text_atomic(
        Path(config.output_dir) / RUN_CONFIG_FILE,
        json.dumps(config.model_dump(mode="json"), indent=1) + "\n",
    )
