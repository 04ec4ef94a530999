"""MEGA-Bench's registration: title, headline numbers, Space page, prompt rebuilder."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlmscope.config import ImageBudget
from vlmscope.tracks.spec import Headline, TrackSpec

if TYPE_CHECKING:
    from vlmscope.messages import Request
    from vlmscope.tracks.base import Track

#: Large enough to show every image of a browsed prompt, at a size a page can hold.
DISPLAY_BUDGET = ImageBudget(max_images=64, max_side=768, in_context_images=16)


def _load() -> type[Track]:
    from vlmscope.tracks.megabench.track import MegaBenchTrack

    return MegaBenchTrack


def rebuild_prompt(meta: Mapping[str, Any], data_dir: Path) -> Request | None:
    """The request of a details row (task name, row id, CoT setting), rebuilt from the data."""
    from vlmscope.messages import GenerationParams
    from vlmscope.tracks.megabench.prompt import build_prompt

    rows, first_rows = _rows_by_id(data_dir)
    task = str(meta.get("task_name"))
    row = rows.get((task, str(meta.get("row_id"))))
    if row is None:
        return None
    cot = bool(meta.get("cot", True))
    # the task's first query, as the run had it: the description's videos take its frame share
    first = first_rows.get(task, row)
    built = build_prompt(
        row, data_dir, DISPLAY_BUDGET, params=GenerationParams(), cot=cot, first_row=first
    )
    return built.request


@lru_cache(maxsize=2)
def _rows_by_id(data_dir: Path) -> tuple[dict[tuple[str, str], Any], dict[str, Any]]:
    """Every row by (task, row id), and each task's first row."""
    from vlmscope.tracks.megabench.rows import CONFIGS, read_rows

    index: dict[tuple[str, str], Any] = {}
    first_rows: dict[str, Any] = {}
    for config in CONFIGS:
        try:
            rows = read_rows(data_dir, config)
        except FileNotFoundError:
            continue
        for row in rows:
            index.setdefault((row.task_name, row.id), row)
            first_rows.setdefault(row.task_name, row)
    return index, first_rows


SPEC = TrackSpec(
    name="megabench",
    title="MEGA-Bench",
    load=_load,
    page="megabench",
    comparison="megabench",
    headlines=(
        Headline("overall", ("overall",), interval=("intervals", "overall")),
        Headline("Core", ("core",), interval=("intervals", "core")),
        Headline("Open", ("open",), interval=("intervals", "open")),
    ),
    metrics="Core: the mean over rule-scored tasks of each task's mean query score (each query "
    "scored field by field by its task's metrics); Open: the same over judge-scored tasks, the "
    "judge's 1-10 grade divided by 10; overall: both, weighted by their numbers of tasks. All 0-1, "
    "as are the keyword breakdowns (means over the tasks of each keyword).",
    data_env="VLMSCOPE_MEGABENCH_DATA",
    rebuild_prompt=rebuild_prompt,
)
