"""The fault tests' `slow` marker: the full campaigns run only when asked for.

    python3 -m pytest tests/faults            # bounded versions, about a minute
    python3 -m pytest -m slow tests/faults    # the full campaigns, several minutes

The marker is registered in `setup.cfg`; a `slow` test of this folder is skipped unless the
`-m` expression names `slow`, so the default run (and CI) stays bounded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SLOW_HELP = "the long version of a fault test (minutes); run it with `python3 -m pytest -m slow tests/faults`"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason=SLOW_HELP)
    for item in items:
        if item.get_closest_marker("slow") is not None and HERE in Path(item.path).parents:
            item.add_marker(skip)
