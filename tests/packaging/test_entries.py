"""The repository's `dataset_scripts/` entries are thin: the package's builders, re-exported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import dataset_scripts.megabench
import dataset_scripts.simplevqa
import vlmscope.datasets.megabench
import vlmscope.datasets.simplevqa

ROOT = Path(__file__).resolve().parents[2]


def test_entries_re_export_the_package_builders() -> None:
    for entry, module in (
        (dataset_scripts.megabench, vlmscope.datasets.megabench),
        (dataset_scripts.simplevqa, vlmscope.datasets.simplevqa),
    ):
        for name in entry.__all__:
            assert getattr(entry, name) is getattr(module, name), name


def test_entry_runs_as_a_script() -> None:
    """`python dataset_scripts/megabench.py`: the script's own folder comes first on sys.path,
    `vlmscope` is the installed package (here: this checkout's, as an editable install gives)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "dataset_scripts" / "megabench.py"), "--help"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "--out OUT" in done.stdout
