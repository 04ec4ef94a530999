"""Import single NLTK modules without running the `nltk` package's `__init__`.

The metrics need three small NLTK modules (the Punkt sentence splitter, the Treebank word
tokenizer and sentence GLEU). Importing any of them the ordinary way first runs `nltk/__init__`,
which imports nearly all of NLTK and, through `nltk.collocations` and `nltk.classify`, scipy.stats,
scikit-learn and pandas: 3-5 s of start-up for code the metrics never call.

Here the packages on the way (`nltk`, `nltk.tokenize`, `nltk.translate`) are registered with their
search path but without running their `__init__`, so only the wanted module and what it imports
itself are loaded. The same NLTK code runs; nothing is copied or changed. Other code in the process
still sees the whole of NLTK: the first read of a name such a package does not hold
(`nltk.word_tokenize`, `from nltk import pos_tag`) imports NLTK again the ordinary way.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

_LOCK = threading.RLock()
_DEFERRED: set[str] = set()
"""Packages registered here whose `__init__` has not run."""


class _DeferredPackage(ModuleType):
    """A package registered without running its `__init__` (see the module docstring)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        submodule = f"{self.__name__}.{name}"
        if importlib.util.find_spec(submodule) is not None:  # `from nltk import redos`
            return importlib.import_module(submodule)
        _import_whole_nltk()
        return getattr(sys.modules[self.__name__], name)


def _import_whole_nltk() -> None:
    """Import NLTK the ordinary way, every `__init__` run in NLTK's own order, from scratch.

    The modules loaded through deferred packages are forgotten first (objects made from them keep
    working): NLTK's `__init__` files rely on their own import order and on `import nltk` binding
    every submodule it loads, which a partly loaded NLTK would break.
    """
    with _LOCK:
        if not _DEFERRED:
            return
        _DEFERRED.clear()
        for name in [name for name in sys.modules if name == "nltk" or name.startswith("nltk.")]:
            del sys.modules[name]
        importlib.import_module("nltk")


def _defer_package(name: str) -> None:
    """Register package `name` without running its `__init__`, unless it is imported already."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        raise ModuleNotFoundError(f"No package named {name!r}", name=name)
    package = importlib.util.module_from_spec(spec)
    package.__class__ = _DeferredPackage
    sys.modules[name] = package
    _DEFERRED.add(name)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, package)


def nltk_module(name: str) -> ModuleType:
    """`importlib.import_module(name)` for an `nltk.*` module, skipping the packages' `__init__`."""
    if not name.startswith("nltk."):
        raise ValueError(f"not an NLTK module: {name!r}")
    with _LOCK:
        parts = name.split(".")
        for depth in range(1, len(parts)):
            _defer_package(".".join(parts[:depth]))
        return importlib.import_module(name)
