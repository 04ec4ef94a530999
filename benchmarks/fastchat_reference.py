"""Run FastChat's own rating code from a checkout given by its path (never copied here).

    python benchmarks/fastchat_reference.py FASTCHAT_DIR [elo_analysis.py arguments ...]

runs `fastchat/serve/monitor/elo_analysis.py` as FastChat's command line does
(`python -m fastchat.serve.monitor.elo_analysis --clean-battle-file FILE ...`: read the file with
`pandas.read_json`, `report_elo_analysis_results` per category, write `elo_results_<date>.pkl`
in the working folder), unmodified. FASTCHAT_DIR is the folder that holds the `fastchat`
package (a clone of lm-sys/FastChat).

One thing differs from `python -m`: `fastchat.model`'s `__init__` is not run. elo_analysis.py
imports one name from `fastchat.model.model_registry`, and that package's `__init__` imports
every model adapter, which needs a transformers older than the one installed here
(`transformers.modeling_attn_mask_utils`); the registry module itself loads as it is. The
benchmarks import `reference_modules(FASTCHAT_DIR)` for the same reason.
"""

from __future__ import annotations

import importlib
import importlib.util
import runpy
import sys
from pathlib import Path
from types import ModuleType

ELO_ANALYSIS = "fastchat.serve.monitor.elo_analysis"
RATING_SYSTEMS = "fastchat.serve.monitor.rating_systems"


def _bare_package(name: str) -> None:
    """Register package `name` with its search path, without running its `__init__`."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        raise ModuleNotFoundError(f"no package {name!r} in the FastChat checkout")
    sys.modules[name] = importlib.util.module_from_spec(spec)


def reference_modules(fastchat_dir: str | Path) -> tuple[ModuleType, ModuleType]:
    """FastChat's `elo_analysis` and `rating_systems` modules, imported from `fastchat_dir`."""
    root = Path(fastchat_dir).resolve()
    if not (root / "fastchat" / "serve" / "monitor" / "elo_analysis.py").is_file():
        raise FileNotFoundError(f"{root} does not hold fastchat/serve/monitor/elo_analysis.py")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    importlib.import_module("fastchat")
    if "fastchat.model" not in sys.modules:
        _bare_package("fastchat.model")
    return importlib.import_module(ELO_ANALYSIS), importlib.import_module(RATING_SYSTEMS)


def main(argv: list[str]) -> None:
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return
    if not argv:
        raise SystemExit(__doc__)
    try:
        reference_modules(argv[0])
    except FileNotFoundError as error:
        raise SystemExit(
            f"error: {error}: give a FastChat checkout as the first argument"
        ) from None
    sys.argv = [ELO_ANALYSIS, *argv[1:]]
    sys.modules.pop(ELO_ANALYSIS, None)  # run_module wants to execute it afresh as __main__
    runpy.run_module(ELO_ANALYSIS, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
