"""The layer map of `vlmscope/__init__.py` names everything at the top of the package, and
nothing that is gone: a newcomer reads the tree from it."""

from __future__ import annotations

import re
from pathlib import Path

import vlmscope

ROOT = Path(vlmscope.__file__).parent
MAP = vlmscope.__doc__ or ""
NOT_PATHS = {"vlmscope", "TrackSpec", "RatingBoard"}  # the package itself, and types it names


def named() -> set[str]:
    """Every backquoted name of the map, a trailing `/` (a folder) dropped."""
    return {name.rstrip("/") for name in re.findall(r"`([^`\s]+)`", MAP)}


def top_level() -> set[str]:
    """The package's own modules, subpackages and data folders (its `__init__` aside)."""
    return {
        path.stem if path.suffix == ".py" else path.name
        for path in ROOT.iterdir()
        if path.name not in {"__init__.py", "__pycache__"}
    }


def test_every_top_level_entry_is_on_the_map() -> None:
    assert top_level() - named() == set()


def test_every_name_on_the_map_is_there() -> None:
    """A module, subpackage or data folder of the package, a room of `ratings`, or an entry of
    the repository beside it (`run_eval.py`, `dataset_scripts/`, the layer test)."""
    gone = set()
    for name in named() - NOT_PATHS:
        places = (ROOT / name, ROOT / f"{name}.py", ROOT / "ratings" / name, ROOT.parent / name)
        if not any(place.exists() for place in places):
            gone.add(name)
    assert gone == set()
