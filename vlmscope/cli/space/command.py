"""`vlmscope space [RESULTS]`: serve the leaderboard Space over a results folder or Hub repo.

The same app a Hub Space runs (`leaderboard_space/app.py`), from wherever vlmscope is
installed, so a wheel user browses a run without the repository. The command only turns its
arguments into the settings the app reads (`VLMSCOPE_RESULTS_DIR`, `VLMSCOPE_RESULTS_REPO`,
`VLMSCOPE_ARENA_CONFIG`); Gradio is imported after they are checked, so a mistyped folder is
reported at once.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Serve the leaderboard (the Gradio Space) over the result datasets of a run, read-only:
an overview of every model and track, a page per track, rating boards and a sample browser.

  vlmscope space results/demo              # a run's output folder (default: results/)
  vlmscope space --repo ORG/results        # a Hub dataset repo written with --push-to-hub
  vlmscope space --arena arena.yaml        # with the live Arena tab (see configs/arena_demo.yaml);
                                           # an arena alone needs no results folder

Then open http://127.0.0.1:7860 (--port to change it); Ctrl-C stops it.
"""


def add_subparser(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "space",
        help="serve the leaderboard over a results folder or Hub repo",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "results",
        nargs="?",
        type=Path,
        metavar="RESULTS",
        help="a results folder (every run under it is shown; default: results/)",
    )
    parser.add_argument("--repo", metavar="REPO", help="read a Hub dataset repo instead")
    parser.add_argument("--revision", metavar="REV", help="the repo's branch, tag or commit")
    parser.add_argument("--arena", type=Path, metavar="CONFIG", help="add the live Arena tab")
    parser.add_argument("--host", default=None, help="address to serve on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="port (default 7860)")
    parser.set_defaults(func=handle)


def space_settings(args: argparse.Namespace, environ: dict[str, str]) -> dict[str, str]:
    """The app's settings from the arguments, over `environ`; `ValueError` naming what is wrong."""
    settings = dict(environ)
    if args.repo and args.results:
        raise ValueError("give a results folder or --repo, not both")
    if args.repo:
        settings["VLMSCOPE_RESULTS_REPO"] = args.repo
        if args.revision:
            settings["VLMSCOPE_RESULTS_REVISION"] = args.revision
    else:
        settings.pop("VLMSCOPE_RESULTS_REPO", None)
        folder = args.results or Path(settings.get("VLMSCOPE_RESULTS_DIR") or "results")
        if not folder.is_dir() and (args.results is not None or args.arena is None):
            raise ValueError(
                f"no results folder {folder} here: run `vlmscope demo` (results/demo) or "
                "`vlmscope run --config ...` first, or name the folder a run wrote"
            )
        settings["VLMSCOPE_RESULTS_DIR"] = str(folder)
    if args.arena is not None:
        if not args.arena.is_file():
            raise ValueError(f"no arena config {args.arena}")
        settings["VLMSCOPE_ARENA_CONFIG"] = str(args.arena)
    return settings


def handle(args: argparse.Namespace) -> int:
    settings = space_settings(args, dict(os.environ))  # a bad argument: one `error:` line
    from vlmscope.cli.space.app import main

    launch: dict[str, Any] = {}
    if args.host:
        launch["server_name"] = args.host
    if args.port:
        launch["server_port"] = args.port
    # Gradio's own start-up lines tell a user to set `share=True` in `launch()`, code this
    # command owns; quiet, and say instead where it serves (the port it found) and how to stop.
    served = main(settings, quiet=True, prevent_thread_lock=True, **launch)
    print(f"serving the leaderboard at {served.local_url} (Ctrl-C stops it)", flush=True)
    served.block_thread()
    return 0
