"""The linear `\\boxed{...}` scan finds what the official regex finds, without its exponential
backtracking on a `\\boxed{` that is never closed."""

from __future__ import annotations

import random

import pytest

from vlmscope.metrics.megabench.boxed import (
    OFFICIAL_ALARM_TRIES,
    OFFICIAL_PATTERN,
    boxed_content,
    boxed_search,
)
from vlmscope.metrics.megabench.numeric import boxed_single_numerical_match as match

PIECES = ("\\boxed{", "{", "}", "a", "bc", " ", "\\", "boxed", "5")


def random_texts(count: int) -> list[str]:
    rng = random.Random(7)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12))) for _ in range(count)]


def test_the_scan_matches_the_official_regex() -> None:
    found = 0
    for text in random_texts(3000):
        content, tries = boxed_search(text)
        if tries > 2**12:
            continue  # the official regex would take long; the cost is checked below
        match = OFFICIAL_PATTERN.search(text)
        assert content == (match.group(1) if match else None), text
        found += match is not None
    assert found > 300


def test_tries_count_the_splits_of_each_unclosed_run_and_the_walks_after_it() -> None:
    assert boxed_search("\\boxed{abcd")[1] == 2**3
    # "ab": 2 splits; "{c}": walked once per split; "de": 2 splits per way of reaching it.
    assert boxed_search("\\boxed{ab{c}de{ \\boxed{5}") == ("5", 2 + 2 + 2 * 2)
    assert boxed_search("\\boxed{" + "a" * 16 + "{}" * 200)[1] == 2**15 * 201
    assert boxed_search("\\boxed{ab} \\boxed{" + "a" * 50) == ("ab", 0)


@pytest.mark.timeout(20)
def test_a_cut_off_box_is_found_missing_at_once() -> None:
    text = "\\boxed{" + "a" * 60
    assert boxed_content(text) == (text, 2**59)
    assert boxed_content("Answer: \\boxed{" + "7 " * 3000 + "}")[0] == "7 " * 3000


@pytest.mark.timeout(20)
def test_a_search_the_official_alarm_stops_is_scored_as_the_raw_strings() -> None:
    cut_off = "\\boxed{" + "a" * 40 + " = 42"
    assert boxed_search(cut_off)[1] >= OFFICIAL_ALARM_TRIES
    assert match(cut_off, "42") == 0  # the official alarm: simple_str_match of the raw strings
    assert match("\\boxed{" + "a" * 10 + " = 42", "42") == 1  # the search finishes: "= 42" is read
    # Near the alarm (the run is the letters and " = 42"): 2 ** 27 tries take the official regex
    # about 20 s, 2 ** 21 about a third of a second.
    assert match("\\boxed{" + "a" * 23 + " = 42", "42") == 0
    assert match("\\boxed{" + "a" * 17 + " = 42", "42") == 1
    # A short run before thousands of groups: each split walks every group again (minutes upstream).
    many_groups = "\\boxed{" + "a" * 22 + "{}" * 2000 + " = 42"
    assert boxed_search(many_groups)[1] >= OFFICIAL_ALARM_TRIES
    assert match(many_groups, "42") == 0


def test_a_non_string_target_raises_as_the_official_search_does() -> None:
    with pytest.raises(TypeError):
        boxed_content(42)
