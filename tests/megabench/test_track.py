"""The MEGA-Bench track on the runner: oracle sanity, judged fields, canned responses, outputs."""

import asyncio
import json

import pytest

from vlmscope.cache import ResponseCache
from vlmscope.config import OracleModelConfig, TrackConfig, parse_config
from vlmscope.judges.client import Judge
from vlmscope.messages import GenerationParams, Request, Response, Status, Turn
from vlmscope.models.base import SyncBackend
from vlmscope.runner.loop import run
from vlmscope.tracks.base import Sample, ScoringContext
from vlmscope.tracks.megabench.oracle import PREFIX, oracle_answer
from vlmscope.tracks.megabench.rows import STRING_COLUMNS
from vlmscope.tracks.megabench.track import MegaBenchTrack

ORACLE = OracleModelConfig(backend="oracle")


class CannedJudge(SyncBackend):
    """A judge whose reply depends on the prompt: a score for a red circle, none otherwise."""

    name = "canned-judge"
    identity = {"backend": "canned-judge"}

    def __init__(self):
        super().__init__()
        self.prompts = []

    def generate(self, requests, on_done=None):
        out = []
        for request in requests:
            self.prompts.append(request)
            text = request.turns[0].text
            if "a red circle" in text:
                out.append(Response("**Score explanation**: close enough.\n**Score**: 7"))
            else:
                out.append(Response("I would rather not give a number."))
        return out


@pytest.mark.parametrize("cot", ["with", "without"])
def test_oracle_gets_one_on_every_core_task(tmp_path, cot):
    config = parse_config(
        {
            "output_dir": str(tmp_path),
            "models": [{"backend": "oracle"}],
            "tracks": [{"name": "megabench", "options": {"cot": cot}}],
        }
    )
    report = run(config)
    summary = report.tracks[0].summary
    task_results = json.loads(
        (report.tracks[0].result_dir / "official" / "task_results.json").read_text()
    )
    core_tasks = [t for t in task_results if t["eval_type"] == "rule"]
    assert len(core_tasks) == 7 and all(t["score"] == 1.0 for t in core_tasks)
    assert len(task_results) == (8 if cot == "with" else 7)  # Open runs with CoT only
    assert summary["core_setting"] == f"{cot}_cot"
    assert summary["core"] == 1.0
    stats = summary["summary_and_keyword_stats"]
    assert set(stats["keyword_stats"]) == {
        "skills",
        "input_format",
        "output_format",
        "input_num",
        "app",
    }
    official = json.loads(
        (report.tracks[0].result_dir / "official" / "summary_and_keyword_stats.json").read_text()
    )
    assert official["model_summary"]["core"]["macro_mean_score"] == 1.0
    # The official tool writes the single-image subset only when it has a Core and an Open task.
    single_image = report.tracks[0].result_dir / "official" / "single_image" / "task_results.json"
    assert single_image.exists() == (cot == "with")


def scored_with(responses, judge_backend=None, cot="with"):
    track = MegaBenchTrack(TrackConfig(name="megabench", options={"cot": cot}), limit=None)
    samples = track.samples(ORACLE.model_copy(update={"name": "m"}))
    judge = Judge(judge_backend, ResponseCache(":memory:")) if judge_backend else None

    async def go():
        context = ScoringContext(judge=judge)
        return [await track.score(s, Response(responses.get(s.id, "")), context) for s in samples]

    return track, samples, asyncio.run(go())


def test_judged_field_score_and_unparseable_reply_kept_visible(tmp_path):
    backend = CannedJudge()
    _, samples, scored = scored_with(
        {"sample_open_judge/0": "A red circle.", "sample_open_judge/1": "A square."}, backend
    )
    by_id = {s.sample_id: s for s in scored}
    assert by_id["sample_open_judge/0"].scores["query_score"] == pytest.approx(0.7)
    unparseable = by_id["sample_open_judge/1"]
    assert unparseable.scores["query_score"] == 0.0  # parity: no score counts 0 ...
    assert unparseable.outcome == "judge_unparseable"  # ... and the failure stays visible
    # the judge saw the task's template filled in, with the query image attached
    first = backend.prompts[0]
    assert "Reference description: The image shows a red circle." in first.turns[0].text
    assert len(first.images) == 1
    # built by the shared judge request, exactly as before it (so cached verdicts are found)
    before = Request(turns=(Turn("user", first.turns[0].parts),), params=GenerationParams(1024))
    assert first == before and first.content_hash() == before.content_hash()
    assert first.params == MegaBenchTrack.judge_settings.params()


def test_missing_judge_is_an_outcome_not_a_crash():
    _, _, scored = scored_with({})
    open_scored = [s for s in scored if s.sample_id.startswith("sample_open_judge")]
    assert {s.outcome for s in open_scored} == {"judge_missing"}
    assert all(s.extra["judge_problems"] for s in open_scored)


