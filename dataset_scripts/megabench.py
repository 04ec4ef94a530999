"""MEGA-Bench builder entry: the builder lives in `vlmscope.datasets.megabench`.

    python dataset_scripts/megabench.py --out OUT_DIR [--data-dir DATA_DIR]
    # = python -m vlmscope.datasets.megabench; without --data-dir: the shipped sample

exports all four configs as a Hub-style folder that `load_dataset(OUT_DIR, "core")` opens.
"""

from vlmscope.datasets.megabench import CITATION, FEATURES, VERSION, MegaBench, build, export, main

__all__ = ["CITATION", "FEATURES", "VERSION", "MegaBench", "build", "export", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
