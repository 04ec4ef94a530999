"""The backend's loop thread runs on uvloop where it is installed, and on the standard loop
where it is not (Windows, or a machine without it): requests are served either way."""

from __future__ import annotations

import asyncio
import builtins
import sys
from typing import Any

import pytest

from vlmscope.models import loop_thread
from vlmscope.models.loop_thread import LoopThread


async def loop_kind() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__


def test_uvloop_serves_when_installed() -> None:
    pytest.importorskip("uvloop", reason="uvloop is not installed on this platform")
    thread = LoopThread("test-uvloop")
    try:
        assert thread.run(loop_kind()).startswith("uvloop")
    finally:
        thread.stop()


def test_the_standard_loop_serves_without_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_uvloop(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "uvloop":
            raise ImportError("uvloop is not installed")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "uvloop", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_uvloop)
    loop = loop_thread.new_event_loop()
    try:
        assert type(loop).__module__.startswith("asyncio")
        assert loop.run_until_complete(loop_kind()).startswith("asyncio")
    finally:
        loop.close()
