"""Test-wide settings: offline, one thread, a throwaway HF cache (removed at the end).

Set before anything imports the libraries, so the README's test command behaves the same as CI
whatever the caller's environment holds.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.demo_run import DemoRun

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
if "HF_HOME" not in os.environ:
    os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="vlmscope-hf-")
    # gone when the test session ends (subprocesses the tests start have ended by then)
    atexit.register(shutil.rmtree, os.environ["HF_HOME"], ignore_errors=True)


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """The shipped demo, run once for the session (`tests/demo_run.py`); read it, never write."""
    from tests.demo_run import run_demo  # imported late: the settings above come first

    return run_demo(tmp_path_factory.mktemp("demo"))
