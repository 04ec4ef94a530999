"""`scripts/install.sh` installs into a venv, never into the Python it finds: the cheap check.

The script runs from a copy in a temporary "repository" with `VLMSCOPE_INSTALL_DRY_RUN=1`: it
makes `.venv` for real and prints the apt and pip commands instead of running them. With Debian's
externally managed `/usr/bin/python3` first on PATH, the venv is made with it and pip works in
the venv, where it refuses the system interpreter. With a venv of the user's active, `.venv`
becomes a link to it. (A full install is minutes; the hand-run check is a fresh copy of the
repository with `PATH=/usr/bin:$PATH` running `bash .ci/run`.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")


def system_python_makes_venvs() -> bool:
    if not SYSTEM_PYTHON.is_file():
        return False
    probe = [str(SYSTEM_PYTHON), "-c", "import ensurepip, venv"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


needs_system_python = pytest.mark.skipif(
    not system_python_makes_venvs(), reason="no /usr/bin/python3 that can make a venv"
)


def dry_run(repo: Path, path: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the copied install.sh in `repo` with PATH `path`; no venv active unless given."""
    script = repo / "scripts" / "install.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_bytes((ROOT / "scripts" / "install.sh").read_bytes())
    base = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return subprocess.run(
        ["bash", str(script)],
        cwd=repo,
        env=base | {"PATH": path, "VLMSCOPE_INSTALL_DRY_RUN": "1"} | env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def externally_managed_with_pip(python: Path) -> bool:
    """Debian's marker file is in the interpreter's stdlib, and it has pip to refuse with."""
    code = (
        "import importlib.util, pathlib, sysconfig\n"
        "marker = pathlib.Path(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')\n"
        "print(marker.is_file() and importlib.util.find_spec('pip') is not None)\n"
    )
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip() == "True"


def python_facts(python: Path) -> list[str]:
    code = "import sys; print(sys.prefix); print(sys.base_prefix)"
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.split()


@needs_system_python
def test_makes_dot_venv_with_the_first_python3_and_installs_with_its_pip(tmp_path: Path) -> None:
    done = dry_run(tmp_path, "/usr/bin:/bin")
    assert done.returncode == 0, done.stderr
    venv = tmp_path / ".venv"
    prefix, base_prefix = python_facts(venv / "bin" / "python")
    assert Path(prefix) == venv and base_prefix == "/usr"
    assert (venv / "bin" / "activate").is_file()
    assert "+ /usr/bin/python3 -m venv .venv" in done.stderr
    pip = "+ (dry run, skipped) .venv/bin/python -m pip install -q"
    assert f"{pip} torch==2.14.1 torchvision==0.29.1\n" in done.stderr
    assert f"{pip} -e .\\[dev\\,bench\\]" in done.stderr
    assert "python3 -m pip" not in done.stderr
    assert "next: . .venv/bin/activate" in done.stdout

    # the venv's pip installs where the system interpreter's refuses (Debian: externally managed)
    offline = ["-m", "pip", "install", "--no-index", "pip"]
    in_venv = subprocess.run([str(venv / "bin" / "python"), *offline], capture_output=True)
    assert in_venv.returncode == 0, in_venv.stderr
    if externally_managed_with_pip(SYSTEM_PYTHON):
        system = subprocess.run([str(SYSTEM_PYTHON), *offline], capture_output=True, text=True)
        assert system.returncode != 0 and "externally-managed-environment" in system.stderr

    # a second run reuses the venv
    again = dry_run(tmp_path, "/usr/bin:/bin")
    assert again.returncode == 0 and "-m venv" not in again.stderr


def test_an_active_venv_is_used_and_linked_as_dot_venv(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(mine)], check=True)
    repo = tmp_path / "repo"
    done = dry_run(repo, f"{mine / 'bin'}:/usr/bin:/bin", VIRTUAL_ENV=str(mine))
    assert done.returncode == 0, done.stderr
    assert (repo / ".venv").is_symlink() and (repo / ".venv").resolve() == mine.resolve()
    assert (repo / ".venv" / "bin" / "activate").is_file()
    assert "-m venv" not in done.stderr
    assert "(dry run, skipped) .venv/bin/python -m pip install" in done.stderr


def test_an_active_venv_never_replaces_a_dot_venv_folder(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(mine)], check=True)
    repo = tmp_path / "repo"
    (repo / ".venv" / "bin").mkdir(parents=True)
    done = dry_run(repo, f"{mine / 'bin'}:/usr/bin:/bin", VIRTUAL_ENV=str(mine))
    assert done.returncode == 1
    assert "run 'deactivate'" in done.stderr
    assert not (repo / ".venv").is_symlink()
