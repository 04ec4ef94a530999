"""Result folders for the leaderboard tests, written through the real result writer.

- `run_megabench_oracle`: the real runner, the oracle on the shipped MEGA-Bench sample (no judge,
  so the open task is flagged `judge_missing`);
- `write_hostile`: a MEGA-Bench-shaped result whose model name, task name, keyword, response,
  parsed answer, reference and judge reply carry script payloads that set `window.__pwned`;
- `write_simplevqa`: SimpleVQA summaries built with the track's own metric functions;
- `write_rating_board`: a rating track (VisionArena-shaped) with style control and categories.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import run_eval
from vlmscope.messages import Response, Status, user_request
from vlmscope.runner.results import TrackResult, write_result
from vlmscope.tracks.base import Sample, Scored
from vlmscope.tracks.simplevqa.grading import Grade
from vlmscope.tracks.simplevqa.metrics import METRICS, factuality_table, grouped_tables

CONFIG = Path(__file__).with_name("megabench_oracle.yaml")
PAYLOAD = (
    "<script>window.__pwned = 1; alert('script')</script>"
    "<img src=x onerror=\"window.__pwned = 1; alert('img')\">"
)
HOSTILE_MODEL = "hostile<img src=x onerror=window.__pwned=1>"
HOSTILE_TASK = "<script>window.__pwned=1</script>task"
HOSTILE_KEYWORD = "<b>bold</b><img src=x onerror=window.__pwned=1>"
SIMPLEVQA_QUESTION = "图中红色的形状是什么？"  # data id 0 of the shipped sample
SIMPLEVQA_MODELS = {"svqa-strong": (14, 4, 2), "svqa-weak": (6, 10, 4)}  # correct, incorrect, NA
ARENA = {"arena-a": (1100.0, 1080.0, 1120.0), "arena-b": (1050.0, 1030.0, 1070.0)}
ARENA["arena-c"] = (1045.0, 1020.0, 1075.0)
STYLE = {"arena-a": (1060.0, 1040.0, 1080.0), "arena-b": (1070.0, 1050.0, 1090.0)}


def run_megabench_oracle(out: Path) -> None:
    assert run_eval.main(["--config", str(CONFIG), "--output-dir", str(out)]) == 0


def _result(
    model: str, track: str, summary: dict, rows: list[tuple[Sample, Response, Scored]]
) -> TrackResult:
    return TrackResult(
        model=model,
        track=track,
        samples=[s for s, _, _ in rows],
        responses=[r for _, r, _ in rows],
        request_hashes=[s.request.content_hash() for s, _, _ in rows],
        scored=[sc for _, _, sc in rows],
        summary=summary,
        config_hash="fab1e5",
        started_at="2026-01-02T10:00:00+00:00",
        finished_at="2026-01-02T10:05:00+00:00",
    )


def write_hostile(out: Path) -> Path:
    """Two samples: an answer full of payloads, and a failed request with a payload error."""
    meta = {"task_name": HOSTILE_TASK, "query_idx": 0, "row_id": "x1", "cot": True}
    answered = (
        Sample("hostile/0", user_request(f"question {PAYLOAD}"), meta),
        Response(PAYLOAD),
        Scored(
            "hostile/0",
            {"query_score": 0.25, "field:answer": 0.25},
            parsed=PAYLOAD,
            outcome="response_unparseable",
            extra={
                "reference": {"answer": PAYLOAD},
                "judge_replies": {"answer": f"judge says {PAYLOAD}"},
                "field_outcomes": {"answer": "scored"},
            },
        ),
    )
    failed = (
        Sample("hostile/1", user_request("second"), {**meta, "query_idx": 1, "row_id": "x2"}),
        Response("", status=Status.REQUEST_FAILED, error=PAYLOAD),
        Scored("hostile/1", {"query_score": 0.0}, outcome="request_failed"),
    )
    keywords = {HOSTILE_KEYWORD: {"count": 1, "num_samples": 2, "average_score": 0.25}}
    stats = {"keyword_stats": {"skills": keywords}}
    summary = {"overall": 0.125, "core": 0.25, "open": 0.0, "summary_and_keyword_stats": stats}
    return write_result(out, _result(HOSTILE_MODEL, "megabench", summary, [answered, failed]))


def simplevqa_summary(correct: int, incorrect: int, not_attempted: int) -> dict:
    grades = (
        [Grade.CORRECT] * correct
        + [Grade.INCORRECT] * incorrect
        + [Grade.NOT_ATTEMPTED] * not_attempted
    )
    languages = ["EN" if i % 2 else "ZH" for i in range(len(grades))]
    overall = factuality_table(grades, rounds=200, rng=np.random.default_rng(0))
    return {
        **{k: overall[k] for k in METRICS},
        "overall": overall,
        "by_language": grouped_tables(grades, languages, rounds=200, seed=0),
        "by_task_category": grouped_tables(
            grades, ["recognition"] * len(grades), rounds=200, seed=0
        ),
    }


def write_simplevqa(out: Path) -> None:
    meta = {"data_id": 0, "language": "CN", "question": SIMPLEVQA_QUESTION, "answer": "圆形"}
    sample = Sample("0", user_request(SIMPLEVQA_QUESTION), {**meta, "task_category": "recognition"})
    scored = Scored("0", {"correct": 1.0}, parsed="correct", extra={"grader_replies": ["A"]})
    for model, counts in SIMPLEVQA_MODELS.items():
        summary = simplevqa_summary(*counts)
        write_result(
            out, _result(model, "simplevqa", summary, [(sample, Response("圆形"), scored)])
        )


def _board(entries: dict[str, tuple[float, float, float]]) -> dict:
    return {m: {"rating": r, "lower": lo, "upper": hi} for m, (r, lo, hi) in entries.items()}


def write_rating_board(out: Path, track: str = "visionarena") -> None:
    board = {
        "ratings": _board(ARENA),
        "style_control": _board(STYLE),
        "categories": {
            "ocr": {
                "ratings": _board(
                    {"arena-b": (1090.0, 1070.0, 1110.0), "arena-a": (1000.0, 980.0, 1020.0)}
                )
            },
            "captioning": _board({"arena-c": (1200.0, 1150.0, 1250.0)}),
        },
    }
    for model in ARENA:
        sample = Sample("b1", user_request("Describe."), {"category": "captioning"})
        write_result(
            out, _result(model, track, board, [(sample, Response("A photo."), Scored("b1", {}))])
        )
