"""VisionArena-Bench: the arena-hard v0.1 goldens through the track's own path, runs with an
anchor of the run and with the anchor's answers from a file, and average answer tokens."""

from __future__ import annotations

import asyncio
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.faults.helpers import rows
from tests.ratings.verdict_golden import BASELINE, golden, judged_sample, verdict_records
from vlmscope.cache import ResponseCache
from vlmscope.config import CoinModelConfig, ConfigError, RunConfig, TrackConfig, parse_config
from vlmscope.judges.client import Judge
from vlmscope.messages import Request, Response, cache_key
from vlmscope.models.coin import CoinBackend
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.runner.loop import run
from vlmscope.runner.results import board_dir, result_dir
from vlmscope.tracks.base import ModelResult, ScoringContext, SummaryReport
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, VisionArenaDataError, read_bench_rows
from vlmscope.tracks.visionarena.track import VisionArenaBenchTrack

AH_V01 = golden("arena_hard_v01_verdicts.json")["both_games"]


@cache
def golden_board() -> RatingBoard:
    config = TrackConfig(
        name="visionarena_bench",
        judge={"backend": "coin"},
        options={"baseline": BASELINE, "style_control": True},
    )
    track = VisionArenaBenchTrack(config, limit=None)
    results = {}
    for model in dict.fromkeys(r.model for r in verdict_records()):
        scored = [
            judged_sample(r, "visionarena_bench_judge v1", None)
            for r in verdict_records()
            if r.model == model
        ]
        results[model] = ModelResult(model, [], [], scored, SummaryReport({}))
    joint = track.aggregate(results)
    assert joint is not None
    return joint.board


@pytest.mark.parametrize("style", ["no_style", "style_control"])
def test_verdicts_to_scores_reproduce_arena_hard_v01(style: str) -> None:
    board = golden_board()
    view = board if style == "no_style" else board.style_control
    assert view is not None
    expected = AH_V01[style]
    for name, want in expected["elo"].items():
        got = view.models[name]
        assert got.rating == pytest.approx(want["score"], abs=0.1)
        # the track fits models in name order, the golden run in file order: the bootstrap
        # resamples rows by position, so its intervals agree statistically, not to the digit
        assert got.lower == pytest.approx(want["lower"], abs=25)
        assert got.upper == pytest.approx(want["upper"], abs=25)
        assert got.lower <= got.rating <= got.upper
    for name, want in expected["win_rate_pct"].items():
        assert view.models[name].win_rate == pytest.approx(want["score"], abs=0.05)


def test_a_bench_run_with_an_anchor_of_the_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = parse_config(
        {
            "output_dir": str(tmp_path / "results"),
            "models": [
                {"backend": "coin", "name": "gpt-4-turbo", "reply": "anchor says {label}"},
                {"backend": "coin", "name": "bot", "reply": "a longer answer: {label} {label}"},
            ],
            "tracks": [
                {
                    "name": "visionarena_bench",
                    "judge": {"backend": "coin", "name": "coin-judge"},
                    "options": {"bootstrap_rounds": 10},
                }
            ],
        }
    )
    report = run(config)
    by_model = {t.model: t.summary for t in report.tracks}
    rows = read_bench_rows(SAMPLE_DIR / "bench")
    assert by_model["bot"]["judged_prompts"] == len(rows)
    assert by_model["gpt-4-turbo"]["role"] == "baseline"
    assert by_model["bot"]["baseline_source"] == by_model["gpt-4-turbo"]["baseline_source"]
    assert by_model["bot"]["baseline_source"] == "model"
    assert by_model["bot"]["avg_tokens"] == 5.0  # "a longer answer: X X", in words
    assert by_model["gpt-4-turbo"]["avg_tokens"] == 3.0  # "anchor says X"
    (board,) = report.boards
    assert board.error is None and board.models == 2
    avg = _board_json(tmp_path / "results")["settings"]["avg_tokens"]
    assert avg == {"bot": 5.0, "gpt-4-turbo": 3.0}


# --- anchor answers from a file -----------------------------------------------------------------

BENCH_IDS = [row.question_id for row in read_bench_rows(SAMPLE_DIR / "bench")]


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _bench_config(
    out: Path, models: list[dict[str, Any]], options: dict[str, Any], cache: Path | None = None
) -> RunConfig:
    return parse_config(
        {
            "output_dir": str(out),
            **({"cache_path": str(cache)} if cache is not None else {}),
            "models": models,
            "tracks": [
                {
                    "name": "visionarena_bench",
                    "judge": {"backend": "coin", "name": "coin-judge"},
                    "options": {"bootstrap_rounds": 10, **options},
                }
            ],
        }
    )


