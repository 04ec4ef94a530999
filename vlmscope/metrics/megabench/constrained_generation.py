"""`constrained_generation`: every constraint in the query's eval_context must hold (official
semantics). Score = min over constraints; info = "key: score" items joined by tabs.

- keys containing "contain" (with optional "##position", "##position_only", "##times" parts):
  phrase occurrences are counted per sentence after noun lemmatisation (`lexicon`), as substrings
  (so "cat" is found in "caterpillar"); `contain_only` needs exactly one group to occur;
- "length": word count strictly below/above the bound;
- "acrostic" / "acrostic_alliteration": first letters of lines (and of words);
- "syllables", "rhyming_scheme", "poetry_meter": CMUdict pronunciations (`pronunciation`).
An empty constraint value is a placeholder scoring 1; an unknown key scores 0. The official 10 s
alarm per constraint cannot be reproduced and is not emulated.
"""

from __future__ import annotations

import collections
import itertools
import re
from typing import Any

from vlmscope.literals import python_literal
from vlmscope.metrics.megabench.conversions import str_to_iterable
from vlmscope.metrics.megabench.lexicon import lemmatize_phrase, split_sentences
from vlmscope.metrics.megabench.meter import is_line_iambic
from vlmscope.metrics.megabench.pronunciation import (
    phones_for_word,
    possible_syllable_counts,
    rhyming_part,
)

Occurrences = list[tuple[int, int]]


def _nested_word_lists(text: Any) -> Any:
    """`[[fox], [cat, kitten]]` -> nested lists of strings (the text itself when unreadable)."""
    quoted = re.sub(r"(\w+)", r'"\1"', text)
    try:
        return python_literal(quoted)
    except (ValueError, SyntaxError):
        return text


def syllable_ranges(text: str) -> list[list[int]]:
    """'575' -> [[5,5],[7,7],[5,5]]; '[7,10][5]' -> [[7,10],[5,5]]; a space is a blank line [0,0]."""
    ranges = []
    for chunk in re.findall(r"(?:\[\d+(?:,\s*\d+)?\]|\d| )", text.strip()):
        chunk = chunk.strip("[]")
        if "," in chunk:
            low, high = map(int, chunk.split(","))
            ranges.append([low, high])
        elif chunk == " ":
            ranges.append([0, 0])
        else:
            ranges.append([int(chunk), int(chunk)])
    return ranges


def _parse_constraint(key: str, value: str) -> dict[str, Any]:
    keys = [re.sub(r"\d+$", "", part) for part in key.strip().split("##")]
    values: list[Any] = [part.strip().strip('"').strip() for part in value.strip().split("##")]
    values = [int(part) if part.isdigit() else part for part in values]
    if len(keys) != len(values):
        raise ValueError("Mismatch between number of keys and values.")
    return {name.lower(): part for name, part in zip(keys, values, strict=False)}


def occurrences(text: str, phrase: str) -> tuple[int, Occurrences]:
    """Total count of the lemmatised phrase and (1-based sentence number, count) pairs."""
    target = lemmatize_phrase(phrase)
    found: Occurrences = []
    for number, sentence in enumerate(split_sentences(text), 1):
        count = lemmatize_phrase(sentence).count(target)
        if count > 0:
            found.append((number, count))
    return sum(count for _, count in found), found


def _count_group(text: str, items: Any) -> tuple[int, Occurrences]:
    total, found = 0, []
    for item in items:
        count, where = occurrences(text, item)
        if count > 0:
            total += count
            found.extend(where)
    return total, found


