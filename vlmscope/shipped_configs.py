"""The example configs shipped in the package (`vlmscope/configs/`), found from anywhere: the
run configs and the example price list they name.

A checkout has them in `configs/` (the package's copies are links to those files); an
installed wheel has only the package's. So `vlmscope demo` runs `demo.yaml` wherever vlmscope is
installed, and a README command naming `configs/<name>.yaml` still works in a folder that has
no `configs/`: the shipped config of that name is read instead, and the command says so.
"""

from __future__ import annotations

from pathlib import Path

CONFIGS_ROOT = Path(__file__).resolve().parent / "configs"
REPO_FOLDER = "configs"
"""The folder the README's commands name (`--config configs/demo.yaml`)."""


def shipped_names() -> list[str]:
    """The names of the shipped configs, without `.yaml`."""
    return sorted(p.stem for p in CONFIGS_ROOT.glob("*.yaml"))


def shipped_config(name: str) -> Path:
    """The shipped config `name` (`demo` or `demo.yaml`); `FileNotFoundError` listing them."""
    path = CONFIGS_ROOT / f"{name.removesuffix('.yaml')}.yaml"
    if not path.is_file():
        raise FileNotFoundError(
            f"no shipped config {name!r} (shipped: {', '.join(shipped_names())})"
        )
    return path


def config_path(given: Path) -> tuple[Path, str]:
    """The config file to read for `--config given`, and a note when it is not `given`.

    `given` when it exists, or when it does not name a shipped config's place in a checkout
    (`configs/<name>.yaml`: then the missing file is reported as such); else the shipped copy.
    """
    if given.exists() or given.parent.name != REPO_FOLDER:
        return given, ""
    shipped = CONFIGS_ROOT / given.name
    if not shipped.is_file():
        return given, ""
    return shipped, f"{given} is not here: reading the copy shipped with vlmscope ({shipped})"
