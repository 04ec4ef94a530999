"""What the golden cases do not pin down: typed outcomes, recorded errors, the registry, judge
requests, the program-judge harness quirks (through the real sandbox), the safe arithmetic and
the caches."""

from __future__ import annotations

import math
from typing import Any

import pytest

from vlmscope.metrics.megabench.arithmetic import EvaluationTimeout, evaluate_expression
from vlmscope.metrics.megabench.caches import clear_caches
from vlmscope.metrics.megabench.fields import aggregate_fields, score_field
from vlmscope.metrics.megabench.lexicon import lemmatize_noun, split_sentences
from vlmscope.metrics.megabench.metric_types import (
    METRICS,
    UnknownMetricError,
    metric_function,
    unknown_metrics,
)
from vlmscope.metrics.megabench.program_judge import program_judge
from vlmscope.metrics.megabench.query import build_judge_requests, score_query

SPEC_METRICS = [
    "exact_str_match",
    "simple_str_match",
    "exact_str_match_case_insensitive",
    "code_result_exact_str_match",
    "dict_exact_str_match_agg_recall",
    "dict_precision",
    "dict_equality",
    "dict_jaccard_agg_jaccard",
    "dict_set_equality_agg_jaccard",
    "dict_nbbox_iou_tuple_agg_jaccard",
    "normalized_similarity_damerau_levenshtein",
    "near_str_match",
    "number_rel_diff_ratio",
    "set_equality",
    "set_equality_case_insensitive",
    "str_set_equality_line_break",
    "str_set_equality_comma",
    "set_precision",
    "jaccard_index",
    "jaccard_index_case_insensitive",
    "chess_move_list_jaccard_index",
    "longest_common_list_prefix_ratio",
    "sequence_equality",
    "sequence_equality_case_insensitive",
    "sequence_accuracy_case_insensitive",
    "positive_int_match",
    "nbbox_iou_tuple",
    "nbbox_iou_single",
    "nbbox_iou_sequence",
    "xml_nbbox_iou_single",
    "xml_norm_point_distance",
    "xml_norm_point_in_bbox",
    "sequence_coords_similarity",
    "normalized_rmse",
    "angle_seq_float_rmse",
    "general_single_numerical_match",
    "boxed_single_numerical_match",
    "latex_expr_equality",
    "text_with_latex_expr_equality",
    "multi_ref_phrase",
    "symbolic_planning_test",
    "program_judge",
    "constrained_generation",
    "gleu_cn",
    "bleu",
    "geo_proximity_location_dict",
    "nli_entailment",
    "ascii_art_gpt4o_judge",
    "gpt_4o_as_judge",
    "unsupported",
]

JUDGE_CONFIG = {
    "judge_model_type": "with image",
    "reference_type": "answer",
    "eval_criteria_prompt": "Q: {question}\nRef: {ref}\nA: {resp}\nCtx: {ctx}",
    "template_mapping": {
        "question": "example_question",
        "ref": "answers.Answer",
        "resp": "model_output",
        "ctx": "eval_context.note",
    },
}
JUDGED_TASK = {
    "field_score_function": {"Answer": "gpt_4o_as_judge"},
    "aggregation": {"function": "mean", "field_weights": {"Answer": 1}},
    "response_parse_function": "answer_string",
    "gpt4o_eval_configs": JUDGE_CONFIG,
}


def _judged_query(judge_replies: dict[str, str] | None) -> Any:
    return score_query(
        task_name="judged",
        metric_info=JUDGED_TASK,
        eval_context={"note": "n"},
        correct_answer={"Answer": "two cats"},
        response="Answer: **2 cats**",
        query_text="How many cats?",
        global_description="",
        judge_replies=judge_replies,
    )


def test_registry_lists_every_official_metric_and_imports_each() -> None:
    assert set(SPEC_METRICS) == set(METRICS)
    for name in METRICS:
        assert callable(metric_function(name))


def test_judge_reply_without_score_is_zero_and_typed_unparseable() -> None:
    result = _judged_query({"Answer": "I refuse to grade this."})
    assert result.field_scores == {"Answer": 0}
    assert result.field_outcomes == {"Answer": "judge_unparseable"}
    assert result.field_info["Answer"] == "Score is NULL: I refuse to grade this.;"
    assert result.eval_type == "llm"