def _track(options: dict[str, Any], limit: int | None = None) -> VisionArenaBenchTrack:
    config = TrackConfig(name="visionarena_bench", judge={"backend": "coin"}, options=options)
    return VisionArenaBenchTrack(config, limit=limit)


def _details(out: Path, model: str) -> dict[str, dict[str, Any]]:
    return {
        row["sample_id"]: row
        for row in rows(result_dir(out, model, "visionarena_bench"), "details")
    }


def _board_json(out: Path) -> dict[str, Any]:
    (summary,) = rows(board_dir(out, "visionarena_bench"), "summary")
    return dict(summary["board"])


def test_every_model_is_judged_against_the_files_answers_and_avg_tokens_are_counted(
    tmp_path: Path,
) -> None:
    # three of the four prompts have an anchor answer: two give their length, one is counted
    # in words (4); the last prompt is `anchor_missing` for every model, never dropped
    anchor = _write_jsonl(
        tmp_path / "anchor.jsonl",
        [
            {"question_id": BENCH_IDS[0], "answer": "A red square and a blue circle.",
             "token_len": 9, "model": "file-anchor"},
            {"question_id": BENCH_IDS[1], "answer": "It says EXIT.", "token_len": 5},
            {"question_id": BENCH_IDS[2], "answer": "x equals three here", "note": "ignored"},
        ],
    )  # fmt: skip
    out = tmp_path / "results"
    models = [
        {"backend": "coin", "name": "bot", "reply": "a longer answer: {label} {label}"},  # 5 words
        {"backend": "coin", "name": "terse", "reply": "{label}"},  # 1 word
        {"backend": "oracle"},  # answers with the anchor's answers (the samples' references)
    ]
    report = run(_bench_config(out, models, {"anchor_answers": str(anchor)}))
    by_model = {t.model: t.summary for t in report.tracks}
    for name in ("bot", "terse", "oracle"):
        summary = by_model[name]
        assert summary["baseline"] == "file-anchor" and summary["baseline_source"] == "file"
        assert summary["judged_prompts"] == 3
    assert by_model["bot"]["outcomes"] == by_model["terse"]["outcomes"]
    assert by_model["bot"]["outcomes"] == {"ok": 3, "anchor_missing": 1}
    # the oracle has no reference where the anchor has no answer: its own request fails first
    assert by_model["oracle"]["outcomes"] == {"ok": 3, "request_failed": 1}
    assert by_model["bot"]["avg_tokens"] == 5.0
    assert by_model["terse"]["avg_tokens"] == 1.0
    # the oracle answers with the anchor's texts, counted in words (7, 3, 4): the file's
    # token_len is the anchor's own count of its answer, not a property of the text
    assert by_model["oracle"]["avg_tokens"] == (7 + 3 + 4) / 3
    oracle = _details(out, "oracle")
    assert oracle[BENCH_IDS[1]]["response"] == "It says EXIT."
    bot = _details(out, "bot")
    extra = json.loads(bot[BENCH_IDS[0]]["extra"])
    assert extra["baseline"] == "file-anchor" and extra["baseline_style"]["token_len"] == 9
    assert bot[BENCH_IDS[3]]["outcome"] == "anchor_missing"
    (board_report,) = report.boards
    assert board_report.error is None and board_report.models == 4  # three models + the anchor
    board = _board_json(out)
    pinned = board["models"]["file-anchor"]
    assert pinned["rating"] == pinned["lower"] == pinned["upper"]
    # every board keeps finite numbers, a one-prompt category included: its battles are
    # separated (a model wins or loses all of them), so no maximum-likelihood rating exists and
    # the fit stops far out (as the official solvers do), but never at NaN or infinity
    for name, each in {"full": board, **board["categories"]}.items():
        for model, entry in each["models"].items():
            values = (entry["lower"], entry["rating"], entry["upper"])
            assert all(math.isfinite(v) for v in values), (name, model, values)
    expected = {"bot": 5.0, "file-anchor": (9 + 5 + 4) / 3, "oracle": 14 / 3, "terse": 1.0}
    assert board["settings"]["avg_tokens"] == pytest.approx(expected)
    assert board["settings"]["baseline"] == "file-anchor"
    ocr = board["categories"]["ocr"]["settings"]["avg_tokens"]  # the second prompt alone
    assert ocr == {"bot": 5.0, "file-anchor": 5.0, "oracle": 3.0, "terse": 1.0}


