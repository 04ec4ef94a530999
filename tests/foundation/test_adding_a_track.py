"""The two-file track of `docs/adding-a-track.md` runs as written, and the Space reads its result.

The guide's blocks are executed as the modules their first line names, registered for the test
only (nothing is added to the package), and run with the oracle on rows made here.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import types
from pathlib import Path

import pytest
from PIL import Image

import vlmscope
from vlmscope.config import TrackConfig, parse_config
from vlmscope.leaderboard.headline_intervals import headline_bounds
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.overview import overview_frame
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.messages import Response
from vlmscope.runner.loop import run
from vlmscope.tracks import registry
from vlmscope.tracks.base import ScoringContext

DOC = Path(vlmscope.__file__).parent.parent / "docs" / "adding-a-track.md"
PACKAGE = "vlmscope.tracks.exactvqa"
COLOURS = {"red": (220, 30, 30), "green": (30, 160, 30), "blue": (30, 30, 220)}


def guide_modules() -> dict[str, str]:
    """Module name -> source, for each Python block of the guide that starts with its path."""
    blocks = re.findall(r"```python\n(# (vlmscope/\S+)\.py\n.*?)```", DOC.read_text(), re.S)
    return {path.replace("/", "."): source for source, path in blocks}


@pytest.fixture
def guide_track(monkeypatch):
    """The guide's modules importable under their own names, and its spec registered."""
    package = types.ModuleType(PACKAGE)
    package.__path__ = []  # a package, so `from vlmscope.tracks.exactvqa.track import` works
    monkeypatch.setitem(sys.modules, PACKAGE, package)
    for name, source in guide_modules().items():
        module = types.ModuleType(name)
        monkeypatch.setitem(sys.modules, name, module)
        exec(compile(source, f"{DOC.name}: {name}", "exec"), module.__dict__)
    spec = sys.modules[f"{PACKAGE}.spec"].SPEC
    monkeypatch.setattr(registry, "_BUILTIN", (*registry._BUILTIN, spec))
    registry._loaded.cache_clear()
    yield spec
    registry._loaded.cache_clear()


def write_rows(folder: Path) -> None:
    folder.mkdir()
    lines = []
    for index, (colour, rgb) in enumerate(COLOURS.items()):
        Image.new("RGB", (32, 32), rgb).save(folder / f"q{index}.png")
        row = {"id": f"q{index}", "image": f"q{index}.png", "question": "Colour?", "answer": colour}
        lines.append(json.dumps(row))
    (folder / "test.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_the_guide_names_both_files() -> None:
    assert set(guide_modules()) == {f"{PACKAGE}.spec", f"{PACKAGE}.track"}


def test_the_guide_track_runs_with_the_oracle_and_shows_in_the_space(guide_track, tmp_path):
    write_rows(tmp_path / "data")
    config = parse_config(
        {
            "output_dir": str(tmp_path / "results"),
            "models": [{"backend": "oracle"}],
            "tracks": [{"name": "exactvqa", "data_dir": str(tmp_path / "data")}],
        }
    )
    summary = run(config).tracks[0].summary
    assert summary["accuracy"] == 1.0 and summary["n_items"] == len(COLOURS)

    store = ResultStore(ResultsLocation.local(tmp_path / "results"))
    assert store.problems == [] and store.tracks() == ["exactvqa"]
    frame = overview_frame(store.summaries, {})
    assert frame.loc[0, "Exact-match VQA accuracy"] == 100.0
    bounds = headline_bounds(store.summaries[0], guide_track.headlines[0])
    assert (bounds.lower, bounds.upper) == (1.0, 1.0)  # type: ignore[union-attr]


def test_the_guide_track_scores_a_wrong_answer_zero(guide_track, tmp_path):
    write_rows(tmp_path / "data")
    track = registry.build_track(
        TrackConfig(name="exactvqa", data_dir=str(tmp_path / "data")), limit=2
    )
    samples = track.samples(None)  # type: ignore[arg-type]
    assert [s.id for s in samples] == ["q0", "q1"]  # `limit` keeps the first rows
    scored = asyncio.run(track.score(samples[0], Response(" Red\n"), ScoringContext()))
    assert scored.scores == {"exact": 1.0} and scored.parsed == "red"
    scored = asyncio.run(track.score(samples[1], Response("red"), ScoringContext()))
    assert scored.scores == {"exact": 0.0}
    with pytest.raises(ValueError, match="bootstrap_rounds"):
        registry.build_track(
            TrackConfig(name="exactvqa", options={"bootstrap_rounds": "many"}), limit=None
        )
