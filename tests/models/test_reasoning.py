"""The one split of a reply into answer and reasoning trace, shared by every backend."""

from __future__ import annotations

import pytest

from vlmscope.config import ConfigError, parse_config
from vlmscope.messages import Response, Status, Usage
from vlmscope.models.reasoning import (
    Split,
    prompt_opens_reasoning,
    reasoning_usage,
    resolve_tags,
    split_reasoning,
    with_reasoning,
)

THINK = ("<think>", "</think>")


@pytest.mark.parametrize(
    ("text", "opened", "expected"),
    [
        ("Answer: B", False, Split("Answer: B", "", False)),
        ("<think>Answer: A? no.</think>\n\nAnswer: B", False,
         Split("Answer: B", "Answer: A? no.", False)),
        # the template opened the trace: the reply holds only its end
        ("Answer: A? no.\n</think>\nAnswer: B", True, Split("Answer: B", "Answer: A? no.", False)),
        ("Answer: A? no.\n</think>\nAnswer: B", False, Split("Answer: B", "Answer: A? no.", False)),
        # the last closing tag ends the trace (a trace that quotes the tag stays whole)
        ("<think>say </think> later</think>B", False, Split("B", "say </think> later", False)),
        # cut off inside the trace: no answer, flagged
        ("<think>Answer: A, or", False, Split("", "Answer: A, or", True)),
        ("Answer: A, or", True, Split("", "Answer: A, or", True)),
        ("", True, Split("", "", True)),
        # text before an opened trace is kept with the answer
        ("Sure. <think>hm</think> B", False, Split("Sure.  B", "hm", False)),
    ],
)  # fmt: skip
def test_split(text: str, opened: bool, expected: Split) -> None:
    assert split_reasoning(text, THINK, opened=opened) == expected


def test_no_tags_leave_the_text_whole() -> None:
    assert split_reasoning("<think>a</think>b", None, opened=True) == Split(
        "<think>a</think>b", "", False
    )
    kimi = resolve_tags("kimi-vl")
    assert split_reasoning("◁think▷x◁/think▷ y", kimi) == Split("y", "x", False)
    assert resolve_tags("none") is None and resolve_tags(("[[", "]]")) == ("[[", "]]")


def test_a_prompt_opens_a_trace_only_when_it_ends_with_the_opening_tag() -> None:
    assert prompt_opens_reasoning("<|im_start|>assistant\n<think>\n", THINK)
    assert not prompt_opens_reasoning("<|im_start|>assistant\n<think>\n\n</think>\n\n", THINK)
    assert not prompt_opens_reasoning("<|im_start|>assistant\n<think>\n", None)


def test_a_server_trace_comes_first_and_tokens_are_the_servers_when_given() -> None:
    reply = Response("<think>more</think>B", usage=Usage(10, 40, reasoning_tokens=30))
    split = with_reasoning(reply, THINK, field="first")
    assert (split.text, split.reasoning, split.truncated_in_reasoning) == (
        "B",
        "first\n\nmore",
        False,
    )
    assert split.usage == Usage(10, 40, 30, False) and split.answer_tokens == 10


def test_tokens_are_estimated_by_share_of_length_when_not_given() -> None:
    assert reasoning_usage(Usage(0, 100), "x" * 30, "y" * 10) == Usage(0, 100, 75, True)
    assert reasoning_usage(Usage(0, 100), "x" * 30, "") == Usage(0, 100, 100, True)
    assert reasoning_usage(Usage(), "x" * 40, "y") == Usage(0, 0, 10, True)
    assert reasoning_usage(Usage(0, 5), "", "y") == Usage(0, 5)


def test_an_api_reply_that_ran_out_of_tokens_while_thinking_is_truncated() -> None:
    thinking = Response("", usage=Usage(5, 64, reasoning_tokens=64))
    assert with_reasoning(thinking, THINK, ended_by_limit=True).truncated_in_reasoning
    assert not with_reasoning(thinking, THINK).truncated_in_reasoning
    answered = Response("B", usage=Usage(5, 64, reasoning_tokens=60))
    assert not with_reasoning(answered, THINK, ended_by_limit=True).truncated_in_reasoning


def test_plain_and_failed_replies_are_returned_as_they_are() -> None:
    plain = Response("B", usage=Usage(1, 1))
    assert with_reasoning(plain, THINK) is plain
    failed = Response("", status=Status.REQUEST_FAILED, error="x")
    assert with_reasoning(failed, THINK, opened=True) is failed


def test_reasoning_fields_round_trip_and_stay_out_of_plain_records() -> None:
    plain = Response("B", usage=Usage(1, 2))
    assert set(plain.to_json()) == {"text", "status", "error", "usage", "latency_s",
                                    "image_notes", "attempts"}  # fmt: skip
    assert plain.to_json()["usage"] == {"prompt_tokens": 1, "completion_tokens": 2}
    thought = Response("", reasoning="hm", truncated_in_reasoning=True, usage=Usage(1, 9, 9, True))
    assert Response.from_json(thought.to_json()) == thought


@pytest.mark.parametrize(
    ("tags", "message"),
    [
        (["<think>"], "reasoning_tags"),
        (["<t>", "<t>"], "two different, non-blank tags"),
        (["<t>", " "], "two different, non-blank tags"),
        ("qwen", "reasoning_tags"),
    ],
)
def test_bad_reasoning_tags_name_the_field(tags: object, message: str) -> None:
    model = {"backend": "hf", "name": "m", "path": "org/m", "reasoning_tags": tags}
    with pytest.raises(ConfigError) as err:
        parse_config({"models": [model], "tracks": [{"name": "colours"}]})
    assert "models.0" in str(err.value) and message in str(err.value)