def test_the_judge_sees_the_files_answer(tmp_path: Path) -> None:
    anchor = _write_jsonl(
        tmp_path / "anchor.jsonl",
        [{"question_id": qid, "answer": f"anchor text for {qid}"} for qid in BENCH_IDS],
    )
    track = _track({"anchor_answers": str(anchor)})
    assert track.required_models() == {} and track.baseline_name == "gpt-4-turbo"
    asked: list[str] = []

    class Recording(Judge):
        async def ask(self, request: Request, *, attempt: int = 0) -> Response:
            asked.append(request.turns[-1].text)
            return await super().ask(request, attempt=attempt)

    judge = Recording(CoinBackend(CoinModelConfig(backend="coin")), ResponseCache(tmp_path / "c"))
    (sample, *_) = track.samples()
    context = ScoringContext(model="bot", judge=judge)
    scored = asyncio.run(track.score(sample, Response("the bot's answer"), context))
    assert scored.outcome == "ok"
    assert len(asked) == 2 and all(f"anchor text for {sample.id}" in text for text in asked)
    assert asked[0].index("anchor text") < asked[0].index("the bot's answer")  # anchor as A
    assert asked[1].index("the bot's answer") < asked[1].index("anchor text")


def test_judge_cache_keys_and_the_board_are_the_same_for_a_model_anchor_and_its_file(
    tmp_path: Path,
) -> None:
    bot = {"backend": "coin", "name": "bot", "reply": "a longer answer: {label} {label}"}
    anchor_model = {"backend": "coin", "name": "gpt-4-turbo", "reply": "anchor says {label}"}
    model_out = tmp_path / "model-anchor"
    run(_bench_config(model_out, [anchor_model, bot], {}))
    answers = _details(model_out, "gpt-4-turbo")
    anchor = _write_jsonl(
        tmp_path / "anchor.jsonl",
        [{"question_id": qid, "answer": answers[qid]["response"]} for qid in BENCH_IDS],
    )
    file_out = tmp_path / "file-anchor"
    run(_bench_config(file_out, [bot], {"anchor_answers": str(anchor)}))

    def keys(out: Path) -> set[str]:
        cache = ResponseCache(out / "cache.sqlite")
        try:
            return set(cache.keys())
        finally:
            cache.close()

    anchor_identity = CoinBackend(CoinModelConfig(**anchor_model)).identity
    anchor_keys = {cache_key(anchor_identity, s.request) for s in _track({}).samples()}
    # the model run holds the anchor's own answers besides; every judge request is the same
    assert anchor_keys <= keys(model_out)
    assert keys(file_out) == keys(model_out) - anchor_keys
    assert len(keys(file_out)) == len(BENCH_IDS) * 3  # the bot's answers and two games each
    # ... so the anchor is on the board exactly as when it is a model of the run
    assert _board_json(file_out) == _board_json(model_out)
    judged = {
        row["sample_id"]: json.loads(row["extra"]) for row in _details(file_out, "bot").values()
    }
    assert judged == {
        row["sample_id"]: json.loads(row["extra"]) for row in _details(model_out, "bot").values()
    }


@pytest.mark.parametrize(
    ("rows_", "where", "field"),
    [
        ([{"question_id": "no-such-prompt", "answer": "x"}], "line 1", "question_id"),
        (
            [{"question_id": BENCH_IDS[0], "answer": "x"}, {"question_id": BENCH_IDS[0], "answer": "y"}],
            "line 2",
            "question_id",
        ),
        ([{"question_id": BENCH_IDS[0], "answer": "x"}, {"question_id": BENCH_IDS[1], "answer": 3}],
         "line 2", "answer"),
        ([{"question_id": BENCH_IDS[0]}], "line 1", "answer"),
        ([{"question_id": BENCH_IDS[0], "answer": None}], "line 1", "answer"),
        ([{"answer": "x"}], "line 1", "question_id"),
        ([{"question_id": BENCH_IDS[0], "answer": "x", "token_len": -1}], "line 1", "token_len"),
        (
            [{"question_id": BENCH_IDS[0], "answer": "x", "model": "a"},
             {"question_id": BENCH_IDS[1], "answer": "y", "model": "b"}],
            "line 2",
            "model",
        ),
    ],
)  # fmt: skip
def test_a_bad_anchor_row_is_an_error_naming_the_file_line_and_field(
    tmp_path: Path, rows_: list[dict[str, Any]], where: str, field: str
) -> None:
    anchor = _write_jsonl(tmp_path / "anchor.jsonl", rows_)
    with pytest.raises(VisionArenaDataError, match=rf"anchor\.jsonl, {where}: field '{field}'"):
        _track({"anchor_answers": str(anchor)})


