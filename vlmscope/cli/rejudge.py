"""`vlmscope rejudge RESULTS --judge JUDGE.yaml`: score a run's answers with another judge.

The work is `vlmscope.runner.rejudge` (no model is asked; the new results go to
`RESULTS/_judges/<judge>/`); this module reads the judge, prints the new results' table and
ledger, and the audit of the new judge against the run's (`vlmscope.cli.rejudge_audit`),
also written as `audit.json` beside the new results.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from vlmscope.cli.failure import fail

COMMAND = "vlmscope rejudge"
DESCRIPTION = """\
Judge a run's answers again with another judge (or a panel), asking no model: every answer
comes from the run's cache (or, where the cache lacks one, from the run's details). The new
results go beside the old ones, under RESULTS/_judges/<judge>/ (`vlmscope space RESULTS/_judges/<judge>`
browses them), and the audit compares the two judges: for ProBench and VisionArena-Bench each model's
rank under both and its change, Spearman and Kendall tau between the two boards, confidence
agreement and separability, and the models whose interval moved most; for MEGA-Bench and
SimpleVQA each model's headline numbers under both.
"""
EPILOG = """\
JUDGE.yaml holds one model config (as a track's `judge:`, e.g. {backend: openai, name: ...,
base_url: ..., model: ...}) or a panel ({judges: [...], aggregate: majority, min_valid: 2}).
The run's config is read from RESULTS/run_config.json (every run writes it); give --config
for results written without one.
examples:
  vlmscope rejudge results/demo --judge configs/coin_judge_b.yaml
  vlmscope rejudge results/run --judge judges/gpt4o.yaml --tracks probench
"""


def add_subparser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "rejudge",
        help="judge a run's answers again with another judge, and audit the difference",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("results", type=Path, metavar="RESULTS", help="a run's output folder")
    parser.add_argument(
        "--judge", required=True, type=Path, metavar="JUDGE.yaml", help="the judge to use"
    )
    parser.add_argument(
        "--tracks", help="comma-separated judged tracks to judge again (default: all of them)"
    )
    parser.add_argument(
        "--config", type=Path, metavar="RUN.yaml", help="the run's config, for results without one"
    )
    parser.set_defaults(func=handle)


def read_judge(path: Path) -> Any:
    """One judge config or a panel, from YAML; an error names the file and the field."""
    import yaml
    from pydantic import TypeAdapter, ValidationError

    from vlmscope.config import JudgeConfig
    from vlmscope.config.error_paths import problems_text
    from vlmscope.shipped_configs import config_path

    path, _ = config_path(path)  # `configs/coin_judge_b.yaml` outside a checkout: the shipped one
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise ValueError(f"{path}: not YAML: {error}") from error
    if not isinstance(raw, dict | list):
        raise ValueError(f"{path}: expected a judge config (a mapping with `backend:`) or a panel")
    try:
        return TypeAdapter(JudgeConfig).validate_python(raw)
    except ValidationError as error:
        raise ValueError(f"{path}: {problems_text(error, JudgeConfig)}") from error


def handle(args: argparse.Namespace) -> int:
    from vlmscope.cache import CacheDamaged
    from vlmscope.runner.output_lock import OutputLocked
    from vlmscope.runner.rejudge import AnswersMissing, rejudge, run_config_of

    tracks = [t.strip() for t in args.tracks.split(",") if t.strip()] if args.tracks else None
    try:
        judge = read_judge(args.judge)
        original = run_config_of(args.results, args.config)
        done = rejudge(original, judge, tracks)
    except (ValueError, OSError, AnswersMissing, CacheDamaged, OutputLocked) as error:
        return fail(COMMAND, error)
    report(done, args.results)
    return 0


def report(done: Any, results: Path) -> None:
    """Print the new results, their ledger and the audit; write the audit and the config."""
    from vlmscope.atomic_files import write_text_atomic
    from vlmscope.cli.rejudge_audit import format_audit, write_audit
    from vlmscope.cli.run_extras import format_ledger, report_ledger
    from vlmscope.runner.run_files import RUN_CONFIG_FILE
    from vlmscope.runner.table import format_table

    print(format_table(done.report))
    print("\n" + format_ledger(report_ledger(done.report), done.config.pricing))
    audits = track_audits(done, results)
    old = {t.name: _judge_name(t.judge) for t in done.original.tracks}
    new_judge = _judge_name(done.config.tracks[0].judge)
    print("\n" + format_audit(audits, ", ".join(sorted({old[t] for t in audits})), new_judge))
    out = Path(done.config.output_dir)
    write_audit(out / "audit.json", {"judge": new_judge, "previous": old, "tracks": audits})
    write_text_atomic(
        out / RUN_CONFIG_FILE, json.dumps(done.config.model_dump(mode="json"), indent=1) + "\n"
    )
    if done.restored:
        print(f"\n{done.restored} answers were not in the cache and were read from the details")
    print(f"\nresults: {out}/ (audit.json beside them)", file=sys.stdout)
    print(f"browse: vlmscope space {out}   # the leaderboard over them")


def track_audits(done: Any, results: Path) -> dict[str, dict[str, Any]]:
    """Each rejudged track's audit: its boards compared, else its summaries' headlines."""
    from vlmscope.cli.board_files import BoardFileError, read_board
    from vlmscope.cli.rejudge_audit import board_audit, headline_audit
    from vlmscope.runner.results import board_dir
    from vlmscope.tracks.registry import spec_for_results

    limit = done.config.limit
    out = Path(done.config.output_dir)
    audits: dict[str, dict[str, Any]] = {}
    for track in done.config.tracks:
        old_board, new_board = (
            board_dir(results, track.name, limit),
            board_dir(out, track.name, limit),
        )
        if old_board.is_dir() and new_board.is_dir():
            try:
                audits[track.name] = board_audit(read_board(old_board), read_board(new_board))
                continue
            except BoardFileError as error:
                print(f"{track.name}: boards not compared ({error})", file=sys.stderr)
        spec = spec_for_results(track.name)
        keys = [h.keys[0] for h in spec.headlines if len(h.keys) == 1] if spec else []
        models = [m.name for m in done.config.models]
        audits[track.name] = headline_audit(
            _summaries(results, models, track.name, limit),
            _summaries(out, models, track.name, limit),
            keys,
        )
    return audits


def _summaries(
    folder: Path, models: list[str], track: str, limit: int | None
) -> dict[str, dict[str, Any]]:
    from vlmscope.hub_export import load_folder
    from vlmscope.runner.results import result_dir

    found = {}
    for model in models:
        try:
            row = load_folder(result_dir(folder, model, track, limit), "summary")[0]
        except (FileNotFoundError, IndexError):
            continue
        scores = row["scores"]  # a struct (format 3; null for none), or JSON text (older)
        found[model] = dict((json.loads(scores) if isinstance(scores, str) else scores) or {})
    return found


def _judge_name(judge: Any) -> str:
    if judge is None:
        return "no judge"
    return str(getattr(judge, "panel_name", None) or judge.name)
