"""`vlmscope megabench score` and `vlmscope megabench summarize`.

`score` re-scores an official `all_query_responses.json` into the three official result files;
`summarize` derives the Core / Open / overall summary, the keyword breakdown and the single-image subset
from a `task_results.json`, as the official `derive_breakdown_results.py` and `get_si_subset_from_full.py`
tools do. Both write the official file names so the official tools and ours can be compared file by file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from vlmscope.tracks.megabench.aggregation import model_summary, overall_with_best_core
from vlmscope.tracks.megabench.keywords import load_task_meta
from vlmscope.tracks.megabench.official_files import (
    SINGLE_IMAGE_DIR,
    SUMMARY_AND_KEYWORD_STATS,
    TASK_RESULTS,
    read_json,
    summary_and_keyword_stats,
    write_json,
    write_task_results,
)
from vlmscope.tracks.megabench.single_image import official_single_image_subset
from vlmscope.tracks.megabench.task_result_rows import check_response_rows, read_task_results

COT_CHOICE = "cot_choice.json"


def _print_summary(label: str, document: dict[str, Any]) -> None:
    summary = document["model_summary"]
    parts = [
        f"{name} {summary[name]['macro_mean_score']:.4f} ({summary[name]['num_eval_tasks']} tasks)"
        for name in ("core", "open")
        if summary[name]
    ]
    overall = summary["overall_score"]
    parts.append("overall " + (f"{overall:.4f}" if overall is not None else "n/a (a set is empty)"))
    print(f"{label}: " + ", ".join(parts))


def _add_task_meta_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--task-meta",
        type=Path,
        default=None,
        help="task metadata JSON (default: the packaged 505-task all_task_meta.json)",
    )


def handle_score(args: argparse.Namespace) -> int:
    """Score the responses and write data_with_scores / task_results / summary_and_keyword_stats.

    Several response files (one per model) are scored one after another in this process, so
    the start-up (imports, WordNet, sympy's parser, the sandbox workers) is paid once: each
    model's files go to OUT/<model>/, the model named by `MODEL=PATH` or else by the folder the
    file is in (the official layout, results/<model>/all_query_responses.json)."""
    from vlmscope.tracks.megabench.rescore import rescore, write_rescore_outputs

    try:
        targets = score_targets(args.responses, args.out)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    samples = read_json(args.samples)
    all_meta = load_task_meta(args.task_meta)
    extra_scored = [read_json(path) for path in args.extra_scored]
    for model, responses, out_dir in targets:
        document = read_json(responses)
        check_response_rows(document, str(responses))
        outputs = rescore(
            document,
            samples,
            all_meta=all_meta,
            extra_scored=extra_scored,
            program_workers=args.program_workers,
        )
        for path in write_rescore_outputs(out_dir, outputs):
            print(f"wrote {path}")
        if outputs.problem_outcomes:
            counts = ", ".join(
                f"{kind}: {n}" for kind, n in sorted(outputs.problem_outcomes.items())
            )
            print(
                f"{model or 'responses'}: fields not scored normally (scored 0 as officially): "
                f"{counts}",
                file=sys.stderr,
            )
        _print_summary(
            f"{model}, all tasks" if model else "all tasks", outputs.summary_and_keyword_stats
        )
    return 0


def score_targets(responses: list[str], out: Path) -> list[tuple[str | None, Path, Path]]:
    """(model, response file, output folder) per `responses` entry (`PATH` or `MODEL=PATH`).

    One plain file writes into `out` itself (model None); with several, or with a named one,
    each model writes into `out/<model>`. Two entries naming one model are an error."""
    if len(responses) == 1 and "=" not in responses[0]:
        return [(None, Path(responses[0]), out)]
    targets: list[tuple[str | None, Path, Path]] = []
    for entry in responses:
        name, separator, path = entry.partition("=")
        file = Path(path if separator else entry)
        model = name if separator else file.resolve().parent.name
        if not model or model in (".", "..") or "/" in model:
            raise ValueError(f"{entry!r}: no model name (write MODEL=PATH)")
        if any(model == seen for seen, _, _ in targets):
            raise ValueError(f"model {model!r} named twice (write MODEL=PATH to tell them apart)")
        targets.append((model, file, out / model))
    return targets


def add_score(sub: Any) -> None:
    """Add `score` to the `megabench` sub-subcommand group `sub` (an argparse subparsers action)."""
    parser = sub.add_parser(
        "score",
        help="re-score an official all_query_responses.json into the official result files",
        description=handle_score.__doc__,
    )
    parser.add_argument(
        "responses",
        nargs="+",
        metavar="[MODEL=]RESPONSES",
        help="all_query_responses.json; several (one per model) are scored in one process, "
        "each into OUT/<MODEL> (MODEL: given, or the file's folder name)",
    )
    parser.add_argument(
        "--samples",
        type=Path,
        required=True,
        help="task samples: [{task_name, task_samples: [{metric_info, eval_context}, ...]}, ...]",
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument(
        "--extra-scored",
        type=Path,
        action="append",
        default=[],
        help="an already scored data_with_scores*.json to merge (e.g. the judged Open set); repeatable",
    )
    parser.add_argument(
        "--program-workers",
        type=int,
        default=None,
        metavar="N",
        help="threads scoring program_judge queries in the sandbox while the other queries are "
        "scored (default: one per sandbox worker, i.e. per CPU; 1: one program after another)",
    )
    _add_task_meta_option(parser)
    parser.set_defaults(func=handle_score)


def handle_summarize(args: argparse.Namespace) -> int:
    """Write summary_and_keyword_stats.json for a task_results.json, and the single-image subset
    files where the official tool writes them (the subset has both a Core and an Open task)."""
    all_meta = load_task_meta(args.task_meta)
    results = read_task_results(args.task_results)
    out_dir = Path(args.out)
    full = summary_and_keyword_stats(results, all_meta)
    print(f"wrote {write_json(out_dir / SUMMARY_AND_KEYWORD_STATS, full)}")
    _print_summary("all tasks", full)

    subset = official_single_image_subset(results, all_meta)
    if subset is None:
        print(
            "no single-image files: the single-image subset needs a Core and an Open task "
            "(the official tool writes none otherwise)"
        )
    else:
        subset_summary = summary_and_keyword_stats(subset, all_meta)
        print(f"wrote {write_task_results(out_dir / SINGLE_IMAGE_DIR / TASK_RESULTS, subset)}")
        print(
            "wrote "
            f"{write_json(out_dir / SINGLE_IMAGE_DIR / SUMMARY_AND_KEYWORD_STATS, subset_summary)}"
        )
        _print_summary("single-image subset", subset_summary)

    if args.core_without_cot is not None:
        with_cot = model_summary(results, all_meta.keys())
        other_run = read_task_results(args.core_without_cot)
        without_cot = model_summary(other_run, all_meta.keys())
        if not (with_cot.core and with_cot.open and without_cot.core):
            print(
                "--core-without-cot needs Core in both runs and Open in the main one",
                file=sys.stderr,
            )
            return 2
        choice = overall_with_best_core(without_cot.core, with_cot.core, with_cot.open)
        print(f"wrote {write_json(out_dir / COT_CHOICE, choice.to_json())}")
        print(f"best Core ({choice.chosen}) -> overall {choice.overall_score:.4f}")
    return 0


def add_summarize(sub: Any) -> None:
    """Add `summarize` to the `megabench` sub-subcommand group `sub` (an argparse subparsers action)."""
    parser = sub.add_parser(
        "summarize",
        help="Core/Open/overall, keyword breakdown and single-image subset from task_results.json",
        description=handle_summarize.__doc__,
    )
    parser.add_argument(
        "task_results",
        type=Path,
        help="task_results.json (official shape); a data_with_scores.json is accepted too",
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument(
        "--core-without-cot",
        type=Path,
        default=None,
        help="task_results.json of a Core run without the CoT instruction: also write "
        f"{COT_CHOICE} with the overall score using the better Core score (paper, Table 2)",
    )
    _add_task_meta_option(parser)
    parser.set_defaults(func=handle_summarize)