def test_judge_reply_with_score_and_missing_reply() -> None:
    scored = _judged_query({"Answer": "**Score explanation**: fine\n**Score**: 12"})
    assert scored.field_scores["Answer"] == pytest.approx(1.2)
    assert scored.field_outcomes["Answer"] == "scored"
    missing = _judged_query(None)
    assert missing.field_outcomes == {"Answer": "judge_missing"}
    assert missing.query_score == 0


def test_judge_request_puts_images_first_and_fills_the_template() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    requests = build_judge_requests(
        metric_info=JUDGED_TASK,
        eval_context={"note": "n"},
        correct_answer={"Answer": "two cats"},
        response="Answer: 2 cats",
        query_text="How many cats?",
        image_contents=(image,),
    )
    assert requests == {
        "Answer": [
            image,
            {"type": "text", "text": "Q: How many cats?\nRef: two cats\nA: 2 cats\nCtx: n"},
        ]
    }


def test_metric_exception_scores_zero_and_is_recorded() -> None:
    result = score_field("positive_int_match", "3", "1.5")
    assert result.score == 0
    assert result.outcome == "metric_error"
    assert result.error is not None and result.error.startswith("TypeError")
    clean = score_field("positive_int_match", "3", "3")
    assert (clean.score, clean.error, clean.outcome) == (1, None, "scored")


def test_rule_metric_on_dummy_parsed_text_is_recorded_not_raised() -> None:
    result = score_query(
        task_name="t",
        metric_info={
            "field_score_function": {"a": "exact_str_match", "b": "unsupported"},
            "aggregation": {"function": "mean", "field_weights": {"a": 1, "b": 1}},
            "response_parse_function": "dummy",
        },
        eval_context={},
        correct_answer={"a": "x", "b": "y", "c": "z"},
        response="  x  ",
        query_text="",
        global_description="",
    )
    assert result.parsed_answer == "x"
    assert result.field_scores == {"a": 0}
    assert result.field_errors["a"].startswith("AttributeError")
    assert result.query_score == 0


def test_global_aux_metric_over_dummy_parsed_text_is_recorded_not_scored() -> None:
    """The official evaluator stores an aux field into the parsed response first; a string refuses
    it (TypeError) and the run stops. The aux field scores 0 with that error; the others score."""
    metric_info = {
        "field_score_function": {"##answer": "constrained_generation"},
        "aggregation": {"function": "mean", "field_weights": {"##answer": 1, "##aux": 1}},
        "global_aux_metrics": {"##aux": "set_equality"},
    }

    def scored(parse_function: str, response: str) -> Any:
        return score_query(
            task_name="t",
            metric_info={**metric_info, "response_parse_function": parse_function},
            eval_context={"length": "<50"},
            correct_answer={"##answer": ""},
            response=response,
            query_text="",
            global_description="",
        )

    result = scored("dummy", "The cat saw another cat near the door.")
    assert result.field_scores == {"##answer": 1, "##aux": 0}
    assert result.field_outcomes["##aux"] == "metric_error"
    assert result.field_errors == {
        "##aux": "TypeError: 'str' object does not support item assignment"
    }
    as_json = scored("json", '{"a": "The cat saw another cat near the door."}')
    assert "##aux" not in as_json.field_errors
    assert as_json.field_outcomes["##aux"] == "scored"  # a dict takes the field: it is scored


def test_unknown_metric_name_raises_instead_of_scoring() -> None:
    """The official `MetricType.from_string` raises on it; only None and "unsupported" skip."""
    metric_info = {
        "field_score_function": {"a": "exact_str_match", "b": "no_such_metric"},
        "aggregation": {"function": "mean", "field_weights": {"a": 1, "b": 1}},
        "response_parse_function": "json",
    }
    assert unknown_metrics(metric_info) == {"b": "no_such_metric"}
    assert unknown_metrics({"field_score_function": {"a": "Exact_Str_Match", "b": None}}) == {}
    with pytest.raises(UnknownMetricError, match="no_such_metric"):
        score_query(
            task_name="t",
            metric_info=metric_info,
            eval_context={},
            correct_answer={"a": "x", "b": "y"},
            response='{"a": "x", "b": "y"}',
            query_text="",
            global_description="",
        )


