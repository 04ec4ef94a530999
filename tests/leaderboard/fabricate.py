"""Result folders for the leaderboard tests, each made by the code that makes them for real.

- `run_megabench_oracle`: the real runner, the oracle on the shipped MEGA-Bench sample (no judge,
  so the open task is flagged `judge_missing`); with `limit`, a `--limit` debug run (MEGA-Bench:
  the first `limit` queries of every task);
- `run_simplevqa`: the real runner on the shipped SimpleVQA sample with two models, the oracle
  (`svqa-strong`) and an OpenAI-compatible model served by a local stub (`svqa-weak`: right on
  a third of the questions, "I don't know" on a third, wrong on the rest), graded over HTTP by
  the stub as the SimpleVQA grader would (exact match, `tests/simplevqa/exact_grader.py`), an
  "I don't know" after a first reply the track cannot read and asks again about;
- `write_arena_board`: the VisionArena human battles of the FastChat golden
  (`tests/golden/arena/battles_5k.jsonl`) rated by `vlmscope ratings battles --reference
  fastchat --style-control --result-dir DIR`: a board result dataset with every category;
- `run_colours`: the real runner on the test suite's colour track (`tests/colour_track.py`), a
  plugin track (`tests/plugins`) with a title but no headlines or page of its own, so the Space
  shows its first numbers on the generic page (a track no registration knows at all is in
  `broken`); with `limit`, a `--limit` debug run;
- `write_probench_results`: a ProBench run of two models judged against the baseline, in the
  shapes the ProBench track writes (official tables per model, judged conversations, the joint
  board with its verdict records); the data is `probench_results`, made up until a real demo
  run replaces it;
- `write_hostile`: a MEGA-Bench-shaped result whose model name, task name, keyword, response,
  parsed answer, reference and judge reply carry script payloads that set `window.__pwned`.
  It is written by hand on purpose: it stands for untrusted data (a results repo anyone can
  push to), which no producer of ours would write.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

import run_eval
from tests.leaderboard import probench_results as probench
from tests.servers import Call, OpenAIStub
from tests.simplevqa.exact_grader import grader_reply, read_grader_prompt
from vlmscope import cli as vlmscope_cli
from vlmscope.messages import Response, Status, user_request
from vlmscope.runner.results import TrackResult, board_dir, write_board_result, write_result
from vlmscope.tracks.base import Sample, Scored
from vlmscope.tracks.shipped_samples import sample_dir
from vlmscope.tracks.simplevqa.rows import read_rows

REPO = Path(__file__).resolve().parents[2]
CONFIG = Path(__file__).with_name("megabench_oracle.yaml")
BATTLES = REPO / "tests" / "golden" / "arena" / "battles_5k.jsonl"
ARENA_GOLDEN = REPO / "tests" / "golden" / "arena" / "fastchat_leaderboards.json"
ARENA_TRACK = "visionarena"
COLOUR_TRACK = "colours"  # the test suite's plugin track (tests/plugins)
LIMITED_MODEL = "colour-quick"  # has only a `--limit` run
PAYLOAD = (
    "<script>window.__pwned = 1; alert('script')</script>"
    "<img src=x onerror=\"window.__pwned = 1; alert('img')\">"
)
HOSTILE_MODEL = "hostile<img src=x onerror=window.__pwned=1>"
HOSTILE_TASK = "<script>window.__pwned=1</script>task"
HOSTILE_KEYWORD = "<b>bold</b><img src=x onerror=window.__pwned=1>"
WEAK_WRONG = "banana"


def run_megabench_oracle(out: Path, limit: int | None = None) -> None:
    _run(CONFIG, out, limit)


def run_colours(
    out: Path, model: str = "colour-oracle", n_samples: int = 8, limit: int | None = None
) -> None:
    config = {
        "models": [{"backend": "oracle", "name": model}],
        "tracks": [{"name": COLOUR_TRACK, "options": {"n_samples": n_samples}}],
    }
    _run(_write_config(out, config), out, limit)


def _run(config: Path, out: Path, limit: int | None) -> None:
    """`run_eval.py --config CONFIG --output-dir OUT [--limit LIMIT]`."""
    args = ["--config", str(config), "--output-dir", str(out)]
    assert run_eval.main(args + (["--limit", str(limit)] if limit else [])) == 0


def _write_config(out: Path, config: dict[str, Any]) -> Path:
    """The run's config beside its output folder (not inside: that is the run's own)."""
    path = out.parent / f"{out.name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def simplevqa_gold() -> dict[str, str]:
    """Question -> gold answer of the shipped SimpleVQA sample, in data order."""
    return {row.question: row.answer for row in read_rows(sample_dir("simplevqa"))}


def weak_answer(question_index: int, gold: str) -> str:
    """`svqa-weak`: right on every third question, "I don't know" on the next, else wrong."""
    return (gold, "I don't know", WEAK_WRONG)[question_index % 3]


UNREADABLE_GRADE = "Let me think about it."


def _stub_replier(gold: dict[str, str]) -> Any:
    """Answers as `svqa-weak`, and grades; an "I don't know" is first graded with a reply the
    grader cannot read, so the track asks again (a retry prompt: the same one, plus a reminder)."""
    questions = list(gold)
    graded: set[tuple[str, str]] = set()

    def reply(call: Call) -> str:
        try:
            _format, answer, response = read_grader_prompt(call.prompt)
        except ValueError:  # not a grader prompt: the weak model is asked a question
            index = next(i for i, q in enumerate(questions) if q in call.prompt)
            return weak_answer(index, gold[questions[index]])
        if response == "I don't know" and (answer, response) not in graded:
            graded.add((answer, response))
            return UNREADABLE_GRADE
        return grader_reply(call.prompt)

    return reply


def run_simplevqa(out: Path) -> None:
    """Both models on the shipped sample, graded by the stub; results under `out`."""
    with OpenAIStub(_stub_replier(simplevqa_gold())) as stub:
        config = {
            "models": [
                {"backend": "oracle", "name": "svqa-strong"},
                {
                    "backend": "openai",
                    "name": "svqa-weak",
                    "base_url": stub.base_url,
                    "model": "weak",
                    "max_retries": 0,
                },
            ],
            "tracks": [
                {
                    "name": "simplevqa",
                    "judge": {
                        "backend": "openai",
                        "name": "exact-match-grader",
                        "base_url": stub.base_url,
                        "model": "grader",
                        "max_retries": 0,
                    },
                    "options": {"bootstrap_rounds": 200, "seed": 0},
                }
            ],
        }
        path = _write_config(out, config)
        assert run_eval.main(["--config", str(path), "--output-dir", str(out)]) == 0


def write_arena_board(folder: Path) -> None:
    """The VisionArena board of the golden battles, written by the ratings command as a board
    result dataset in `folder`: every category board, each with its style-controlled fit."""
    argv = ["ratings", "battles", str(BATTLES), "--reference", "fastchat", "--style-control"]
    assert vlmscope_cli.main([*argv, "--result-dir", str(folder)]) == 0


def arena_golden(board: str) -> dict[str, Any]:
    """FastChat's own numbers for one board of the golden battles (`full`, `ocr`, ...)."""
    loaded: dict[str, Any] = json.loads(ARENA_GOLDEN.read_text(encoding="utf-8"))[board]
    return loaded


def arena_models() -> list[str]:
    """The models of the golden battles, best first on FastChat's overall board."""
    ratings = arena_golden("full")["rating"]
    return sorted(ratings, key=lambda model: -ratings[model])


def overview_order() -> list[str]:
    """Every model of the test results in the overview's order: best first by MEGA-Bench, then
    SimpleVQA, then Colours (ties by name), then the rating of the arena board."""
    return [
        "oracle",
        HOSTILE_MODEL,
        "svqa-strong",
        "svqa-weak",
        "colour-oracle",
        LIMITED_MODEL,
        *arena_models(),
    ]


def track_result(
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


def write_probench_results(folder: Path) -> None:
    """Both ProBench models' result datasets and the run's joint board, under `folder`."""
    for model in probench.MODELS:
        summary, rows = probench.summary(model), probench.details(model)
        write_result(folder, track_result(model, probench.TRACK, summary, rows))
    write_board_result(board_dir(folder, probench.TRACK), probench.board_result())


def write_hostile(out: Path, model: str = HOSTILE_MODEL) -> Path:
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
    return write_result(out, track_result(model, "megabench", summary, [answered, failed]))
