"""Whether the Python running this already has what `scripts/install.sh` installs.

Exit 0, saying how many requirements were checked, when every requirement of `setup.cfg`
(`install_requires`, the `dev` and `bench` extras, the build backend) is installed at a version it accepts,
and vlmscope itself is this checkout installed in editable mode, at its version, with its
commands. Otherwise exit 1 and print what is missing, so install.sh runs pip only when there is
something to do (pip itself takes minutes to find that nothing is). Needs only the standard
library and `packaging`, which a venv without it lacks: then everything is missing anyway.
"""

from __future__ import annotations

import configparser
import json
import sys
from importlib import metadata
from pathlib import Path

EXTRAS = ("dev", "bench")
"""The extras install.sh installs (`-e ".[dev,bench]"`)."""
BUILD = ["setuptools>=68", "wheel"]
"""What install.sh adds beside the project: the build backend, for the offline wheel tests."""


def requirements(setup_cfg: Path) -> list[str]:
    parser = configparser.ConfigParser()
    parser.read(setup_cfg, encoding="utf-8")
    lines = parser["options"]["install_requires"].splitlines()
    for extra in EXTRAS:
        lines += parser["options.extras_require"][extra].splitlines()
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def problems(root: Path) -> list[str]:
    try:
        from packaging.requirements import Requirement
    except ImportError:
        return ["everything (a new environment: not even packaging is there)"]
    found = []
    for text in [*requirements(root / "setup.cfg"), *BUILD]:
        requirement = Requirement(text)
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            found.append(f"{requirement.name} is not installed")
            continue
        if requirement.specifier and not requirement.specifier.contains(version, prereleases=True):
            found.append(f"{requirement.name} {version} is not {requirement.specifier}")
    return found + _project_problems(root)


def _project_problems(root: Path) -> list[str]:
    """vlmscope installed from this checkout, editable, at its version, with its commands."""
    parser = configparser.ConfigParser()
    parser.read(root / "setup.cfg", encoding="utf-8")
    try:
        dist = metadata.distribution("vlmscope")
    except metadata.PackageNotFoundError:
        return ["vlmscope is not installed"]
    url = json.loads(dist.read_text("direct_url.json") or "{}")
    if url.get("url") != root.resolve().as_uri() or not url.get("dir_info", {}).get("editable"):
        return [f"vlmscope is not this checkout installed in editable mode ({url.get('url')})"]
    if dist.version != parser["metadata"]["version"]:
        return [
            f"vlmscope {dist.version} is installed, the checkout is {parser['metadata']['version']}"
        ]
    wanted = {
        line.split("=")[0].strip()
        for line in parser["options.entry_points"]["console_scripts"].splitlines()
        if line.strip()
    }
    have = {e.name for e in dist.entry_points if e.group == "console_scripts"}
    return [f"the {name} command is not installed" for name in sorted(wanted - have)]


def main() -> int:
    root = Path(__file__).resolve().parents[1]
    found = problems(root)
    if found:
        print("to install: " + "; ".join(found))
        return 1
    print(
        f"nothing to install: {len(requirements(root / 'setup.cfg')) + len(BUILD)} requirements met"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
