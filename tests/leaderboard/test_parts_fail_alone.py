"""One bad part never takes the Space down: a summary holding a name of megabytes is shown cut
and listed as suspicious, a damaged vote store closes the arena (said in a sentence, the file
named in the log) while every result tab stays, and a results folder that does not exist is
said to be missing rather than shown as an empty one."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from types import ModuleType

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.long_values import DISPLAY_CHARS
from vlmscope.leaderboard.result_store import ResultStore

HUGE = 50 * 1024 * 1024


def _labels(demo) -> list:  # noqa: ANN001
    return [getattr(block, "label", None) for block in demo.blocks.values()]


def _values(demo) -> str:  # noqa: ANN001
    return "\n".join(str(getattr(block, "value", "")) for block in demo.blocks.values())


def test_a_name_of_megabytes_is_cut_and_its_folder_listed(
    space_app: tuple[ModuleType, ModuleType, ModuleType], results_dir: Path, tmp_path: Path
) -> None:
    app, _, _ = space_app
    results = tmp_path / "results"
    shutil.copytree(results_dir / "colours_run", results / "colours_run")
    shard = next((results / "colours_run").rglob("summary/test-*.parquet"))
    table = pq.read_table(shard)
    huge = "m" * HUGE
    rows = [{**row, "model": huge} for row in table.to_pylist()]
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), shard)

    store = ResultStore(ResultsLocation.local(results))
    assert store.problems == [] and len(store.summaries) == len(rows)
    shown = store.summaries[0].model
    assert shown.startswith("m" * (DISPLAY_CHARS - 1) + "…") and len(shown) < 2 * DISPLAY_CHARS
    assert [p.folder for p in store.suspicious] == [
        shard.parent.parent.relative_to(results).as_posix()
    ]
    assert f"model ({HUGE:,} characters)" in store.suspicious[0].error
    demo = app.build_app(store)  # the page builds, and sends no megabytes
    assert "Colours" in _labels(demo) and huge not in _values(demo)
    assert "shown with texts cut" in app.found_note(store)


def test_a_results_folder_that_does_not_exist_is_said_to_be_missing(
    space_app: tuple[ModuleType, ModuleType, ModuleType], tmp_path: Path
) -> None:
    app, _, _ = space_app
    store = ResultStore(ResultsLocation.local(tmp_path / "absent"))
    assert store.missing
    assert app.found_note(store) == "No results: folder absent does not exist."
    empty = ResultStore(ResultsLocation.local(tmp_path))
    assert not empty.missing and app.found_note(empty).startswith("No result datasets from ")


def test_a_damaged_vote_store_closes_the_arena_and_keeps_the_results(
    space_app: tuple[ModuleType, ModuleType, ModuleType],
    store: ResultStore,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    app, _, _ = space_app
    from vlmscope.cli.space import arena_tab

    votes = tmp_path / "votes.sqlite"
    votes.write_bytes(b"this is not a database" * 100)
    config = tmp_path / "arena.yaml"
    config.write_text(
        "contestants:\n"
        "  - {backend: openai, name: a, base_url: 'http://127.0.0.1:9', model: m}\n"
        "  - {backend: openai, name: b, base_url: 'http://127.0.0.1:9', model: m}\n"
        f"store: {{path: '{votes}'}}\n",
        encoding="utf-8",
    )
    with caplog.at_level(logging.ERROR):
        closed = arena_tab.arena_from_env({arena_tab.ENV: str(config)})
    assert isinstance(closed, arena_tab.ArenaClosed)
    assert f"vote store {votes}: file is not a database" in caplog.text
    demo = app.build_app(store, closed)
    labels = _labels(demo)
    assert {"Overview", "Arena", "MEGA-Bench", "VisionArena", "Samples"} <= set(labels)
    assert arena_tab.CLOSED_NOTE in _values(demo) and str(votes) not in _values(demo)


def test_a_folder_without_results_is_said_to_be_empty(
    tmp_path: Path, results_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A results folder that holds no result dataset (an empty folder, a typo one level too
    deep) serves an empty leaderboard: the log says so and names the folder, which a folder
    with results does not."""
    with caplog.at_level(logging.WARNING):
        ResultStore(ResultsLocation.local(tmp_path))
    assert f"no result datasets under {tmp_path}: the leaderboard is empty" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        ResultStore(ResultsLocation.local(results_dir))
    assert "no result datasets" not in caplog.text
