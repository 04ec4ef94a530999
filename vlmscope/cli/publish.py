"""`vlmscope publish RESULTS REPO`: push a finished run's results folder to a Hub dataset repo.

`vlmscope run --push-to-hub REPO` pushes at the end of a run; when that push fails (offline, no
token, a network error), the results are already saved, so the run says where they are and
this command pushes them later, without evaluating anything again. Either way a failure is one
line naming the folder, the repo and the reason, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Push the results folder of a finished run (the --output-dir of `vlmscope run`: every model's
result datasets and the joint boards) to a Hub dataset repo, as it is on disk; the cache and the
run's own report stay local. `vlmscope space --repo REPO` then reads it, as a Space does.
Needs a Hub token (`hf auth login` or HF_TOKEN) with write access to REPO.
"""


def add_subparser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "publish",
        help="push a results folder to a Hub dataset repo",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("results", type=Path, metavar="RESULTS", help="the run's output folder")
    parser.add_argument("repo", metavar="REPO", help="the Hub dataset repo (ORG/NAME)")
    parser.add_argument("--private", action="store_true", help="create the repo as private")
    parser.set_defaults(func=handle)


def publish(results: Path, repo: str, *, private: bool = False) -> int:
    """Push `results` to `repo`: 0 and a line saying so, or 1 and a line saying why not."""
    from vlmscope.runner.publish import push_to_hub

    try:
        push_to_hub(results, repo, private=private)
    except Exception as err:  # noqa: BLE001 - any failure of the push is reported the same way
        reason = (str(err).strip().splitlines() or [""])[0] or type(err).__name__
        print(
            f"error: could not push {results} to {repo} ({type(err).__name__}: {reason}). "
            f"The results are saved in {results}/; push them later with: "
            f"vlmscope publish {results} {repo}",
            file=sys.stderr,
        )
        return 1
    print(f"pushed {results} to {repo}")
    return 0


def handle(args: argparse.Namespace) -> int:
    if not (args.results / "run_report.json").is_file() and not any(args.results.glob("*/*")):
        raise ValueError(f"{args.results} holds no results (no run wrote there)")  # exit 2
    return publish(args.results, args.repo, private=args.private)
