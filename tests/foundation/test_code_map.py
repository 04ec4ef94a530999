"""`docs/code-map.md` names only code that exists, so the map fails here when the code moves.

Every backticked token without spaces is read as the page says: a dotted name under
`vlmscope` is a module, or a module and an attribute path inside it (`module.Class.method`),
which must be bound there; one that holds a `/` or ends in `.py` is a file or folder from the
repository root, which must be on disk. Tokens with a placeholder (`<track>`) are patterns and
are left alone. The page must also name every package of `vlmscope` in its layer table, so a new
package shows up on the map, and the README must link the page.

Names are resolved from the source, not imported: the page names the Space's app and the
runner, whose imports (Gradio, `datasets`, torch) take tens of seconds on a loaded machine; the
test reads a module's top-level statements instead (a `def`, `class`, assignment or import binds
a name; an import is followed to the module it names; a class's attribute may come from a base
class), so what it accepts is what `from module import name` would find. A module that does not
import is caught by the tests that import it.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

import vlmscope

ROOT = Path(vlmscope.__file__).parent.parent
DOC = ROOT / "docs" / "code-map.md"
_SPAN = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(r"vlmscope(\.[A-Za-z_][A-Za-z0-9_]*)+")
Binding = ast.stmt | str
"""What binds a name at a module's top level: its statement, or the dotted name it imports."""


def named(text: str) -> tuple[list[str], list[str]]:
    """The dotted `vlmscope` names and the repository paths among the page's backticked tokens,
    each once, in the order the page first names them."""
    names: list[str] = []
    paths: list[str] = []
    for token in dict.fromkeys(_SPAN.findall(text)):
        if any(c.isspace() for c in token) or "<" in token:
            continue
        if token.startswith("vlmscope."):
            names.append(token)
        elif "/" in token or token.endswith(".py"):
            paths.append(token)
    return names, paths


