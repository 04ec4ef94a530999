"""Style-count extraction against markdown_counts.json (reference remove_pattern + counting)."""

from __future__ import annotations

import pytest

from tests.ratings.arena_golden import golden
from vlmscope.judges.markdown import (
    CODE_BLOCK_PATTERN,
    answer_style_counts,
    count_markdown_elements,
    remove_pattern,
)

CASES = golden("markdown_counts.json")


@pytest.mark.parametrize("case", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_golden_case(case: dict) -> None:
    stripped = remove_pattern(case["text"], CODE_BLOCK_PATTERN)
    assert stripped == case["after_code_removal"]
    assert count_markdown_elements(stripped, suffix="") == case["counts"]
    assert answer_style_counts(case["text"]) == case["counts"]


def test_all_golden_cases_are_used() -> None:
    assert len(CASES) == 9


def test_code_removal_also_deletes_the_block_text_elsewhere() -> None:
    # Upstream uses str.replace with the captured block text: other occurrences go too.
    text = "**bold** text\n```bold```\n"
    assert remove_pattern(text, CODE_BLOCK_PATTERN) == "**** text\n``````\n"
    assert answer_style_counts(text)["bold_count"]["**"] == 0


def test_suffix_names_the_keys() -> None:
    counts = count_markdown_elements("## a\n* b\n**c**", suffix="_a")
    assert counts == {
        "header_count_a": {"h1": 0, "h2": 1, "h3": 0, "h4": 0, "h5": 0, "h6": 0},
        "list_count_a": {"ordered": 0, "unordered": 1},
        "bold_count_a": {"**": 1, "__": 0},
    }