def _check_contain(response: str, key: str, value: str) -> int:
    constraint = _parse_constraint(key, value)
    response = response.replace("**", "")
    records: dict[tuple[Any, ...], Occurrences] = {}
    if "contain_only" in constraint:
        satisfied = 0
        for group in _nested_word_lists(constraint["contain_only"]):
            count, found = _count_group(response, group)
            if count > 0:
                satisfied += 1
                records[tuple(group)] = found
        score = 1 if satisfied == 1 else 0
    else:
        items = str_to_iterable(list, constraint["contain"])
        count, found = _count_group(response, items)
        if count > 0:
            records[tuple(items)] = found
        score = 1 if count > 0 else 0
    if score == 0:
        return 0
    found = next(iter(records.values()))
    if "position_only" in constraint:
        return 1 if len(found) == 1 and found[0][0] == constraint["position_only"] else 0
    if "position" in constraint:
        score = 1 if constraint["position"] in [number for number, _ in found] else 0
    if "times" in constraint:
        score = 1 if sum(count for _, count in found) == constraint["times"] else 0
    return score


def _check_length(response: str, value: str) -> int:
    try:
        bound = int(value[1:])
    except ValueError:
        return 0
    words = re.findall(r"\b\w+\b", response)
    if value[0] == "<":
        return 1 if len(words) < bound else 0
    if value[0] == ">":
        return 1 if len(words) > bound else 0
    raise ValueError(f"unknown length constraint {value!r}")


def _check_acrostic(response: str, key: str, value: str) -> int:
    lines = response.replace("**", "").strip().lower().split("\n")
    if len(lines) != len(value):
        return 0
    alliteration = "acrostic_alliteration" in key
    for line, letter in zip(lines, value.lower(), strict=False):
        line = line.strip()
        if letter == " ":
            if line != "":
                return 0
        elif (
            not line
            or alliteration
            and not all(word[0] == letter for word in line.split(" "))
            or not alliteration
            and line[0] != letter
        ):
            return 0
    return 1


def _poem_lines(response: str) -> list[str]:
    response = response.strip()
    for mark in (".", ",", "!", "?", ":", ";", '"'):
        response = response.replace(mark, "")
    response = response.replace("-", " ").replace("—", " ")
    response = re.sub(r" *\(\w\) *(?=\n|$)", "", response)
    return response.lower().split("\n")


def _check_syllables(lines: list[str], value: str) -> int:
    ranges = syllable_ranges(value)
    if len(lines) != len(ranges):
        return 0
    return int(
        all(
            any(low <= count <= high for count in possible_syllable_counts(line))
            for line, (low, high) in zip(lines, ranges, strict=False)
        )
    )


def _check_rhymes(lines: list[str], scheme: str) -> int:
    if len(lines) != len(scheme):
        return 0
    last_words = [line.split()[-1] if line != "" else "" for line in lines]
    words_by_letter: dict[str, set[str]] = collections.defaultdict(set)
    for letter, word in zip(scheme, last_words, strict=False):
        if letter == " ":
            if word != "":
                return 0
        else:
            words_by_letter[letter].add(word)
    parts_by_letter = {}
    for letter, words in words_by_letter.items():
        common = set.intersection(
            *({rhyming_part(phones) for phones in phones_for_word(word)} for word in words)
        )
        if not common:
            return 0
        parts_by_letter[letter] = common
    for first, second in itertools.combinations(parts_by_letter, 2):
        if parts_by_letter[first] & parts_by_letter[second]:
            return 0
    return 1


def check_constraint(response: str, key: str, value: str) -> int:
    """Score of one constraint (0/1)."""
    if value.strip() == "":
        return 1
    if "contain" in key:
        return _check_contain(response, key, value)
    if "length" in key:
        return _check_length(response, value)
    if "acrostic" in key:
        return _check_acrostic(response, key, value)
    lines = _poem_lines(response)
    if key == "syllables":
        return _check_syllables(lines, value)
    if key == "rhyming_scheme":
        return _check_rhymes(lines, value)
    if key == "poetry_meter":
        return 1 if all(is_line_iambic(line) for line in lines) else 0
    return 0


def constrained_generation(response: Any, eval_context: Any) -> tuple[int, str]:
    """Min over the constraints of eval_context, with "key: score" info joined by tabs."""
    results = {key: check_constraint(response, key, value) for key, value in eval_context.items()}
    info = "\t".join(f"{key}: {score}" for key, score in results.items())
    return min(results.values()), info