def test_canned_responses_follow_the_official_parser():
    responses = {
        "sample_single_answer/0": "It is B.\nAnswer: A\nOn reflection...\nAnswer: B",  # last Answer wins
        "sample_single_answer/1": "Answer: C\n\nBecause the card says so.",  # single-line gold: first paragraph
        "sample_verbatim_code/0": "Here:\nAnswer:\n```\nprint('hi')\n```",  # fenced block
        "sample_json_fields/0": "Answer: {'animal': 'Dog', 'count': '2'}",
        "sample_json_fields/1": "no json here",  # every field scored against the raw text
    }
    _, _, scored = scored_with(responses)
    by_id = {s.sample_id: s for s in scored}
    assert by_id["sample_single_answer/0"].scores["query_score"] == 1.0
    assert by_id["sample_single_answer/1"].scores["query_score"] == 1.0
    assert by_id["sample_verbatim_code/0"].scores["query_score"] == 1.0
    assert by_id["sample_json_fields/0"].scores["query_score"] == 1.0
    assert by_id["sample_json_fields/1"].scores["query_score"] == 0.0


def test_both_cot_settings_keep_the_better_core():
    track, samples, scored = scored_with({"sample_single_answer/0:no_cot": "Answer: B"}, cot="both")
    assert any(s.id.endswith(":no_cot") for s in samples)
    assert not any(
        s.id.startswith("sample_open_judge") and s.id.endswith(":no_cot") for s in samples
    )
    summary = track.summarize(samples, scored).summary()
    assert summary["core_without_cot"] > summary["core_with_cot"] == 0.0
    assert (
        summary["core_setting"] == "without_cot" and summary["core"] == summary["core_without_cot"]
    )


def test_failed_request_is_counted():
    track = MegaBenchTrack(TrackConfig(name="megabench"), limit=1)
    sample = track.samples(ORACLE)[0]
    scored = asyncio.run(
        track.score(sample, Response("", Status.REQUEST_FAILED, "boom"), ScoringContext())
    )
    assert scored.outcome == "request_failed" and scored.scores["query_score"] == 0.0


def test_each_sample_carries_the_oracle_reply_as_its_reference():
    track = MegaBenchTrack(TrackConfig(name="megabench"), limit=None)
    samples = track.samples(ORACLE.model_copy(update={"name": "m"}))
    for sample in samples:
        row = track.tasks[sample.meta["task_name"]][sample.meta["query_idx"]]
        assert sample.reference == oracle_answer(row.answer, row.metric_info)
        assert sample.reference not in sample.request.turns[0].text  # never sent
    assert samples[0].reference == PREFIX + "B"


SANITY_ROW = {
    **dict.fromkeys(STRING_COLUMNS, ""),
    "id": "0",
    "task_name": "sanity_task",
    "global_media": "[]",
    "example_media": "[]",
    "query_media": "[]",
    "task_description": "Give the letter and, if any, the number.",
    "query_text": "Which letter?",
    "answer": "{'letter': 'B', 'number': ''}",
    "metric_info": "{'field_score_function': {'letter': 'exact_str_match', 'number': "
    "'positive_int_match'}, 'aggregation': {'function': 'mean', 'field_weights': "
    "{'letter': 1, 'number': 1}}, 'response_parse_function': 'json'}",
    "eval_context": "{}",
}


def test_the_reference_answer_verbatim_gets_the_official_sanity_check_scores(tmp_path):
    (tmp_path / "core.jsonl").write_text(json.dumps(SANITY_ROW) + "\n")
    meta = {"sanity_task": {"skills": ["Text Recognition (OCR)"], "num_input": "1-image"}}
    (tmp_path / "all_task_meta.json").write_text(json.dumps(meta))
    config = TrackConfig(name="megabench", data_dir=str(tmp_path), subset="core")
    track = MegaBenchTrack(config, limit=None)
    (sample,) = track.samples(ORACLE)
    assert sample.reference is not None and "sanity_check" not in sample.meta

    def query_score(sample: Sample, response: Response) -> float:
        return asyncio.run(track.score(sample, response, ScoringContext())).scores["query_score"]

    # the empty gold field counts 1 for the reference itself, whoever sends it ...
    assert query_score(sample, Response(sample.reference)) == 1.0
    # ... and is scored as usual for any other answer, the same gold in other words included
    assert query_score(sample, Response(sample.reference + " ")) == 0.5
    failed = Response(sample.reference, Status.REQUEST_FAILED, "boom")
    assert query_score(sample, failed) == 0.5
    no_reference = Sample(sample.id, sample.request, sample.meta)
    assert query_score(no_reference, Response(sample.reference)) == 0.5
