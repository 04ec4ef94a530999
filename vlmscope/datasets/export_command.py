"""What the four dataset commands share: the same options, and the same report of what they wrote.

`python -m vlmscope.datasets.<track> [--data-dir DIR] --out OUT` reads the upstream files in DIR
(default: the sample shipped with the package, so the command runs as pasted) and writes every
config as a Hub-style folder; it then prints each config it wrote with its row count and the
`load_dataset` call that opens it, read back from the files themselves.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pyarrow.parquet as pq


def add_export_arguments(parser: argparse.ArgumentParser, upstream: str) -> None:
    """`--data-dir` (the upstream files, `upstream` says which; default the shipped sample),
    `--out` and `--cache-dir`."""
    parser.add_argument(
        "--data-dir", help=f"the upstream files: {upstream} (default: the shipped sample)"
    )
    parser.add_argument(
        "--out",
        required=True,
        help="folder to write; its config folders and README are replaced, other files kept",
    )
    parser.add_argument("--cache-dir", help="datasets cache for the build")


def written(folder: str | Path) -> str:
    """The configs of an exported folder with their row counts (every shard's footer read)."""
    folder = Path(folder)
    counts = {
        config.name: sum(pq.read_metadata(shard).num_rows for shard in shards)
        for config in sorted(p for p in folder.iterdir() if p.is_dir())
        if (shards := sorted(config.glob("*.parquet")))
    }
    lines = [
        f"wrote {folder}: {len(counts)} config(s), open one with load_dataset({str(folder)!r}, CONFIG)"
    ]
    lines += [f"  {name}: {rows} row{'s' if rows != 1 else ''}" for name, rows in counts.items()]
    return "\n".join(lines)
