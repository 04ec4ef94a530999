"""Where result datasets come from, and reading them without writing or wandering.

The Space reads one results location: a local folder (`VLMSCOPE_RESULTS_DIR`, default `results/`)
or a Hub dataset repo (`VLMSCOPE_RESULTS_REPO`, fetched with `snapshot_download`). Every folder
and file it opens is resolved and checked to lie inside that location, so neither a symlink in
the data nor a value sent from the page can make it read anything else. Parquet is read with
pyarrow directly: `load_dataset` would write an Arrow cache, and the Space never writes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from vlmscope.runner.run_files import REJUDGED_DIR

RESULTS_DIR_ENV = "VLMSCOPE_RESULTS_DIR"
RESULTS_REPO_ENV = "VLMSCOPE_RESULTS_REPO"
RESULTS_REVISION_ENV = "VLMSCOPE_RESULTS_REVISION"
DEFAULT_RESULTS_DIR = "results"
SPLIT = "test"  # the split `vlmscope.hub_export.export_folder` writes
CONFIGS = ("summary", "details")  # the configs of a result folder
REASON_CHARS = 200
# pyarrow's "Could not open Parquet input source '<path>': " prefix: the reason follows it
_SOURCE = re.compile(r"^Could not open Parquet input source '[^']*': ")

Downloader = Callable[..., str]
T = TypeVar("T")


class OutsideResults(ValueError):
    """A path that resolves outside the configured results location."""


class UnreadableConfig(ValueError):
    """A config shard that is not readable parquet (corrupt, truncated, not parquet at all)."""


@dataclass(frozen=True)
class ResultsLocation:
    """Where to look (`root`) and what may be opened (`boundary`).

    They differ for a Hub snapshot: its files are symlinks into the cache's `blobs/`, a sibling
    of `snapshots/`, so the boundary is the repo's cache folder rather than the snapshot.
    """

    root: Path
    boundary: Path
    source: str

    @classmethod
    def local(cls, folder: str | Path) -> ResultsLocation:
        root = Path(folder).resolve()
        # only the folder's name: a visitor has no business knowing the server's paths
        return cls(root=root, boundary=root, source=f"folder {root.name}")


def location_from_env(
    env: Mapping[str, str], *, download: Downloader | None = None
) -> ResultsLocation:
    """The Hub repo named by `VLMSCOPE_RESULTS_REPO` if set, else the local results folder."""
    repo_id = env.get(RESULTS_REPO_ENV, "").strip()
    if not repo_id:
        return ResultsLocation.local(env.get(RESULTS_DIR_ENV) or DEFAULT_RESULTS_DIR)
    if download is None:
        from huggingface_hub import snapshot_download

        download = snapshot_download
    revision = env.get(RESULTS_REVISION_ENV) or None
    snapshot = Path(download(repo_id, repo_type="dataset", revision=revision)).resolve()
    # HF cache layout: <cache>/datasets--org--name/snapshots/<sha>; files link into ../../blobs
    in_cache = snapshot.parent.name == "snapshots"
    boundary = snapshot.parents[1] if in_cache else snapshot
    return ResultsLocation(root=snapshot, boundary=boundary, source=f"Hub dataset {repo_id}")


def inside(location: ResultsLocation, path: Path) -> Path:
    """`path` resolved, or `OutsideResults` if it leaves the location (symlinks followed)."""
    resolved = path.resolve()
    if not resolved.is_relative_to(location.boundary):
        shown = path.relative_to(location.root) if path.is_relative_to(location.root) else path.name
        raise OutsideResults(f"{shown} leads outside the results location")
    return resolved


def find_result_folders(location: ResultsLocation) -> list[Path]:
    """Every folder under the root holding a `summary` or a `details` config: one per (model,
    track) run or rating board, plus any folder left with details but no summary (the store
    reports those).

    Symlinked folders are not followed, a result folder's own subfolders are not searched, and
    hidden folders (a write in progress, or one a killed writer left behind) are skipped, as
    are a run's re-judged results (`_judges/`, shown when the Space is pointed at them).
    """
    if not location.root.is_dir():
        return []
    found = []
    for current, subdirs, _files in os.walk(location.root, followlinks=False):
        folder = Path(current)
        if any(has_config(folder, config) for config in CONFIGS):
            found.append(inside(location, folder))
            subdirs.clear()
        else:
            # hidden folders are a result being swapped in or out (`hub_export.export_folder`);
            # another judge's results of a run are a results folder of their own
            subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d != REJUDGED_DIR)
    return sorted(found)


def has_config(folder: Path, config: str) -> bool:
    return bool(_config_files(folder, config))


def read_config_rows(location: ResultsLocation, folder: Path, config: str) -> list[dict[str, Any]]:
    """All rows of one config of a result folder, every shard checked to lie inside the location;
    `UnreadableConfig` when a shard does not read."""
    return [
        row
        for table in _read_shards(location, folder, config, pq.read_table)
        for row in table.to_pylist()
    ]


def read_config_columns(
    location: ResultsLocation, folder: Path, config: str, columns: Sequence[str]
) -> dict[str, list[Any]]:
    """Some columns of one config, as lists (a comparison reads ids and scores of thousands of
    rows, not their responses); a column a shard lacks reads as None. `UnreadableConfig` when a
    shard does not read."""

    def read(path: Path) -> pa.Table:
        present = set(pq.read_schema(path).names)
        return pq.read_table(path, columns=[c for c in columns if c in present])

    found: dict[str, list[Any]] = {column: [] for column in columns}
    for table in _read_shards(location, folder, config, read):
        for column in columns:
            found[column] += (
                table.column(column).to_pylist()
                if column in table.column_names
                else [None] * table.num_rows
            )
    return found


def check_config_files(location: ResultsLocation, folder: Path, config: str) -> None:
    """Read each shard's footer (schema and row counts, not the rows), so a corrupt or truncated
    file raises `UnreadableConfig` at start rather than when someone opens it."""
    _read_shards(location, folder, config, pq.read_metadata)


def _read_shards(
    location: ResultsLocation, folder: Path, config: str, read: Callable[[Path], T]
) -> list[T]:
    read_back = []
    for path in _config_files(inside(location, folder), config):
        resolved = inside(location, path)
        try:
            read_back.append(read(resolved))
        except (OSError, pa.ArrowException) as err:
            raise _unreadable(path, resolved, err) from None
    return read_back


def _unreadable(path: Path, resolved: Path, err: Exception) -> UnreadableConfig:
    """The error for one shard, naming it as `<config>/<file>` and keeping server paths out."""
    lines = str(err).strip().splitlines()
    reason = _SOURCE.sub("", lines[0]).split(". ")[0] if lines else type(err).__name__
    for full in {str(path), str(resolved)}:
        reason = reason.replace(full, path.name)
    if len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 1] + "…"
    return UnreadableConfig(f"{path.parent.name}/{path.name} does not read as parquet: {reason}")


def _config_files(folder: Path, config: str) -> list[Path]:
    return sorted((folder / config).glob(f"{SPLIT}-*.parquet"))
