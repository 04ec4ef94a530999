"""What the fault tests share: a bound on anything that could hang, and result folders read back
as plain rows (pyarrow, no `datasets` cache) with the columns that may differ between two runs
of the same config (timings, dates, cached/generated counts) left out."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pyarrow.parquet as pq
import pytest

from vlmscope.runner.results import board_dir, result_dir

T = TypeVar("T")

# per details row: how long the request took, and of each call behind it how long it took and
# whether it came from the cache; per summary row: when, with which versions, and how many
# answers came from the cache (a resumed run reuses what a killed one committed)
RUN_VARYING_DETAILS = ("latency_s",)
RUN_VARYING_CALL_FIELDS = ("latency_s", "cached")
RUN_VARYING_SUMMARY = ("started_at", "finished_at", "package_versions", "run_counts")


def finish_within(work: Callable[[], T], limit_s: float, what: str) -> T:
    """`work()`, failing the test (instead of hanging it) if it has not returned in `limit_s`."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as err:  # noqa: BLE001 - handed to the test's thread below
            box["error"] = err

    thread = threading.Thread(target=target, name=f"bounded {what}", daemon=True)
    thread.start()
    thread.join(limit_s)
    if thread.is_alive():
        pytest.fail(f"{what} did not finish within {limit_s:g} s: something hangs")
    if "error" in box:
        raise box["error"]
    return box["value"]


def rows(folder: Path, config: str) -> list[dict[str, Any]]:
    files = sorted((folder / config).glob("test-*.parquet"))
    assert files, f"no {config} shards in {folder}"
    out: list[dict[str, Any]] = []
    for path in files:
        out.extend(pq.read_table(path).to_pylist())
    return out


def stable_result(out: Path, model: str, track: str) -> dict[str, Any]:
    """One (model, track) result without what may differ between two runs of one config."""
    folder = result_dir(out, model, track)
    details = [
        {
            k: _stable_calls(v) if k == "calls" else v
            for k, v in row.items()
            if k not in RUN_VARYING_DETAILS
        }  # fmt: skip
        for row in rows(folder, "details")
    ]
    (summary,) = rows(folder, "summary")
    return {
        "details": details,
        "summary": {k: v for k, v in summary.items() if k not in RUN_VARYING_SUMMARY},
    }


def _stable_calls(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in c.items() if k not in RUN_VARYING_CALL_FIELDS} for c in calls]


def stable_board(out: Path, track: str) -> dict[str, Any]:
    folder = board_dir(out, track)
    (summary,) = rows(folder, "summary")
    kept = {k: v for k, v in summary.items() if k not in RUN_VARYING_SUMMARY}
    return {"summary": kept, "details": rows(folder, "details")}


def cache_rows(cache_file: Path) -> list[tuple[str, str, int]]:
    """(key, backend, ok) of every stored response, read without changing the file."""
    uri = f"file:{cache_file}?mode=ro"
    with sqlite3.connect(uri, uri=True, timeout=5) as conn:
        return list(conn.execute("SELECT key, backend, ok FROM responses ORDER BY key"))


def integrity(cache_file: Path) -> str:
    with sqlite3.connect(f"file:{cache_file}?mode=ro", uri=True, timeout=5) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


def leftovers(out: Path) -> list[str]:
    """Hidden folders an interrupted export left (`.<name>.tmp-<pid>`, `.<name>.old-<pid>`)."""
    return sorted(
        str(p.relative_to(out))
        for p in out.rglob(".*")
        if p.is_dir() and (".tmp-" in p.name or ".old-" in p.name)
    )
