"""The official MEGA-Bench evaluator, from a checkout given by path, on a response file: the
reference side of `megabench_scoring.py --official`. Nothing of the official code is copied here.

    python benchmarks/megabench_official.py MEGABENCH_DIR RESPONSES SAMPLES OUT_DIR

MEGABENCH_DIR is a clone of TIGER-AI-Lab/MEGA-Bench (or its `megabench/` folder, the one with
`evaluation_processor.py`). The run is the official `EvaluationProcessor(...).process()` as
shipped, with two settings made from outside, inside the timed process:
- WordNet is loaded first. The official constrained-generation metric wraps its first WordNet
  load in a 10 s alarm; on a busy machine the load is cut and those queries score 0.
- The checkpoint after every task (`_save_json_safe` with a "temp_summary" payload, which
  rewrites the whole growing output file after each task: hours for thousands of tasks) is
  skipped; the final write is kept. This only flatters the reference.
Set NLTK_DATA to a folder with WordNet (corpora/wordnet) and Punkt parameters
(tokenizers/punkt_tab/english); `megabench_scoring.py` builds one from the system's WordNet.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any


def official_dir(path: str | Path) -> Path:
    """The folder holding `evaluation_processor.py` in a MEGA-Bench checkout."""
    root = Path(path).resolve()
    for candidate in (root, root / "megabench"):
        if (candidate / "evaluation_processor.py").is_file():
            return candidate
    raise FileNotFoundError(f"{root}: no evaluation_processor.py (a TIGER-AI-Lab/MEGA-Bench clone)")


def run(megabench_dir: str, responses: str, samples: str, out_dir: str) -> None:
    import json

    logging.basicConfig(level=logging.WARNING)  # the official main.py logs at INFO; less noise
    sys.path.insert(0, str(official_dir(megabench_dir)))
    from evaluation_processor import EvaluationProcessor
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    with open(samples, encoding="utf-8") as handle:
        hf_data = json.load(handle)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    output_file = out / "data_with_scores.json"
    output_file.unlink(missing_ok=True)  # an existing file would make it reuse its scores
    processor = EvaluationProcessor(
        hf_data=hf_data,
        data_file=responses,
        logging_file=str(out / "eval_log.txt"),
        output_score_file=str(output_file),
    )
    save = processor._save_json_safe

    def final_save_only(path: Any, data: Any) -> None:
        if "temp_summary" not in data:
            save(path, data)

    processor._save_json_safe = final_save_only  # type: ignore[method-assign]
    processor.process()


if __name__ == "__main__":
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(__doc__)
        raise SystemExit(0)
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    run(*sys.argv[1:])