def _module_file(dotted: str, root: Path) -> Path | None:
    base = root.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def _bindings(path: Path, module: str) -> dict[str, Binding]:
    """The names a module's top-level statements bind (`if TYPE_CHECKING:` imports are not
    run, so they bind nothing)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    bound: dict[str, Binding] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{parent}.{source}" if source else parent
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = (
                    alias.name if alias.asname else alias.name.split(".")[0]
                )
        else:
            bound.update({name: node for name in _bound_by(node)})
    return bound


def _bound_by(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else []
    if isinstance(node, ast.AnnAssign):
        targets = [node.target]
    return [t.id for t in targets if isinstance(t, ast.Name)]


def _class_member(cls: ast.ClassDef, attribute: str, module: str, root: Path, seen: int) -> bool:
    """Whether the class body binds `attribute`, or a base class (named in the module) does."""
    if any(attribute in _bound_by(node) for node in cls.body):
        return True
    return any(
        isinstance(base, ast.Name)
        and missing_name(f"{module}.{base.id}.{attribute}", root, seen + 1) is None
        for base in cls.bases
    )


def missing_name(name: str, root: Path = ROOT, seen: int = 0) -> str | None:
    """Why `name` does not resolve (no module of that name, or an attribute it does not bind);
    None when it does."""
    if not _DOTTED.fullmatch(name):
        return f"{name}: not a dotted name under vlmscope"
    if seen > 20:
        return f"{name}: imports that go round in a circle"
    parts = name.split(".")
    count = next(
        (c for c in range(len(parts), 0, -1) if _module_file(".".join(parts[:c]), root)), 0
    )
    module = ".".join(parts[:count])
    rest = parts[count:]
    if not rest:
        return None
    path = _module_file(module, root)
    assert path is not None
    binding = _bindings(path, module).get(rest[0])
    if binding is None:
        return f"{name}: {module} has no attribute {rest[0]!r}"
    if isinstance(binding, str):  # imported: found where it comes from (outside: taken as is)
        if not binding.startswith("vlmscope."):
            return None
        found = missing_name(".".join([binding, *rest[1:]]), root, seen + 1)
        return found and f"{name}: {found}"
    if len(rest) == 1:
        return None
    if not isinstance(binding, ast.ClassDef) or len(rest) > 2:
        return f"{name}: {module}.{rest[0]} holds no attribute {rest[1]!r} this test can see"
    if _class_member(binding, rest[1], module, root, seen):
        return None
    return f"{name}: {module}.{rest[0]} has no attribute {rest[1]!r}"


def missing_path(path: str, root: Path = ROOT) -> str | None:
    """Why `path` is not in the repository (a trailing `/` asks for a folder); None when it is."""
    where = root / path
    if path.endswith("/"):
        return None if where.is_dir() else f"{path}: no such folder"
    return None if where.exists() else f"{path}: no such file"


def test_every_named_path_exists() -> None:
    _, paths = named(DOC.read_text(encoding="utf-8"))
    assert len(paths) >= 80, f"only {len(paths)} paths read from the map: is the parser right?"
    problems = [p for p in map(missing_path, paths) if p]
    assert not problems, "docs/code-map.md names paths that are gone:\n" + "\n".join(problems)


def test_every_named_module_and_function_exists() -> None:
    names, _ = named(DOC.read_text(encoding="utf-8"))
    assert len(names) >= 100, f"only {len(names)} names read from the map: is the parser right?"
    problems = [p for p in map(missing_name, names) if p]
    assert not problems, "docs/code-map.md names code that is gone:\n" + "\n".join(problems)


def test_every_package_is_on_the_map() -> None:
    text = DOC.read_text(encoding="utf-8")
    packages = sorted(p.parent.name for p in (ROOT / "vlmscope").glob("*/__init__.py"))
    assert packages, "no packages found under vlmscope/"
    absent = [p for p in packages if f"`vlmscope.{p}`" not in text]
    assert not absent, f"packages missing from the layer table of docs/code-map.md: {absent}"


def test_the_readme_links_the_map() -> None:
    assert "docs/code-map.md" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "names", "paths"),
    [
        (
            "`vlmscope.runner.loop.run` and `vlmscope/cache.py`",
            ["vlmscope.runner.loop.run"],
            ["vlmscope/cache.py"],
        ),
        ("`run_eval.py`, `tests/golden/`", [], ["run_eval.py", "tests/golden/"]),
        ("`vlmscope run --config X`, `_boards/<track>/`, `TrackSpec`, `[[A>>B]]`", [], []),
    ],
)
def test_the_parser_reads_names_and_paths(text: str, names: list[str], paths: list[str]) -> None:
    assert named(text) == (names, paths)


def test_a_moved_name_or_path_is_reported() -> None:
    """The checks can fail: a name or path that is not there is named, with what is missing."""
    assert missing_name("vlmscope.runner.loop.run") is None
    assert missing_name("vlmscope.tracks.base.TrackBase.aggregate") is None
    assert missing_name("vlmscope.runner.loop.no_such_function") == (
        "vlmscope.runner.loop.no_such_function: vlmscope.runner.loop has no attribute "
        "'no_such_function'"
    )
    assert missing_name("vlmscope.no_such_module.run") == (
        "vlmscope.no_such_module.run: vlmscope has no attribute 'no_such_module'"
    )
    assert missing_name("vlmscopex.run") == "vlmscopex.run: not a dotted name under vlmscope"
    assert missing_name("vlmscope.runner.results.write_result.anything") == (
        "vlmscope.runner.results.write_result.anything: vlmscope.runner.results.write_result "
        "holds no attribute 'anything' this test can see"
    )
    # an attribute found through an import, and one inherited from a base class
    assert missing_name("vlmscope.config.RunConfig") is None
    assert missing_name("vlmscope.config.NoSuchConfig") == (
        "vlmscope.config.NoSuchConfig: vlmscope.config has no attribute 'NoSuchConfig'"
    )
    assert missing_name("vlmscope.tracks.visionarena.track.VisionArenaBenchTrack.score") is None
    assert missing_name("vlmscope.tracks.visionarena.track.VisionArenaBenchTrack.gone") == (
        "vlmscope.tracks.visionarena.track.VisionArenaBenchTrack.gone: "
        "vlmscope.tracks.visionarena.track.VisionArenaBenchTrack has no attribute 'gone'"
    )
    assert missing_path("vlmscope/runner/loop.py") is None
    assert missing_path("vlmscope/runner/") is None
    assert missing_path("vlmscope/runner/gone.py") == "vlmscope/runner/gone.py: no such file"
    assert missing_path("vlmscope/runner/loop.py/") == "vlmscope/runner/loop.py/: no such folder"
