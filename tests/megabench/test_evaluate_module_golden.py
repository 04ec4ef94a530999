"""Every golden metric case scores its official score through the single-metric `evaluate` module,
dicts, lists, numbers and None (as JSON text, `json_inputs=True`) as well as text."""

from __future__ import annotations

import doctest
import json
import math
from collections.abc import Mapping
from itertools import groupby
from pathlib import Path
from typing import Any

import evaluate
import pytest

from vlmscope.tracks.megabench.score_cases import read_cases

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "evaluate_metrics" / "megabench"
CASES = [
    case
    for case in read_cases(ROOT / "tests" / "golden" / "megabench_metric_cases.jsonl")
    if case["level"] == "metric"
]
BY_METRIC = {
    metric: list(cases)
    for metric, cases in groupby(sorted(CASES, key=lambda c: c["metric"]), lambda c: c["metric"])
}


def _is_text(case: Mapping[str, Any]) -> bool:
    return isinstance(case["inputs"]["response"], str) and isinstance(case["inputs"]["target"], str)


def _scores(metric: str, cases: list[dict[str, Any]], *, as_json: bool) -> list[float]:
    """One compute over the metric's cases, each case a row; text as it is, or all as JSON."""

    def sent(value: Any) -> Any:
        return json.dumps(value) if as_json else value

    contexts = [case["inputs"].get("eval_context") for case in cases]
    result = evaluate.load(str(MODULE), metric).compute(
        predictions=[sent(case["inputs"]["response"]) for case in cases],
        references=[sent(case["inputs"]["target"]) for case in cases],
        eval_context=contexts if any(c is not None for c in contexts) else None,
        json_inputs=as_json,
    )
    return list(result["scores"])


def _assert_golden(cases: list[dict[str, Any]], scores: list[float]) -> None:
    assert len(scores) == len(cases)
    for case, score in zip(cases, scores, strict=True):
        expected = case["expected"]["score"]
        assert math.isclose(score, expected, abs_tol=case["tolerance"]), (case["id"], score)


def test_the_cases_include_the_values_that_are_not_text() -> None:
    """So the JSON path below is exercised by dicts, lists, numbers and None, not only text."""
    other = [case for case in CASES if not _is_text(case)]
    assert len(CASES) == 132 and len(other) == 22
    kinds = {type(case["inputs"][key]).__name__ for case in other for key in ("response", "target")}
    assert {"dict", "list", "int", "NoneType"} <= kinds


@pytest.mark.parametrize("metric", sorted(BY_METRIC))
def test_every_golden_case_as_json(metric: str) -> None:
    cases = BY_METRIC[metric]
    _assert_golden(cases, _scores(metric, cases, as_json=True))


TEXT_CASES = {
    metric: [case for case in cases if _is_text(case)] for metric, cases in BY_METRIC.items()
}


@pytest.mark.parametrize("metric", sorted(m for m, cases in TEXT_CASES.items() if cases))
def test_every_text_golden_case_as_text(metric: str) -> None:
    """Text as it always went (no JSON) scores the same."""
    cases = TEXT_CASES[metric]
    _assert_golden(cases, _scores(metric, cases, as_json=False))


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"references": ['"B"', "{'Ref1': 'C'}"]}, r"references\[1\]: expected JSON text"),
        (
            {"predictions": ['"B"', "B"]},
            r"predictions\[1\]: expected JSON text, .*not JSON \(Expecting value",
        ),
        ({"predictions": ['"B"', {"Ref1": "C"}]}, r"predictions\[1\]: expected a string, got dict"),
        ({"references": ['"B"', None]}, r"references\[1\]: expected a string, got NoneType"),
        ({"json_inputs": "yes"}, "json_inputs: expected True or False, got 'yes'"),
    ],
)
def test_a_malformed_json_row_is_named(change: dict[str, Any], named: str) -> None:
    good = {"predictions": ['"B"', "null"], "references": ['"B"', '"B"'], "json_inputs": True}
    with pytest.raises(ValueError, match=named):
        evaluate.load(str(MODULE), "exact_str_match").compute(**{**good, **change})


def test_a_value_given_as_is_says_how_to_send_it() -> None:
    """None given directly stays an error (not a quiet 0), and the error says what to do."""
    with pytest.raises(ValueError, match=r"predictions\[1\]: .*JSON text, with json_inputs=True"):
        evaluate.load(str(MODULE), "exact_str_match").compute(
            predictions=["B", None], references=["B", "B"]
        )


@pytest.mark.parametrize("where", ["README.md", "megabench.py"])
def test_the_documented_examples_give_what_they_show(
    where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)  # the examples load the module by its path from the repository root
    text = (MODULE / where).read_text(encoding="utf-8")
    globs = {"evaluate": evaluate, "json": json}
    test = doctest.DocTestParser().get_doctest(text, globs, where, where, 0)
    assert test.examples, where
    failed, _ = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert failed == 0
