"""Every built-in track has the shape `docs/adding-a-track.md` writes down, file for file.

The test walks the registry (plugins aside), so a track added without its files, or a file
added without its line in the document, fails here.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import vlmscope
from vlmscope.tracks.registry import track_specs

PACKAGE = Path(vlmscope.__file__).parent
DOC = PACKAGE.parent / "docs" / "adding-a-track.md"
CORE = {"spec.py", "track.py", "rows.py", "report.py"}


def documented() -> dict[str, dict[str, set[str]]]:
    """The table of `## The built-in tracks`: package -> column -> file names."""
    section = DOC.read_text(encoding="utf-8").split("\n## The built-in tracks\n", 1)[1]
    tracks = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [set(re.findall(r"`([^`]+)`", cell)) for cell in line.strip("|").split("|")]
        (package,), core, extras, builder, commands = cells
        tracks[package] = {"core": core, "extras": extras, "builder": builder, "commands": commands}
    return tracks


def built_in_packages() -> dict[str, str]:
    """Package name -> spec module, for every registered track that lives in `vlmscope.tracks`."""
    packages = {}
    for spec in track_specs():
        module = spec.load().__module__
        if not module.startswith("vlmscope.tracks."):
            continue  # a plugin: its shape is its own
        package = module.rsplit(".", 1)[0]
        assert module == f"{package}.track", f"{spec.name}: its class lives in {module}"
        assert importlib.import_module(f"{package}.spec").SPEC is spec, spec.name
        packages[package.rsplit(".", 1)[1]] = spec.name
    return packages


def named_for(folder: Path, package: str) -> set[str]:
    return {
        p.name for p in folder.glob("*.py") if p.stem == package or p.stem.startswith(f"{package}_")
    }


def test_every_built_in_track_has_the_documented_files() -> None:
    doc = documented()
    packages = built_in_packages()
    assert set(doc) == set(packages) >= {"megabench", "probench", "simplevqa", "visionarena"}
    for package, columns in doc.items():
        found = {p.name for p in (PACKAGE / "tracks" / package).glob("*.py")} - {"__init__.py"}
        assert columns["core"] == CORE, package
        assert found == columns["core"] | columns["extras"], package
        assert named_for(PACKAGE / "datasets", package) == columns["builder"], package
        assert f"{package}.py" in columns["builder"], package
        assert named_for(PACKAGE / "cli", package) == columns["commands"], package


def test_builders_and_commands_live_outside_the_track_packages() -> None:
    """A track package neither builds a `datasets` dataset nor parses a command line."""
    for path in (PACKAGE / "tracks").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {
            alias.name.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.Import)
            for alias in n.names
        }
        imported |= {
            (n.module or "").split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and not n.level
        }
        assert not imported & {"datasets", "argparse"}, path


def test_the_check_reads_the_table() -> None:
    doc = documented()
    assert doc["visionarena"]["commands"] == {
        "visionarena.py",
        "visionarena_agreement.py",
        "visionarena_board.py",
        "visionarena_bench.py",
        "visionarena_bench_output.py",
    }
    assert "simplevqa_features.py" in doc["simplevqa"]["builder"]
