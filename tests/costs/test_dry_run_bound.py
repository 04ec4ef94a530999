"""The dry run's upper bound, against what a reader of the config works out by hand.

`configs/simplevqa_demo.yaml` at `--limit 1`: one row, asked as its question and its atomic
question (`atomic_questions: true`), by two models: 4 grader requests expected. SimpleVQA asks a
reply without a grade once more, so at most 8; the judge's `max_retries: 2` sends each up to 3
times: 24. `configs/demo.yaml` at `--limit 1`: ProBench's 3 judge games (the oracle's answer
is the baseline's, so its two games are one request) at up to 3 attempts each: 9;
VisionArena-Bench's 3 with one follow-up each: 6; MEGA-Bench's judged fields are asked once: 2.
Generation has no re-asks, and the expected figures stay what they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vlmscope.cli import main

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _dry(config: str, tmp_path: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    out, listing = tmp_path / "out", tmp_path / "dry.json"
    argv = ["run", "--config", str(CONFIGS / config), "--dry-run", "--limit", "1",
            "--output-dir", str(out), "--json", str(listing)]  # fmt: skip
    assert main(argv) == 0
    assert not out.exists()
    return {
        (x["track"], x["phase"], x["model"]): x for x in json.loads(listing.read_text())["lines"]
    }


def test_simplevqa_bound_counts_the_grader_reask_and_the_backend_retries(tmp_path: Path) -> None:
    lines = _dry("simplevqa_demo.yaml", tmp_path)
    judge = lines[("simplevqa", "judge", "local-judge")]
    assert (judge["to_ask"], judge["bound"]["to_ask"], judge["max_retries"]) == (4, 8, 2)
    assert judge["bound"]["input_tokens"] > judge["input_tokens"]  # the reminder is longer
    generate = [x for (_, phase, _), x in lines.items() if phase == "generate"]
    assert all(x["bound"]["to_ask"] == x["to_ask"] and x["max_retries"] == 0 for x in generate)


def test_demo_bound_per_track_and_the_printed_sends(tmp_path: Path, capsys: Any) -> None:
    lines = _dry("demo.yaml", tmp_path)
    judged = {t: x for (t, phase, _), x in lines.items() if phase == "judge"}
    got = {t: (x["to_ask"], x["bound"]["to_ask"]) for t, x in judged.items()}
    assert got == {"megabench": (2, 2), "probench": (3, 9), "visionarena_bench": (3, 6)}
    printed = capsys.readouterr().out
    bound = printed[printed.index("upper bound:") :].splitlines()
    total = next(x for x in bound if x.startswith("total")).split()
    expected_total = sum(x["to_ask"] for x in lines.values())
    at_most = sum(x["bound"]["to_ask"] for x in lines.values())
    assert total[1:3] == [str(expected_total), str(at_most)]
    assert at_most == expected_total + (9 - 3) + (6 - 3)
