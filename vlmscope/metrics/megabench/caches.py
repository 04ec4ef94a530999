"""Memoisation shared by the expensive MEGA-Bench conversions (LaTeX parsing, number reading).

Every cache is registered so that `clear_caches()` can empty them all at once: the speed benchmark
measures a cold baseline that way, and long-running processes can bound memory.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

_MAX_ENTRIES = 65536
_REGISTERED: list[Any] = []

Function = TypeVar("Function", bound=Callable[..., Any])


def cached(function: Function) -> Function:
    """`functools.lru_cache` that `clear_caches` knows about (arguments must be hashable)."""
    wrapped = lru_cache(maxsize=_MAX_ENTRIES)(function)
    _REGISTERED.append(wrapped)
    return wrapped  # type: ignore[return-value]


def clear_caches() -> None:
    """Empty every registered cache."""
    for wrapped in _REGISTERED:
        wrapped.cache_clear()
