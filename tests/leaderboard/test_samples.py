"""Sample browser records: tasks, choices, the views of real and hostile rows, and prompts."""

from __future__ import annotations

from pathlib import Path

from tests.leaderboard.fabricate import HOSTILE_MODEL, HOSTILE_TASK, PAYLOAD, UNREADABLE_GRADE
from vlmscope.leaderboard import browsed_samples as sv
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.safe_html import as_text, plain_label
from vlmscope.leaderboard.sample_prompts import prompt_data_dirs, prompt_view


def test_tasks_and_choices_of_a_real_run(store: ResultStore) -> None:
    rows = store.details("megabench", "oracle")
    tasks = sv.task_names(rows)
    assert tasks[0] == sv.ALL_TASKS and {"sample_single_answer", "sample_open_judge"} <= set(tasks)
    choices = sv.sample_choices(rows, "sample_open_judge")
    assert [value for _, value in choices] == ["sample_open_judge/0", "sample_open_judge/1"]
    assert choices[0][0].endswith("[judge_missing]")
    assert len(sv.sample_choices(rows, sv.ALL_TASKS)) == len(rows) == 16


def test_view_of_an_oracle_sample(store: ResultStore) -> None:
    row = sv.find_sample(store.details("megabench", "oracle"), "sample_min_multi_image/0")
    assert row is not None
    view = sv.sample_view(row)
    assert view.status == "status: ok; outcome: ok"
    assert '"sum": "7"' in view.reference and '"product": "12"' in view.reference
    scores = dict(zip(view.scores["Score"], view.scores["Value"], strict=True))
    assert scores == {"field:product": 1.0, "field:sum": 1.0, "query_score": 1.0}
    judged = sv.sample_view(
        sv.find_sample(store.details("megabench", "oracle"), "sample_open_judge/0")
    )
    assert "judge problem: no judge configured" in judged.judge


def test_hostile_text_is_kept_verbatim_for_a_text_box(store: ResultStore) -> None:
    rows = store.details("megabench", HOSTILE_MODEL)
    assert sv.task_names(rows) == [sv.ALL_TASKS, HOSTILE_TASK]
    view = sv.sample_view(rows[0])
    assert view.response == PAYLOAD and view.parsed == PAYLOAD
    assert PAYLOAD in view.judge and "response_unparseable" in view.status
    failed = sv.sample_view(rows[1])
    assert "request_failed" in failed.status and PAYLOAD in failed.status


def test_control_characters_are_made_visible_and_labels_escaped() -> None:
    assert as_text("a\x16b\tc\nd\x7f") == "a\u2416b\tc\nd\u2421"
    assert as_text({"k": "v"}) == '{\n  "k": "v"\n}' and as_text(None) == ""
    assert plain_label("<b>x</b> & y") == "&lt;b&gt;x&lt;/b&gt; &amp; y"


def test_megabench_prompt_is_rebuilt_with_its_images(store: ResultStore) -> None:
    data = prompt_data_dirs({})
    assert set(data) == {"megabench", "probench", "simplevqa"}  # the shipped samples, in a checkout
    row = sv.find_sample(store.details("megabench", "oracle"), "sample_min_multi_image/0")
    shown = prompt_view("megabench", sv.sample_view(row).meta, data)
    assert shown.note.startswith("rebuilt from the megabench data")
    assert len(shown.images) >= 2 and shown.text.count("<image ") == len(shown.images)
    assert all(image.size[0] > 0 for image, _ in shown.pil_images())


def test_simplevqa_prompt_is_rebuilt_from_the_data_id(store: ResultStore) -> None:
    meta = sv.sample_view(store.details("simplevqa", "svqa-weak")[0]).meta
    shown = prompt_view("simplevqa", meta, prompt_data_dirs({}))
    assert shown.text.startswith("<image 1: 0.") and meta["question"] in shown.text
    assert len(shown.images) == 1


def test_prompt_falls_back_to_meta_or_says_it_is_missing(tmp_path: Path) -> None:
    dirs = prompt_data_dirs({"VLMSCOPE_MEGABENCH_DATA": str(tmp_path)})
    assert dirs["megabench"] == tmp_path
    unknown_row = {"task_name": "nope", "row_id": "1"}
    assert prompt_view("megabench", unknown_row, dirs).text == ""  # no data there: no prompt
    question = prompt_view("simplevqa", {"question": "What is shown?", "data_id": -5}, dirs)
    assert question.text == "What is shown?" and "images not available" in question.note
    assert prompt_view("other", {}, dirs).note.startswith("prompt not available")


def test_a_grader_retry_is_labelled() -> None:
    """SimpleVQA asks its grader again after a reply it cannot read: the two replies (which can
    read alike) each say which they are."""
    row = {
        "sample_id": "3",
        "outcome": "ok",
        "extra": '{"grader_replies": ["I think so", "A"], "judge_error": null}',
    }
    assert sv.sample_view(row).judge == (
        "[grader reply 1 (unreadable: asked again)]\nI think so\n\n[grader reply 2 (retry)]\nA"
    )
    assert sv.grader_labels(2, "judge_unparseable") == [
        "grader reply 1 (unreadable: asked again)",
        "grader reply 2 (retry; unreadable)",
    ]
    assert sv.grader_labels(1, "judge_unparseable") == ["grader reply 1 (unreadable)"]
    # the retry itself failed: the one reply was unreadable, and the error follows it
    failed = sv.judge_text({"grader_replies": ["hm"], "judge_error": "timeout"}, "request_failed")
    assert failed == "[grader reply 1 (unreadable: asked again)]\nhm\n\njudge error: timeout"


def test_grader_replies_of_a_real_run(store: ResultStore) -> None:
    """The weak model's "I don't know" is graded after one unreadable reply (`fabricate`)."""
    rows = store.details("simplevqa", "svqa-weak")
    assert sv.sample_view(rows[0]).judge == "[grader reply]\nA"
    retried = sv.sample_view(sv.find_sample(rows, "1"))
    assert retried.judge == (
        f"[grader reply 1 (unreadable: asked again)]\n{UNREADABLE_GRADE}\n\n"
        "[grader reply 2 (retry)]\nC"
    )


def test_pairwise_games_say_their_order_verdict_and_nudge() -> None:
    games = [
        {"model_first": False, "judgment": "[[B>A]]", "label": "B>A", "outcome": "parsed"},
        {
            "model_first": True,
            "judgment": "Both are fine.\n\n[[A=B]]",
            "label": "A=B",
            "outcome": "parsed",
            "nudged": True,
            "error": None,
        },
    ]
    text = sv.judge_text({"games": games})
    first, second = text.split("\n\n[game 2")
    assert first == "[game 1: baseline as A, model as B; verdict B>A (parsed)]\n[[B>A]]"
    assert second.startswith(
        ": model as A, baseline as B; verdict A=B (parsed); nudged: the first reply named no "
        "verdict, then the reply to the nudge]\nBoth are fine."
    )
