"""An installed wheel works without the repository: `vlmscope demo` then `vlmscope space` in an
empty folder, a README command naming `configs/`, a builder export, the result store.

The wheel is built from a copy of the package's sources (so no `build/` folder in the checkout
leaks old files into it) and installed with `--no-deps` into a fresh venv in a temporary folder
outside the repository. The venv gets the current environment's packages (torch, datasets, ...)
through a `.pth` file that lists its site-packages folders as plain paths: this tests the wheel's
contents, not dependency resolution. (Not `venv --system-site-packages`: run from inside a venv
that exposes the base interpreter's packages, not the venv's, and it would run the `.pth` hooks of
an editable install, which put this checkout back on the path.) Every command runs in the
temporary folder with PYTHONPATH unset, and the test checks that `vlmscope` comes from the venv
and that nothing of the checkout (`dataset_scripts`, `run_eval`) can be imported.

Needs setuptools and wheel in the current environment (`scripts/install.sh` installs them): the
wheel is built offline, without build isolation. About a minute on a 2-core machine.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from urllib.request import urlopen

import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_FILES = ("setup.cfg", "pyproject.toml", "README.md")
TIMEOUT_S = 300


def run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    return done.stdout


def source_files(package: Path) -> set[str]:
    """Every file of the package folder a wheel must carry (not bytecode caches)."""
    return {
        path.relative_to(package.parent).as_posix()
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, set[str]]:
    """(the wheel, the build's output, the package files it was built from)."""
    src = tmp_path_factory.mktemp("src")
    for name in BUILD_FILES:
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "vlmscope", src / "vlmscope", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    out = tmp_path_factory.mktemp("wheel")
    log = run(
        [sys.executable, "-m", "pip", "wheel", str(src), "-v", "--no-deps", "--no-index"]
        + ["--no-build-isolation", "-w", str(out)],
        cwd=src,
        env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"),
    )
    (wheel,) = out.glob("vlmscope-*.whl")
    return wheel, log, source_files(src / "vlmscope")


def test_wheel_carries_every_package_file(built: tuple[Path, str, set[str]]) -> None:
    wheel, log, files = built
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert files - names == set()
    for shipped in (
        "samples/megabench/core",
        "samples/simplevqa/test.parquet",
        "samples/visionarena/bench/anchor_answers.jsonl",  # the demo's bench anchor
        "prompts/",
    ):
        assert any(n.startswith(f"vlmscope/{shipped}") for n in names), shipped
    assert "absent from the `packages` configuration" not in log
    assert not any(n.startswith(("dataset_scripts/", "tests/")) for n in names)


@pytest.fixture(scope="module")
def installed(
    built: tuple[Path, str, set[str]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, dict[str, str]]:
    """(the venv's python, a work folder outside the repository, the environment to run in)."""
    wheel = built[0]
    base = tmp_path_factory.mktemp("installed")
    assert not base.resolve().is_relative_to(ROOT)
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    outer = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    Path(purelib, "outer_environment.pth").write_text("".join(f"{p}\n" for p in outer))
    work = base / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env |= {
        "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONNOUSERSITE": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "HF_HOME": str(base / "hf"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "OMP_NUM_THREADS": "1",
    }
    run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--ignore-installed"]
        + [str(wheel)],
        cwd=work,
        env=env,
    )
    return python, work, env


def served_page(command: Path, work: Path, env: dict[str, str]) -> str:
    """`vlmscope space results/demo` started in `work`: the app's config (every component
    with its value, as the page receives it), read over HTTP once the server answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = work / "space.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(command), "space", "results/demo", "--port", str(port)],
            cwd=work,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            try:
                with urlopen(f"http://127.0.0.1:{port}/config", timeout=5) as reply:
                    return str(reply.read().decode("utf-8"))
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"vlmscope space did not serve: {log.read_text()[-3000:]}")
                time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_installed_package_is_the_wheel_not_the_checkout(
    installed: tuple[Path, Path, dict[str, str]],
) -> None:
    python, work, env = installed
    script = (
        "import importlib.util as u, json, vlmscope\n"
        "print(json.dumps([vlmscope.__file__] + [u.find_spec(m) for m in ('dataset_scripts', 'run_eval')]))\n"
    )
    found = json.loads(run([str(python), "-c", script], cwd=work, env=env))
    assert Path(found[0]).is_relative_to(python.parent.parent)
    assert found[1:] == [None, None]


def test_demo_export_and_store_run_from_the_wheel(
    installed: tuple[Path, Path, dict[str, str]],
) -> None:
    python, work, env = installed
    assert not (work / "configs").exists()
    # the console script the wheel installs; the config, samples and prompts come from the wheel
    out = run([str(python.parent / "vlmscope"), "demo"], cwd=work, env=env)
    results = work / "results" / "demo"
    report = json.loads((results / "run_report.json").read_text())
    assert report["note"].startswith("What these numbers mean")  # kept, not only printed
    assert "next: vlmscope space results/demo" in out
    assert not (results / ".vlmscope.lock").exists()
    # every summary of the demo (four tracks, two boards) loads with numbers as numbers
    script = (
        "import datasets, glob, json\n"
        "out = {}\n"
        "for folder in sorted(glob.glob('results/demo/*/*/summary')):\n"
        "    row = datasets.load_dataset(folder[:-8], 'summary', split='test',"
        " cache_dir='load_cache')[0]\n"
        "    nested = row.get('scores') or row['board']\n"
        "    out[folder] = [type(nested).__name__, row['format_version'],"
        " sorted(k for k, v in nested.items() if isinstance(v, (int, float)))]\n"
        "print(json.dumps(out))\n"
    )
    typed = json.loads(run([str(python), "-c", script], cwd=work, env=env))
    assert len(typed) == 10  # 2 models x 4 tracks + 2 boards
    assert all(kind == "dict" and version == 3 for kind, version, _ in typed.values())
    assert "F" in typed["results/demo/oracle/simplevqa/summary"][2]
    assert "core" in typed["results/demo/tiny-llava/megabench/summary"][2]
    # a README command naming configs/ reads the shipped config where there is no checkout
    run([str(python.parent / "vlmscope"), "run", "--config", "configs/demo.yaml", "--tracks"]
        + ["simplevqa", "--output-dir", "readme_run"], cwd=work, env=env)  # fmt: skip
    assert (work / "readme_run" / "oracle" / "simplevqa" / "summary").is_dir()

    # a builder's command line, then its export read back by `datasets`
    sample = run(
        [
            str(python),
            "-c",
            "from vlmscope.tracks.shipped_samples import sample_dir as s; print(s('megabench'))",
        ],
        cwd=work,
        env=env,
    ).strip()
    assert Path(sample).is_relative_to(python.parent.parent)
    run(
        [str(python), "-m", "vlmscope.datasets.megabench", "--data-dir", sample, "--out"]
        + ["megabench_export"]
        + ["--cache-dir", "datasets_cache"],
        cwd=work,
        env=env,
    )
    script = (
        "import datasets, json\n"
        "ds = datasets.load_dataset('megabench_export', 'core', split='test',"
        " cache_dir='load_cache')\n"
        "print(json.dumps([ds.num_rows, ds.column_names, len(ds[0]['query_images'])]))\n"
    )
    rows, columns, images = json.loads(run([str(python), "-c", script], cwd=work, env=env))
    (core,) = (ROOT / "vlmscope" / "samples" / "megabench" / "core").glob("*.parquet")
    assert rows == pq.read_metadata(core).num_rows
    assert "query_images" in columns and images >= 1

    # what the Space reads: the leaderboard package opens the demo's results
    script = (
        "import json\n"
        "from vlmscope.leaderboard.load import ResultsLocation\n"
        "from vlmscope.leaderboard.result_store import ResultStore\n"
        "store = ResultStore(ResultsLocation.local('results/demo'))\n"
        "print(json.dumps({'tracks': {t: store.models(t) for t in store.tracks()},"
        " 'problems': [p.error for p in store.problems]}))\n"
    )
    store = json.loads(run([str(python), "-c", script], cwd=work, env=env))
    assert store["problems"] == []
    assert set(store["tracks"]) >= {"megabench", "simplevqa", "probench", "visionarena_bench"}
    assert all(set(models) >= {"oracle", "tiny-llava"} for models in store["tracks"].values())

    # the Space as `vlmscope space` serves it, from the wheel, over the demo's results
    page = served_page(python.parent / "vlmscope", work, env)
    for shown in ("oracle", "tiny-llava", "MEGA-Bench", "SimpleVQA", "ProBench"):
        assert shown in page, shown

    # the Space as a Space repo holds it: leaderboard_space/ beside the installed wheel
    shutil.copytree(ROOT / "leaderboard_space", work / "space")
    script = (
        "import os, sys\n"
        "sys.path.insert(0, 'space')\n"
        "os.environ['VLMSCOPE_RESULTS_DIR'] = 'results/demo'\n"
        "from app import build_app\n"
        "from vlmscope.leaderboard.load import location_from_env\n"
        "from vlmscope.leaderboard.result_store import ResultStore\n"
        "demo = build_app(ResultStore(location_from_env(os.environ)))\n"
        "print(type(demo).__name__)\n"
    )
    assert run([str(python), "-c", script], cwd=work, env=env).strip().endswith("Blocks")
