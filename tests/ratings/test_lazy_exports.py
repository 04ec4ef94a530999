"""`vlmscope.ratings` exports its names lazily: importing the package (which every module of it
does first) loads no numerical code, and every exported name is the one its module defines."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import vlmscope.ratings as ratings

PACKAGE_FILE = Path(ratings.__file__)


def _typed_imports() -> dict[str, str]:
    """Name -> module of the imports under `if TYPE_CHECKING:` (what type checkers see)."""
    tree = ast.parse(PACKAGE_FILE.read_text(encoding="utf-8"))
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module
                for alias in statement.names:
                    names[alias.asname or alias.name] = statement.module
    return names


def test_the_lazy_table_is_the_typed_imports_and_the_public_names() -> None:
    typed = _typed_imports()
    assert len(typed) > 40
    assert typed == ratings._EXPORTS
    assert set(ratings.__all__) == set(typed)


def test_every_name_resolves_to_its_modules_object() -> None:
    for name, module in ratings._EXPORTS.items():
        assert getattr(ratings, name) is getattr(importlib.import_module(module), name)
    assert set(ratings._EXPORTS) <= set(dir(ratings))


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        ratings.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "no_such_name" in str(error)
    else:
        raise AssertionError("an unknown name resolved")


def test_importing_a_light_module_of_the_package_loads_no_numerical_code() -> None:
    code = (
        "import json, sys\n"
        "from vlmscope.ratings.boards.names import BATTLE_CATEGORIES, VERDICT_REFERENCES\n"
        "from vlmscope.ratings import BOARD_FILTERS\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('numpy', 'scipy', 'pandas'))))"
    )
    finished = subprocess.run(
        [sys.executable, "-c", code],
        cwd=PACKAGE_FILE.parents[2],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(finished.stdout) == []
