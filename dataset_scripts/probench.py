"""ProBench builder entry: the builder lives in `vlmscope.datasets.probench`.

    python -m dataset_scripts.probench --out OUT_DIR [--data-dir DIR]   # = python -m vlmscope.datasets.probench

exports the four configs (all, singleround, multi-round, multi-linguistic) as a Hub-style folder
that `load_dataset(OUT_DIR, "multi-round")` opens.
"""

from vlmscope.datasets.probench import ProBench, build, export, main

__all__ = ["ProBench", "build", "export", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