def test_failed_json_parse_gives_every_field_the_raw_response() -> None:
    result = score_query(
        task_name="t",
        metric_info={
            "field_score_function": {"a": "simple_str_match"},
            "aggregation": {"function": "mean", "field_weights": {"a": 1}},
            "response_parse_function": "json",
        },
        eval_context={},
        correct_answer={"a": "Paris"},
        response="paris",
        query_text="",
        global_description="",
    )
    assert result.parse_failed
    assert result.parsed_answer == {"a": "paris"}
    assert result.field_scores == {"a": 1}


def test_aggregation_drops_negative_and_nan_scores() -> None:
    assert aggregate_fields("mean", {"a": math.nan, "b": 0.5}, {"a": 5, "b": 1}) == 0.5
    assert aggregate_fields("mean", {"a": -1}, {"a": 1}) == -1
    assert aggregate_fields("min", {"a": -1, "b": 0.2, "c": 0.7}, {}) == pytest.approx(0.2)
    assert aggregate_fields(None, {"a": 1.0}, {"a": 1}) == -1


CLOCK = {"test_case": {"input": ["21:11"], "expected": "9:11 PM"}}


@pytest.mark.parametrize(
    ("code", "score"),
    [
        ('def main():\n    print("9:11 PM")\nif __name__ == "__main__":\n    main()', 1.0),
        ("def main():\n    print('9:11 PM')\nif __name__ == '__main__':\n    main()", 0.0),
        ('def f():\n    return g()\ndef g():\n    return "9:11 PM"\nprint(f())', 0.0),
        ('x = input("time? ")\nprint("9:11 PM" if x == "21:11" else x)', 1.0),
        ("input()\ninput()\nprint('9:11 PM')", 0.0),
        ("import sys\nprint(sys.stdin.read() or '9:11 PM')", 1.0),
        ("print('9:11 PM')\nraise SystemExit(0)", 0.0),
    ],
    ids=[
        "double-quoted-guard",
        "single-quoted-guard",
        "top-level-names",
        "prompt",
        "extra-input",
        "stdin-empty",
        "exit",
    ],
)
def test_program_judge_harness_quirks(code: str, score: float) -> None:
    assert program_judge(code, CLOCK) == score


def test_program_judge_without_code_fails_every_test() -> None:
    assert program_judge(None, CLOCK) == 0.0


def test_arithmetic_is_safe_and_matches_python_where_supported() -> None:
    assert evaluate_expression(" 1/4 + 2**3") == 8.25
    assert evaluate_expression("[1, 2][1]") == 2
    assert evaluate_expression("E") == 2.718
    assert evaluate_expression("7 ^ 2") == 5
    for unsafe in ("__import__('os')", "().__class__", "sqrt(2)", "x*2", "lambda: 1"):
        with pytest.raises((NameError, ValueError)):
            evaluate_expression(unsafe)
    with pytest.raises(EvaluationTimeout):
        evaluate_expression("9**9**9")


def test_cleared_caches_give_the_same_scores() -> None:
    pairs = [
        ("latex_expr_equality", "\\frac{2}{4}", "0.5"),
        ("general_single_numerical_match", "1/3", "0.333"),
    ]
    first = [score_field(m, r, t).score for m, r, t in pairs]
    clear_caches()
    assert [score_field(m, r, t).score for m, r, t in pairs] == first == [1, 1.0]


def test_sentence_splitter_and_noun_lemmas() -> None:
    assert split_sentences("J. Smith saw a cat. It ran! Did it?") == [
        "J. Smith saw a cat.",
        "It ran!",
        "Did it?",
    ]
    assert [lemmatize_noun(w) for w in ("puppies", "wolves", "geese", "cats", "dogs", "xyzs")] == [
        "puppy",
        "wolf",
        "goose",
        "cat",
        "dog",
        "xyzs",
    ]


def test_parser_exception_scores_fields_zero_with_parse_error() -> None:
    result = score_query(
        task_name="t",
        metric_info={
            "field_score_function": {"a": "exact_str_match"},
            "aggregation": {"function": "mean", "field_weights": {"a": 1}},
            "response_parse_function": "json",
        },
        eval_context={},
        correct_answer={"a": "x"},
        response="{[1]: 2}",
        query_text="",
        global_description="",
    )
    assert result.field_outcomes == {"a": "parse_error"}
    assert result.field_errors["a"].startswith("TypeError")
    assert result.query_score == 0
