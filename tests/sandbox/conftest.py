"""Sandbox pools shared by the tests of a module (starting workers is the slow part)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from vlmscope.sandbox import SandboxPool


@pytest.fixture(scope="module")
def pool() -> Iterator[SandboxPool]:
    """The strongest isolation this machine allows (namespaces where `unshare` works)."""
    with SandboxPool(max_workers=4) as shared:
        yield shared


@pytest.fixture(scope="module", params=["auto", "process"])
def pool_each_isolation(request: pytest.FixtureRequest) -> Iterator[SandboxPool]:
    """Once with namespaces (where available) and once with the in-process layers alone, so the
    portable fallback is tested on machines that do have namespaces."""
    with SandboxPool(max_workers=2, isolation=request.param) as shared:
        yield shared