def test_a_parquet_anchor_file_is_read_and_its_bad_rows_named_by_row(tmp_path: Path) -> None:
    good = tmp_path / "anchor.parquet"
    pq.write_table(
        pa.Table.from_pylist(
            [{"question_id": qid, "answer": f"answer {qid}", "token_len": 2} for qid in BENCH_IDS]
        ),
        good,
    )
    track = _track({"anchor_answers": str(good)}, limit=2)
    assert [s.reference for s in track.samples()] == [f"answer {qid}" for qid in BENCH_IDS[:2]]
    bad = tmp_path / "bad.parquet"
    pq.write_table(
        pa.Table.from_pylist(
            [{"question_id": BENCH_IDS[0], "answer": "x"}, {"question_id": "nope", "answer": "y"}]
        ),
        bad,
    )
    with pytest.raises(VisionArenaDataError, match=r"bad\.parquet, row 2: field 'question_id'"):
        _track({"anchor_answers": str(bad)})


def test_a_bad_anchor_file_stops_the_run_before_any_model_naming_the_track(tmp_path: Path) -> None:
    anchor = _write_jsonl(tmp_path / "anchor.jsonl", [{"question_id": BENCH_IDS[0], "answer": 1}])
    config = _bench_config(
        tmp_path / "out", [{"backend": "oracle"}], {"anchor_answers": str(anchor)}
    )
    with pytest.raises(
        ConfigError, match=r"tracks\.0 \(visionarena_bench\): .*line 1: field 'answer'"
    ):
        run(config)


def test_a_relative_anchor_path_is_read_from_the_bench_data_folder(tmp_path: Path) -> None:
    shipped = _track({"anchor_answers": "anchor_answers.jsonl"})  # the sample's own file
    assert shipped.baseline_name == "sample-anchor"
    assert all(s.reference for s in shipped.samples())
    with pytest.raises(VisionArenaDataError, match=r"no file .*missing\.jsonl \(a relative path"):
        _track({"anchor_answers": "missing.jsonl"})
    with pytest.raises(VisionArenaDataError, match=r"not a \.jsonl or \.parquet file"):
        _track({"anchor_answers": "anchor_answers.csv"})
    # the file's anchor name and an explicit, different `baseline` contradict each other
    with pytest.raises(ValueError, match=r"options\.baseline: 'gpt-4-turbo'.*'sample-anchor'"):
        _track({"anchor_answers": "anchor_answers.jsonl", "baseline": "gpt-4-turbo"})
    assert _track({"anchor_answers": "anchor_answers.jsonl", "baseline": "sample-anchor"})


def test_the_shipped_anchor_answers_say_they_are_sample_answers() -> None:
    path = SAMPLE_DIR / "bench" / "anchor_answers.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["question_id"] for r in records] == BENCH_IDS
    assert all("NOT an answer of GPT-4-Turbo" in r["note"] for r in records)
    assert {r["model"] for r in records} == {"sample-anchor"}


def test_the_oracle_answers_a_changed_anchor_file_anew(tmp_path: Path) -> None:
    """The oracle answers with the anchor's texts; a new anchor file in the same output folder
    is answered with its texts, not the old file's from the cache (the requests are the same)."""
    out = tmp_path / "results"
    for version in ("old", "new"):
        anchor = _write_jsonl(
            tmp_path / f"{version}.jsonl",
            [{"question_id": q, "answer": f"{version} answer {q}"} for q in BENCH_IDS],
        )
        report = run(_bench_config(out, [{"backend": "oracle"}], {"anchor_answers": str(anchor)}))
        (track,) = report.tracks
        assert {q: d["response"] for q, d in _details(out, "oracle").items()} == {
            q: f"{version} answer {q}" for q in BENCH_IDS
        }
    assert (track.cached, track.generated) == (0, len(BENCH_IDS))
    report = run(_bench_config(out, [{"backend": "oracle"}], {"anchor_answers": str(anchor)}))
    assert (report.tracks[0].cached, report.tracks[0].generated) == (len(BENCH_IDS), 0)
