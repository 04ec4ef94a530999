"""`--repo/--revision` on the dataset commands: read a track's upstream files from the Hub.

The layouts (which files of a repo a builder reads, which archives are unpacked) and the fetch
are `vlmscope.tracks.hub_sources`'; a command gets back a plain folder in the upstream layout and
builds from it exactly as from a local data folder.
"""

from __future__ import annotations

import argparse
import sys

from vlmscope.hub_data import HubDataError, describe
from vlmscope.tracks.hub_sources import LAYOUTS, fetch


def add_hub_arguments(parser: argparse.ArgumentParser, dataset: str) -> None:
    """`--repo/--revision` on a dataset command: read the upstream files from the Hub."""
    upstream = LAYOUTS[dataset].repo
    parser.add_argument(
        "--repo",
        help=f"a Hub dataset repo to read instead of a local folder (upstream: {upstream}); "
        "downloaded into the Hugging Face cache, checked, unpacked once",
    )
    parser.add_argument(
        "--revision",
        default="main",
        help="commit (pins the data), branch or tag of --repo (default: main, resolved to its "
        "commit)",
    )


def data_dir_from_args(dataset: str, args: argparse.Namespace) -> str | None:
    """The folder a dataset command reads: `--repo` fetched, else `--data-dir`/`data_dir`."""
    local = getattr(args, "data_dir", None)
    if args.repo is None:
        return local
    if local:
        raise HubDataError("give --repo (a Hub repo) or a local data folder, not both")
    origin = fetch(dataset, args.repo, args.revision)
    print(f"data: {describe(origin)}", file=sys.stderr)
    return str(origin.folder)
