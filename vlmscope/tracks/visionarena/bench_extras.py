"""The optional libraries bench curation needs (the `bench` extra), checked before any work.

Curation runs for minutes before it first clusters; a missing UMAP found only then would waste
them. So the commands look for every module first, without importing any (importing UMAP
compiles code for seconds), and stop with the one install command.
"""

from __future__ import annotations

import importlib.util

#: module -> the PyPI package that provides it (all in `pip install 'vlmscope[bench]'`).
MODULES = {
    "umap": "umap-learn",
    "hdbscan": "hdbscan",
    "sklearn": "scikit-learn",
    "datasketch": "datasketch",
    "imagehash": "ImageHash",
}
INSTALL = "pip install 'vlmscope[bench]'"


class MissingExtra(RuntimeError):
    """A library of the `bench` extra is not installed; the message says what to install."""


def missing_packages() -> list[str]:
    """The packages of the extra whose module cannot be found here."""
    return [package for module, package in MODULES.items() if not _found(module)]


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken or half-removed install
        return False


def require_bench_extra(what: str) -> None:
    """Raise `MissingExtra` naming `what` needs it and the install command, if anything is
    missing."""
    missing = missing_packages()
    if missing:
        raise MissingExtra(
            f"{what} needs {', '.join(missing)} (the bench extra): {INSTALL}"
            " (from a checkout: pip install -e '.[bench]')"
        )
