"""A results folder with one good run and one result folder damaged in each way a Space meets.

Every folder starts as a real result written by `vlmscope.runner.results.write_result`, each
under its own model name, and is then damaged the way an interrupted upload, a hand edit or
another version of vlmscope leaves it. `BAD` maps each damaged folder (its path inside the
results) to the words its reason on the page must contain; `GOOD` lists the models that must
still show, among them a run of a track no registration knows, a run in format 1 (the first
release: no `format_version` column) and one in format 2 (nested columns as JSON text), written
here with pyarrow directly, as those releases did,
and `PAGES_DAMAGED`, whose details read at start (their footer is intact) but fail when the
sample browser opens them.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tests.leaderboard.fabricate import track_result
from vlmscope.messages import Response, user_request
from vlmscope.runner.results import write_result
from vlmscope.tracks.base import Sample, Scored

TRACK = "megabench"
UNKNOWN_TRACK = "mystery"  # no registration knows it: the generic page
HOSTILE_FOLDER = "<img src=x onerror=window.__pwned=1>"

PAGES_DAMAGED = "pages-damaged"
GOOD = {
    "good-model": TRACK,
    "format-1-model": TRACK,
    "format-2-model": TRACK,
    "mystery-model": UNKNOWN_TRACK,
    PAGES_DAMAGED: TRACK,
}
BAD = {
    f"corrupt_summary/corrupt-summary/{TRACK}": "summary/test-00000-of-00001.parquet does not "
    "read as parquet: Parquet magic bytes not found",
    f"wrong_columns/wrong-columns/{TRACK}": "the summary has no columns n_samples, scores",
    f"no_rows/no-rows/{TRACK}": "the summary config has no rows",
    f"details_only/details-only/{TRACK}": "details but no summary config",
    f"corrupt_details/corrupt-details/{TRACK}": "details/test-00000-of-00001.parquet does not "
    "read as parquet",
    f"scores_list/scores-list/{TRACK}": "scores is a list, not a JSON object",
    f"newer_format/newer-format/{TRACK}": "written by a newer vlmscope (format 4); upgrade to "
    "read it",
    f"{HOSTILE_FOLDER}/hostile-folder/{TRACK}": "does not read as parquet",
}
SCORES = {"overall": 0.5, "core": 0.75, "open": 0.25}
NESTED = ("scores", "status_counts", "outcome_counts", "run_counts", "package_versions")
"""The summary columns format 3 types and formats 1 and 2 wrote as JSON text."""


def write_run(out: Path, model: str, track: str = TRACK, scores: dict | None = None) -> Path:
    """One scored sample of `model` on `track`, written by the real writer; its result folder."""
    sample = Sample(f"{model}/0", user_request("What colour is the sky?"), {"task_name": "sky"})
    scored = Scored(sample.id, {"query_score": 1.0}, parsed="blue")
    result = track_result(model, track, scores or SCORES, [(sample, Response("blue"), scored)])
    return write_result(out, result)


def shard(folder: Path, config: str) -> Path:
    return next((folder / config).glob("test-*.parquet"))


def rewrite_summary(folder: Path, change: Callable[[pa.Table], pa.Table]) -> None:
    path = shard(folder, "summary")
    pq.write_table(change(pq.read_table(path)), path)


def set_column(name: str, value: object, kind: pa.DataType) -> Callable[[pa.Table], pa.Table]:
    def change(table: pa.Table) -> pa.Table:
        index = table.schema.get_field_index(name)
        return table.set_column(index, name, pa.array([value] * table.num_rows, kind))

    return change


def write_old_format(folder: Path, version: int) -> None:
    """Replace a run's summary with the row format 1 or 2 wrote: nested columns as JSON text,
    written by pyarrow; format 1 without `format_version` (the first release did not know it)."""
    row = pq.read_table(shard(folder, "summary")).to_pylist()[0]
    for name in NESTED:
        row[name] = json.dumps({k: v for k, v in (row[name] or {}).items() if v is not None})
    if version == 1:
        del row["format_version"]
    else:
        row["format_version"] = version
    pq.write_table(pa.Table.from_pylist([row]), shard(folder, "summary"))


def corrupt(path: Path) -> None:
    path.write_bytes(b"this is not a parquet file")


def damage_pages(path: Path) -> None:
    """Garble the bytes after the leading magic: the footer still reads, the first page not."""
    data = bytearray(path.read_bytes())
    data[4:60] = bytes(56)
    path.write_bytes(bytes(data))


def write_degraded(out: Path) -> None:
    """The good runs of `GOOD` and the damaged folders of `BAD` under `out`."""
    write_run(out / "good", "good-model")
    write_old_format(write_run(out / "format_1", "format-1-model"), 1)
    write_old_format(write_run(out / "format_2", "format-2-model"), 2)
    write_run(out / "mystery", "mystery-model", UNKNOWN_TRACK, {"hit_rate": 0.75, "n": 4})
    damage_pages(shard(write_run(out / "pages_damaged", PAGES_DAMAGED), "details"))

    corrupt(shard(write_run(out / "corrupt_summary", "corrupt-summary"), "summary"))
    rewrite_summary(
        write_run(out / "wrong_columns", "wrong-columns"),
        lambda table: table.drop_columns(["scores", "n_samples"]),
    )
    rewrite_summary(write_run(out / "no_rows", "no-rows"), lambda table: table.slice(0, 0))
    shutil.rmtree(write_run(out / "details_only", "details-only") / "summary")
    corrupt(shard(write_run(out / "corrupt_details", "corrupt-details"), "details"))
    rewrite_summary(
        write_run(out / "scores_list", "scores-list"), set_column("scores", "[0.5]", pa.string())
    )
    rewrite_summary(
        write_run(out / "newer_format", "newer-format"), set_column("format_version", 4, pa.int64())
    )
    hostile = write_run(out / "hostile_folder", "hostile-folder")
    corrupt(shard(hostile, "summary"))
    (out / "hostile_folder").rename(out / HOSTILE_FOLDER)
