"""The track on the shipped sample: options, requests, grading, the report and its tables."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.simplevqa.exact_grader import ExactMatchGrader, ScriptedGrader
from vlmscope.cache import ResponseCache
from vlmscope.config import TrackConfig
from vlmscope.judges.client import Judge
from vlmscope.messages import ImagePart, Response, Status, TextPart
from vlmscope.models.base import Backend, SyncBackend
from vlmscope.models.oracle import OracleBackend
from vlmscope.tracks.base import Sample, Scored, ScoringContext
from vlmscope.tracks.registry import build_track
from vlmscope.tracks.simplevqa import track as track_module
from vlmscope.tracks.simplevqa.metrics import NO_GRADE_NOTE
from vlmscope.tracks.simplevqa.report import TABLES_FILE, SimpleVQAReport, tables_markdown
from vlmscope.tracks.simplevqa.track import SimpleVQATrack

CASES = Path(__file__).parent / "cases"
JUDGE = {
    "backend": "openai",
    "name": "grader",
    "base_url": "http://127.0.0.1:9/v1",
    "model": "judge",
}


def make_track(
    options: dict[str, Any] | None = None, limit: int | None = None, **fields: Any
) -> SimpleVQATrack:
    config = TrackConfig(
        name="simplevqa", judge=fields.pop("judge", JUDGE), options=options or {}, **fields
    )
    track = build_track(config, limit=limit)
    assert isinstance(track, SimpleVQATrack)
    return track


def oracle_for(samples: Sequence[Sample]) -> OracleBackend:
    """The oracle as the runner builds it: told each sample's reference, keyed by request."""
    return OracleBackend(
        references={s.request.content_hash(): s.reference for s in samples if s.reference}
    )


