"""The package's layers hold: no module imports from a layer above its own, and no import cycle.

The layer order is the one stated in `vlmscope/__init__.py`. Imports inside functions count:
a deferred import still ties two modules together.
"""

from __future__ import annotations

import ast
from pathlib import Path

import vlmscope

ROOT = Path(vlmscope.__file__).parent
LAYER = {
    "cli": 6,
    "__main__": 6,
    "arena": 5,
    "runner": 4,
    "leaderboard": 4,
    "tracks": 3,
    "datasets": 3,
    "ratings": 2,
    "judges": 2,
    "models": 1,
    "metrics": 1,
    "sandbox": 1,
    "stats": 1,
}


RATINGS_LAYER = {"boards": 2, "fits": 1, "inputs": 0}
"""The rooms of `vlmscope.ratings`, bottom to top, held to the same rule inside the package."""


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYER.get(parts[1], 0) if len(parts) > 1 else 0


def ratings_layer(module: str) -> int | None:
    """The room of a `vlmscope.ratings` module; None outside the rooms (the package's facade)."""
    parts = module.split(".")
    if parts[:2] != ["vlmscope", "ratings"] or len(parts) < 3:
        return None
    return RATINGS_LAYER[parts[2]]


def module_files() -> dict[str, Path]:
    modules = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


def import_edges(modules: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                candidates = [f"{target}.{alias.name}" for alias in node.names] + [target]
            elif isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                continue
            for candidate in candidates:
                while candidate and candidate not in modules:
                    candidate = candidate.rpartition(".")[0]
                if candidate and candidate != name:
                    targets.add(candidate)
        edges[name] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_module_imports_from_a_layer_above_its_own():
    edges = import_edges(module_files())
    upward = sorted((a, b) for a, targets in edges.items() for b in targets if layer(b) > layer(a))
    assert upward == []


def test_no_ratings_module_imports_from_a_room_above_its_own():
    edges = import_edges(module_files())
    upward = sorted(
        (a, b)
        for a, targets in edges.items()
        if (own := ratings_layer(a)) is not None
        for b in targets
        if (other := ratings_layer(b)) is not None and other > own
    )
    assert upward == []


def test_there_is_no_import_cycle():
    assert cycles(import_edges(module_files())) == []


def test_the_checks_can_fail():
    edges = {
        "vlmscope.config": {"vlmscope.tracks.base"},
        "vlmscope.tracks.base": {"vlmscope.config"},
    }
    assert cycles(edges) == [["vlmscope.config", "vlmscope.tracks.base"]]
    assert layer("vlmscope.tracks.base") > layer("vlmscope.config")
    assert layer("vlmscope.arena.vote_store") > layer("vlmscope.leaderboard.records")
    assert ratings_layer("vlmscope.ratings.fits.elo") == 1
    assert ratings_layer("vlmscope.ratings.boards.board") == 2
    assert ratings_layer("vlmscope.ratings") is None
