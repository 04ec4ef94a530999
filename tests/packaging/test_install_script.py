"""`scripts/install.sh` installs into a venv, never into the Python it finds: the cheap check.

The script runs from a copy in a temporary "repository" with `VLMSCOPE_INSTALL_DRY_RUN=1`: it
makes `.venv` for real and prints the apt and pip commands instead of running them. With Debian's
externally managed `/usr/bin/python3` first on PATH, the venv is made with it and pip works in
the venv, where it refuses the system interpreter. With a venv of the user's active, `.venv`
becomes a link to it. (A full install is minutes; the hand-run check is a fresh copy of the
repository with `PATH=/usr/bin:$PATH` running `bash .ci/run`.)
"""

from __future__ import annotations

import json
import os
import re
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


INSTALL_FILES = ("scripts/install.sh", "scripts/installed.py", "setup.cfg")


def dry_run(repo: Path, path: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the copied install.sh in `repo` with PATH `path`; no venv active unless given."""
    return install(repo, path, **{"VLMSCOPE_INSTALL_DRY_RUN": "1", **env})


def install(repo: Path, path: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The copied install.sh (with the files it reads) run in `repo` with PATH `path`."""
    for name in INSTALL_FILES:
        copy = repo / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if not copy.exists():
            copy.write_bytes((ROOT / name).read_bytes())
    base = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    base.pop("VLMSCOPE_INSTALL_DRY_RUN", None)
    return subprocess.run(
        ["bash", str(repo / "scripts" / "install.sh")],
        cwd=repo,
        env=base | {"PATH": path} | env,
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
    pip = "+ (dry run, skipped) .venv/bin/python -m pip install --progress-bar on"
    assert f"{pip} torch==2.14.1 torchvision==0.29.1\n" in done.stderr
    assert f"{pip} -e .\\[dev\\,bench\\]" in done.stderr
    # what each long step downloads is said before it starts
    assert "step 1 of 2: torch 2.14.1" in done.stdout and "roughly 3 GB to download" in done.stdout
    assert "step 2 of 2: vlmscope" in done.stdout
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


def _editable_install_of(repo: Path, venv: Path) -> None:
    """The dist-info `pip install -e repo` leaves in `venv`, beside the packages of this
    environment (seen through a `.pth` file, as the wheel test does)."""
    purelib = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    outer = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    Path(purelib, "outer_environment.pth").write_text("".join(f"{p}\n" for p in outer))
    info = Path(purelib, "vlmscope-0.1.0.dist-info")
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vlmscope\nVersion: 0.1.0\n")
    (info / "direct_url.json").write_text(
        json.dumps({"url": repo.resolve().as_uri(), "dir_info": {"editable": True}})
    )
    (info / "entry_points.txt").write_text("[console_scripts]\nvlmscope = vlmscope.cli:main\n")


APT = ("chromium", "chromium-driver", "wordnet-base", "wordnet-sense-index")


def _apt_installed() -> bool:
    return all(
        subprocess.run(["dpkg", "-s", name], capture_output=True, check=False).returncode == 0
        for name in APT
    )


@pytest.mark.skipif(not _apt_installed(), reason="the Debian packages install.sh adds are missing")
def test_a_second_run_with_nothing_missing_runs_no_pip(tmp_path: Path) -> None:
    """Every requirement met and the checkout installed: install.sh checks, says so, and runs
    no pip (pip takes minutes to find there is nothing to do). One missing requirement, and
    it installs again, saying what is missing."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
    _editable_install_of(repo, repo / ".venv")
    done = install(repo, "/usr/bin:/bin")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^nothing to install: \d+ requirements met$", done.stdout, re.MULTILINE)
    assert "pip install" not in done.stderr and "step 1" not in done.stdout
    assert "done: vlmscope and its test tools are installed" in done.stdout

    text = (repo / "setup.cfg").read_text()  # a new dependency, installed nowhere
    (repo / "setup.cfg").write_text(
        text.replace("    langdetect\n", "    langdetect\n    no-such-package-xyz\n")
    )
    again = install(repo, "/usr/bin:/bin", VLMSCOPE_INSTALL_DRY_RUN="1")
    assert again.returncode == 0, again.stderr
    assert "to install: no-such-package-xyz is not installed" in again.stdout
    assert "(dry run, skipped) .venv/bin/python -m pip install --progress-bar on -e" in again.stderr
