"""Grader prompt files: packaged prompts load, slots fill once, a bad file is rejected by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlmscope.tracks.simplevqa.grader_prompt import load_grader_prompt


def test_packaged_prompts_declare_their_reply_format() -> None:
    english = load_grader_prompt("simplevqa_grader_en.txt")
    chinese = load_grader_prompt("simplevqa_grader_zh.txt")
    assert (english.reply_format, chinese.reply_format) == ("label", "json_labels")
    assert english.text.startswith("Please evaluate whether the model's response is correct")
    assert "arXiv:2502.13059" not in english.text  # the header is not sent to the judge
    assert '"预测答案0"' in chinese.text and english.sha256 != chinese.sha256


def test_slots_are_filled_in_one_pass() -> None:
    prompt = load_grader_prompt("simplevqa_grader_en.txt")
    text = prompt.render("Q {gold_answer}?", "G", "says {question}")
    assert (
        "Question: Q {gold_answer}?\nCorrect Answer: G\nPredicted Answer: says {question}\n" in text
    )
    assert "{predicted_answer}" not in text


def test_a_config_can_override_the_reply_format(tmp_path: Path) -> None:
    prompt = load_grader_prompt("simplevqa_grader_en.txt", "json_labels")
    assert prompt.reply_format == "json_labels" and "JSON" in prompt.retry_reminder


def test_a_prompt_file_by_path(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("Q={question} G={gold_answer} P={predicted_answer}", encoding="utf-8")
    prompt = load_grader_prompt(str(path))
    assert prompt.name == "mine" and prompt.reply_format == "label"
    assert prompt.render("q", "g", "p") == "Q=q G=g P=p"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Q={question} G={gold_answer}", "lacks the slot(s) {predicted_answer}"),
        (
            "---\nreply_format: stars\n---\n{question}{gold_answer}{predicted_answer}",
            "reply_format 'stars'",
        ),
        ("---\nname: x\n{question}{gold_answer}{predicted_answer}", "never closed"),
    ],
)
def test_bad_prompt_files_are_rejected(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_grader_prompt(str(path))


def test_unknown_prompt_name() -> None:
    with pytest.raises(ValueError, match="neither a file nor a packaged prompt"):
        load_grader_prompt("no_such_grader.txt")
