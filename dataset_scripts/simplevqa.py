"""SimpleVQA builder entry: the builder lives in `vlmscope.datasets.simplevqa`.

    python -m dataset_scripts.simplevqa --out OUT_DIR [--data-dir DIR]   # = python -m vlmscope.datasets.simplevqa

exports both configs as a Hub-style folder that `load_dataset(OUT_DIR, "atomic")` opens.
"""

from vlmscope.datasets.simplevqa import SimpleVQA, build, export, main

__all__ = ["SimpleVQA", "build", "export", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