def run_track(
    track: SimpleVQATrack, model: SyncBackend | None, grader: Backend, cache: Path
) -> tuple[list[Sample], list[Scored]]:
    """Answer every sample with `model` (None: the oracle) and grade the answers."""
    samples = track.samples()
    model = model or oracle_for(samples)
    responses = model.generate([s.request for s in samples])
    context = ScoringContext(judge=Judge(grader, ResponseCache(cache)))

    async def score_all() -> list[Scored]:
        return list(
            await asyncio.gather(
                *(track.score(s, r, context) for s, r in zip(samples, responses, strict=True))
            )
        )

    return samples, asyncio.run(score_all())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"bootstrap_rounds": -1}, "options.bootstrap_rounds"),
        ({"reply_format": "xml"}, "options.reply_format"),
        ({"grader": "x"}, "options.grader"),
        ({"grader_prompt": "missing.txt"}, "options.grader_prompt"),
    ],
)
def test_bad_options_name_the_field(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_track(options)


def test_a_judge_is_required() -> None:
    with pytest.raises(ValueError, match="judge"):
        make_track(judge=None)


def test_requests_follow_the_official_prompt() -> None:
    samples = make_track().samples()
    assert [s.id for s in samples] == ["0", "1", "2", "1012", "1013", "1014"]
    cn, en = samples[0].request, samples[3].request
    for request in (cn, en):
        (turn,) = request.turns
        assert (
            turn.role == "user"
            and isinstance(turn.parts[0], ImagePart)
            and isinstance(turn.parts[1], TextPart)
        )
        assert request.params.temperature == 0.0
    assert cn.turns[0].text == (
        "假如你是一个计算机视觉专家，请理解图片内容，并回答给出的问题，要求只能回答一个命名实体：\n"
        "## 下面我们提出问题: \n图中红色的形状是什么？\n"
    )
    assert en.turns[0].text.endswith(
        "## Now let's ask the question:\nWhich city's name is written in the image?\n"
    )
    assert samples[3].reference == "Paris" and samples[3].meta["task_category"] == "Text Processing"


def test_limit_counts_rows_and_atomic_questions_follow_their_row() -> None:
    samples = make_track({"atomic_questions": True}, limit=2).samples()
    assert [s.id for s in samples] == ["0", "0:atomic", "1", "1:atomic"]
    assert (
        samples[1].meta["question"] == "图中的形状是什么颜色？" and samples[1].reference == "红色"
    )


def test_oracle_gets_full_marks_with_the_exact_match_grader(tmp_path: Path) -> None:
    track = make_track({"bootstrap_rounds": 200})
    samples, scored = run_track(track, None, ExactMatchGrader(), tmp_path / "c.sqlite")
    assert all(s.outcome == "ok" and s.parsed == "correct" for s in scored)
    summary = track.summarize(samples, scored).summary()
    assert summary["CO"] == 1.0 and summary["F"] == 1.0 and summary["NA"] == summary["IN"] == 0.0
    assert summary["n_graded"] == 6 and summary["outcomes"] == {"ok": 6}
    assert set(summary["by_language"]) == {"CN", "EN"}
    assert set(summary["by_task_category"]) >= {"Text Processing", "Logic & Science", "(none)"}
    assert summary["by_domain"]["Life"]["n_graded"] == 2
    assert summary["overall"]["ci95"]["CO"] == [1.0, 1.0]
    assert list(summary)[:5] == ["F", "CO", "CGA", "NA", "IN"]


def test_summary_counts_every_row_built_and_refuses_a_missing_result(tmp_path: Path) -> None:
    track = make_track({"atomic_questions": True, "bootstrap_rounds": 0})
    samples, scored = run_track(track, None, ExactMatchGrader(), tmp_path / "c.sqlite")
    summary = track.summarize(samples, scored).summary()
    assert summary["n_items"] == len(track.rows) == 6 and summary["n_graded"] == 6
    with pytest.raises(ValueError, match=r"no scored result for sample\(s\) \['1'\]"):
        track.summarize(samples, [s for s in scored if s.sample_id != "1"])


def test_oracle_gets_full_marks_with_the_chinese_official_grader(tmp_path: Path) -> None:
    track = make_track({"grader_prompt": "simplevqa_grader_zh.txt", "bootstrap_rounds": 0})
    samples, scored = run_track(track, None, ExactMatchGrader(), tmp_path / "c.sqlite")
    summary = track.summarize(samples, scored).summary()
    assert summary["CO"] == 1.0 and summary["grader"]["reply_format"] == "json_labels"


class FixedAnswers(SyncBackend):
    """A model answering by sample position: failures and wrong answers where a test wants them."""

    name = "fixed"
    identity: dict[str, Any] = {"backend": "fixed"}

    def __init__(self, answers: Sequence[str | None]) -> None:
        super().__init__()
        self.answers = answers

    def generate(self, requests, on_done=None):
        return [Response(text="", status=Status.REQUEST_FAILED, error="down") if a is None else Response(text=a)
                for a in self.answers[: len(requests)]]  # fmt: skip


def test_mixed_outcomes_are_counted_and_kept_out_of_the_rates(tmp_path: Path) -> None:
    track = make_track({"bootstrap_rounds": 100})
    model = FixedAnswers(["圆形", "3520", "I don't know", None, "42", "4"])
    samples, scored = run_track(track, model, ExactMatchGrader(), tmp_path / "c.sqlite")
    assert [s.outcome for s in scored] == ["ok", "ok", "ok", "request_failed", "ok", "ok"]
    summary = track.summarize(samples, scored).summary()
    assert summary["n_items"] == 6 and summary["n_graded"] == 5
    assert (summary["CO"], summary["IN"], summary["NA"]) == pytest.approx((3 / 5, 1 / 5, 1 / 5))
    assert summary["CGA"] == pytest.approx(3 / 4)
    assert summary["outcomes"] == {"ok": 5, "request_failed": 1}


def test_unparseable_grades_are_shown_not_graded(tmp_path: Path) -> None:
    track = make_track({"bootstrap_rounds": 0}, limit=2)
    samples, scored = run_track(track, None, ScriptedGrader(["no idea"]), tmp_path / "c.sqlite")
    assert [s.outcome for s in scored] == ["judge_unparseable"] * 2
    assert scored[0].scores == {} and scored[0].extra["grader_replies"] == ["no idea", "no idea"]
    report = track.summarize(samples, scored)
    summary = report.summary()
    assert summary["n_graded"] == 0 and summary["n_judge_unparseable"] == 2
    assert [summary[k] for k in ("F", "CO", "CGA", "NA", "IN")] == [None] * 5  # never 0
    assert summary["note"] == f"{NO_GRADE_NOTE} (2 judge_unparseable)"
    assert summary["overall"]["ci95"] is None and summary["overall"]["note"] == NO_GRADE_NOTE
    cn = summary["by_language"]["CN"]
    assert cn["n_judge_unparseable"] == 2 and cn["F"] is None and cn["note"] == NO_GRADE_NOTE
    tables = tables_markdown(summary)
    assert "| all | 0 | 2 | n/a (0 graded) | n/a (0 graded) |" in tables
    assert "| CN | 0 | 2 | " + " | ".join(["n/a (0 graded)"] * 5) + " |" in tables
    assert f"Note: {summary['note']}." in tables and " 0.0" not in tables
    assert json.loads(json.dumps(summary))["F"] is None  # stored as JSON null


def test_atomic_analysis_and_tables(tmp_path: Path) -> None:
    track = make_track({"atomic_questions": True, "bootstrap_rounds": 50})
    # original right, atomic wrong for row 0; original wrong, atomic right for row 1013
    answers = [
        "圆形",
        "绿色",
        "3518",
        "3518",
        "3",
        "蓝色",
        "Paris",
        "PARIS",
        "41",
        "17 and 25",
        "4",
        "triangle",
    ]
    samples, scored = run_track(
        track, FixedAnswers(answers), ExactMatchGrader(), tmp_path / "c.sqlite"
    )
    report = track.summarize(samples, scored)
    summary = report.summary()
    assert summary["n_items"] == 6 and summary["CO"] == 0.8333  # 5 / 6, 4 dp
    atomic = summary["atomic"]
    assert atomic["n_pairs"] == 6 and atomic["cells"]["atomic_only_failure"] == 1
    assert (
        atomic["cells"]["knowledge_or_reasoning_failure"] == 1
        and atomic["cells"]["both_correct"] == 4
    )
    report.write_files(tmp_path)
    tables = (tmp_path / TABLES_FILE).read_text(encoding="utf-8")
    assert (
        "## By task category" in tables
        and "| Logic & Science | 1 | 0 | 0.00 [0.00, 0.00]" in tables
    )
    assert "## Atomic questions" in tables


class CannedGrader(SyncBackend):
    """Replies from a table keyed by the question inside the grader prompt (in order per key)."""

    name = "canned"
    identity: dict[str, Any] = {"backend": "canned"}

    def __init__(self, replies: dict[str, list[str]]) -> None:
        super().__init__()
        self.replies = replies
        self.asked: dict[str, int] = {}

    def generate(self, requests, on_done=None):
        out = []
        for request in requests:
            # the official layout puts a space before the line break
            question = next(q for q in self.replies if f"问题: {q} \n" in request.turns[0].text)
            n = self.asked[question] = self.asked.get(question, 0) + 1
            out.append(
                Response(text=self.replies[question][min(n, len(self.replies[question])) - 1])
            )
        return out


def test_canned_official_replies_give_the_expected_tables(tmp_path: Path) -> None:
    case = json.loads((CASES / "canned_track_replies.json").read_text(encoding="utf-8"))
    track = make_track({"grader_prompt": case["grader_prompt"], "bootstrap_rounds": 100})
    samples, scored = run_track(track, None, CannedGrader(case["replies"]), tmp_path / "c")
    summary = track.summarize(samples, scored).summary()
    expected = case["expected"]
    assert summary["outcomes"] == expected["outcomes"]
    assert _subset(summary["overall"], expected["overall"])
    for key in ("by_language", "by_task_category", "by_domain"):
        assert set(summary[key]) == set(expected[key]), key
        for group, values in expected[key].items():
            assert _subset(summary[key][group], values), (key, group)


def _subset(actual: dict[str, Any], expected: dict[str, Any]) -> bool:
    return all(actual[k] == pytest.approx(v) for k, v in expected.items())


def test_tables_are_rendered_from_the_report_without_bootstrapping_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    track = make_track({"atomic_questions": True, "bootstrap_rounds": 50})
    samples, scored = run_track(track, None, ExactMatchGrader(), tmp_path / "c.sqlite")
    report = track.summarize(samples, scored)
    assert isinstance(report, SimpleVQAReport)

    def no_more_bootstraps(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("write_files bootstrapped again")

    for name in ("factuality_table", "grouped_tables", "atomic_analysis"):
        monkeypatch.setattr(track_module, name, no_more_bootstraps)
    report.write_files(tmp_path)
    written = (tmp_path / TABLES_FILE).read_text(encoding="utf-8")
    assert written == tables_markdown(report.summary())
    with pytest.raises(AssertionError, match="bootstrapped again"):
        track.summarize(samples, scored)  # the guard itself can fail
