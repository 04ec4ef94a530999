"""`vlmscope run` / `run_eval.py`: run a config, print the summary table."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlmscope.atomic_files import write_text_atomic
from vlmscope.cli.number_args import amount_above_zero, whole_above_zero
from vlmscope.cli.run_extras import (
    add_estimate_arguments,
    dry_run,
    estimate_settings,
    format_ledger,
    report_ledger,
    write_run_config,
)
from vlmscope.launch_output import print_once
from vlmscope.shipped_configs import config_path

if TYPE_CHECKING:
    from vlmscope.config import RunConfig

# The config's types (pydantic, yaml) are imported when a config is read, not to build the
# parser: `vlmscope --help` and an argument error need neither.

DESCRIPTION = """\
Run the models of a config on its tracks: generate (batched, cached, split across the processes
of `accelerate launch`), judge where a track needs it, score, and write one result dataset per
model and track under the output directory. Re-running reuses every cached response; a killed
run resumes where it stopped.
"""


def add_arguments(parser: argparse.ArgumentParser, *, config: bool = True) -> None:
    """The run's options; `config=False` leaves out `--config` (`vlmscope demo` names its own)."""
    if config:
        parser.add_argument(
            "--config", required=True, type=Path, help="YAML run config (see configs/)"
        )
    parser.add_argument(
        "--limit",
        type=whole_above_zero,
        metavar="N",
        help="a quick debug run: the first N rows of each track; MEGA-Bench: the first N "
        "queries of every task, so every task is still scored. The summaries record N, and the "
        "leaderboard marks a limited run and never shows it in place of a full run",
    )
    parser.add_argument(
        "--tracks", help="comma-separated track names to run (default: all in the config)"
    )
    parser.add_argument("--models", help="comma-separated model names to run (default: all)")
    parser.add_argument(
        "--output-dir",
        help="where result datasets and the cache go (default: the config's `output_dir`, "
        "else results)",
    )
    parser.add_argument(
        "--push-to-hub", metavar="REPO", help="publish the results folder to this Hub dataset repo"
    )
    parser.add_argument(
        "--allow-missing-dependencies",
        action="store_const",
        const=True,
        help="run even when a track's system dependency (e.g. WordNet) is missing; the "
        "summaries then list what was missing and which scores it affects",
    )
    parser.add_argument(
        "--pricing",
        metavar="FILE",
        help="prices per million tokens per model (YAML, see configs/pricing_example.yaml): "
        "the ledger's costs, the dry run's estimate and the budget (default: the config's "
        "`pricing:`)",
    )
    parser.add_argument(
        "--budget",
        type=amount_above_zero,
        metavar="USD",
        help="stop before the next request would take this run's spending past USD (by the "
        "pricing file; a request's cost estimated as for --dry-run); what was answered stays "
        "cached, so the same command with a larger budget goes on where it stopped",
    )
    add_estimate_arguments(parser)


def add_subparser(subparsers: Any) -> None:
    parser = subparsers.add_parser("run", help="run an evaluation config", description=DESCRIPTION)
    add_arguments(parser)
    parser.set_defaults(func=handle)


def config_from_args(args: argparse.Namespace) -> RunConfig:
    from vlmscope.config import load_config

    path, note = config_path(args.config)
    if note:
        print(note, file=sys.stderr)
    config = load_config(
        path,
        {
            "limit": args.limit,
            "output_dir": args.output_dir,
            "push_to_hub": args.push_to_hub,
            "allow_missing_dependencies": args.allow_missing_dependencies,
            "pricing": args.pricing,
            "budget_usd": args.budget,
        },
    )
    updates: dict[str, Any] = {}
    if args.tracks:
        updates["tracks"] = _select(config.tracks, args.tracks, "--tracks")
    if args.models:
        updates["models"] = _select(config.models, args.models, "--models")
    return config.model_copy(update=updates) if updates else config


def _select(items: list[Any], wanted: str, flag: str) -> list[Any]:
    from vlmscope.config import ConfigError
    from vlmscope.config.hints import did_you_mean

    names = [w.strip() for w in wanted.split(",") if w.strip()]
    known = [i.name for i in items]
    if not names:
        raise ConfigError(f"{flag}: no name given (have: {', '.join(known)})")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigError(
            f"{flag}: {', '.join(unknown)} not in the config (have: {', '.join(known)})"
            + did_you_mean(unknown[0], known)
        )
    return [i for i in items if i.name in names]


def interrupted_message(config: RunConfig | None) -> str:
    """The one line Ctrl-C prints: what is kept, and how to resume."""
    if config is None:
        return "stopped (Ctrl-C) before the run started: nothing was asked"
    return (
        "stopped (Ctrl-C): every answer and judgment finished so far is kept in "
        f"{Path(config.output_dir) / 'cache.sqlite'}; run the same command again to resume"
    )


def handle(args: argparse.Namespace) -> int:
    config: RunConfig | None = None
    try:
        config = config_from_args(args)
        if args.dry_run:  # plans the tracks itself, reporting a config error the same way
            return dry_run(config, args)
        return run_config(config, args)
    except KeyboardInterrupt:
        if os.environ.get("RANK", "0") == "0":  # one line, not one per process of a launch
            print(interrupted_message(config), file=sys.stderr)
        return 130


def run_config(config: RunConfig, args: argparse.Namespace) -> int:
    """Run `config`, print the table and notes, write the run report, push when asked."""
    # The tracks are checked before the runner is imported (it loads `datasets` and the model
    # libraries, seconds): a config error is reported at once. `run` checks them again (cheap).
    # A bad config, a locked or damaged output, a full disk: one `error:` line at the entry
    # point (`vlmscope.input_errors.guarded`), naming the file.
    from vlmscope.runner.plan import plan_tracks

    plan_tracks(config, source=str(args.config))
    from vlmscope.cli.publish import publish
    from vlmscope.runner.budget import BudgetReached
    from vlmscope.runner.failure_causes import format_failure_causes
    from vlmscope.runner.loop import run
    from vlmscope.runner.results import limited_name
    from vlmscope.runner.table import format_table

    try:
        report = run(config, source=str(args.config), estimate=estimate_settings(args))
    except BudgetReached as stop:  # not an error: the run stopped where it was told to
        print_once(stop.report())  # once per launch, whichever process stops first
        return 3
    if report.tracks and report.tracks[0].result_dir is not None:  # main process only
        print(format_table(report))
        causes = format_failure_causes(
            [(t.model, t.track, t.failure_causes) for t in report.tracks if t.failure_causes]
        )
        if causes:
            print("\n" + causes)
        totals = report_ledger(report)
        print("\n" + format_ledger(totals, config.pricing))
        if config.note:
            print("\n" + config.note.strip())
        print(
            f"\nresults: {config.output_dir}/<model>/{limited_name('<track>', config.limit)}/ "
            "(details + summary datasets)\n"
            f"next: vlmscope space {config.output_dir}   # browse them at http://127.0.0.1:7860"
        )
        write_text_atomic(
            Path(config.output_dir) / "run_report.json",
            json.dumps(
                {
                    "tracks": [
                        {k: v for k, v in t.__dict__.items() if k != "asked_keys"}
                        for t in report.tracks
                    ],
                    "boards": [b.__dict__ for b in report.boards],
                    "ledger": totals.to_json(),
                    "note": config.note,
                },
                default=str,
                indent=1,
            ),
        )
        write_run_config(config)
        if config.push_to_hub:  # the results are saved first: a failed push loses nothing
            return publish(Path(config.output_dir), config.push_to_hub)
    return 0
