"""Synthetic MEGA-Bench queries for the scoring benchmark: every registered metric, realistic answer
formats (bold labels, choice letters, JSON, LaTeX, boxes, plans, programs, poems), seeded."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

BLOCKS_DOMAIN = """(define (domain blocksworld-4ops)
(:action pickup
  :parameters (?ob)
  :precondition (and (clear ?ob) (on-table ?ob) (arm-empty))
  :effect (and (holding ?ob) (not (clear ?ob)) (not (on-table ?ob)) (not (arm-empty))))
(:action putdown
  :parameters  (?ob)
  :precondition (holding ?ob)
  :effect (and (clear ?ob) (arm-empty) (on-table ?ob) (not (holding ?ob))))
(:action stack
  :parameters  (?ob ?underob)
  :precondition (and (clear ?underob) (holding ?ob))
  :effect (and (arm-empty) (clear ?ob) (on ?ob ?underob) (not (clear ?underob)) (not (holding ?ob))))
(:action unstack
  :parameters  (?ob ?underob)
  :precondition (and (on ?ob ?underob) (clear ?ob) (arm-empty))
  :effect (and (holding ?ob) (clear ?underob) (not (on ?ob ?underob)) (not (clear ?ob)) (not (arm-empty)))))"""
BLOCKS_TASK = """(define (problem bw)
(:domain blocksworld-4ops)
(:objects b1 b2 b3 )
(:init
(arm-empty)
(on-table b1)
(on b2 b3)
(on b3 b1)
(clear b2)
)
(:goal
(and
(on b3 b2))
)
)"""
PLANS = [
    "(unstack b2 b3)\n(putdown b2)\n(unstack b3 b1)\n(stack b3 b2)",
    "(unstack b2 b3)\n(putdown b2)",
    "(pickup b1)",
    "First I unstack.\n(unstack b2 b3)\n(putdown b2)\n(unstack b3 b1)\n(stack b3 b2)",
]
PROGRAMS = [
    "h, m = map(int, input().split(':'))\nsuffix = 'AM' if h < 12 else 'PM'\n"
    "h = h % 12 or 12\nprint(f'{h}:{m:02d} {suffix}')",
    "h, m = map(int, input().split(':'))\nprint(f'{h - 12}:{m:02d} PM')",
    'def main():\n    h, m = map(int, input().split(":"))\n    print(f"{h % 12 or 12}:{m:02d} '
    "{'AM' if h < 12 else 'PM'}\")\nif __name__ == \"__main__\":\n    main()",
    "import time\ntime.sleep(30)",
]
CLOCK_TESTS = [
    {"input": ["21:11"], "expected": "9:11 PM"},
    {"input": ["09:05"], "expected": "9:05 AM"},
]
POEMS = [
    "Soft fur in the sun\nsmall paws patter on the floor\nthe hamster is home",
    "A cat and a dog share a sunny spot.",
    "Hamster in the hay. It likes seeds.",
    "The cat saw another cat near the door.",
]
POEM_CONSTRAINTS = [
    {"syllables": "575", "contain": "[hamster, paw, fur]"},
    {"contain1": "[cat, kitten]", "contain2": "[dog, puppy]", "length": "<20"},
    {"contain##times": "[cat, kitten]##2", "length": "<20"},
    {"contain_only": "[[hamster], [cat, kitten]]", "acrostic": "hs"},
]
LATEX = ["x^2+2x+1", "(x+1)^2", "\\frac{1}{2}", "0.5", "\\sqrt{4}", "2", "2ab", "ba2", "a=b"]
NUMBERS = ["4", "$4$", "4.0", "3.96", "\\frac{8}{2}", "50%", "0.5", "x = 5", "5", "1e3", "1000"]

_PAIRS: dict[str, tuple[list[str], list[str]]] = {
    "exact_str_match": (["A", "B", "C", "tree"], ["(B) dog", "B", "Because", "tree", "tree."]),
    "simple_str_match": (["Hello World", "e-mail"], ["helloworld", "Email", "hello  world"]),
    "exact_str_match_case_insensitive": (["yes", "no"], ["Yes", "NO", "maybe"]),
    "code_result_exact_str_match": (["```result\n42\n```"], ["```result\n42\n```", "41"]),
    "multi_ref_phrase": (["pink, magenta", "Two, 2"], ["pink.", "2", "purple"]),
    "normalized_similarity_damerau_levenshtein": (["kitten", "sitting"], ["sitten", "kitten"]),
    "near_str_match": (["Big Ben", "Sagrada Familia"], ["big ben", "Sagrada Família", "Tower"]),
    "number_rel_diff_ratio": (["46", "12"], ["50", "11", "about fifty"]),
    "normalized_rmse": (["0.4732", "0.49"], ["0.4532", "49%", "0.49"]),
    "angle_seq_float_rmse": (["30,60", "90,90"], ["32.5,62.5", "90,90", "a,b"]),
    "general_single_numerical_match": (NUMBERS, NUMBERS),
    "boxed_single_numerical_match": (
        ["\\boxed{11760}", "\\boxed{\\frac{1}{4}}"],
        ["\\boxed{0.25}", "\\boxed{11760.0}"],
    ),
    "latex_expr_equality": (LATEX, LATEX),
    "text_with_latex_expr_equality": (
        ["Let $x$ and $y+1$ be"],
        ["Let $x$ and $1+y$ be", "Let and be"],
    ),
    "set_equality": (
        ["Windows, Mac", "['a', 'b']"],
        ["['Mac', 'Windows']", "[Mac, Windows", "b, a"],
    ),
    "set_equality_case_insensitive": (["['dairy', 'bakery']"], ["DAIRY, BAKERY", "dairy"]),
    "str_set_equality_line_break": (["A\\nB"], ["B\nA", "A"]),
    "str_set_equality_comma": (["A, B", "4"], ["b, a", "4.0", "04"]),
    "set_precision": (["a, b"], ["a, x, y", "", "[]", "a"]),
    "jaccard_index": (["[3, 5, 6]"], ["[3, 4]", "[6, 5, 3]"]),
    "jaccard_index_case_insensitive": (
        ["['M2', 'M11']", "[('j_doe', 'MIT')]"],
        ["m2, m11", "[('j.doe', 'mit')]"],
    ),
    "chess_move_list_jaccard_index": (["Ke7,Kf7,Rh2+"], ["Ke7", "Rh2", "Kf7,Ke7"]),
    "longest_common_list_prefix_ratio": (["a,b,c,d"], ["a,b,x", "a,b,c,d,e"]),
    "sequence_equality": (["1, 2, 3"], ["(1, 2, 3)", "1 2 3"]),
    "sequence_equality_case_insensitive": (["x, y"], ["X, Y", "y, x"]),
    "sequence_accuracy_case_insensitive": (["Peru,Chile"], ["peru,chile", "Peru,Venezuela"]),
    "dict_exact_str_match_agg_recall": (
        ["{1: 'B', 2: 'A'}"],
        ["{1: 'B', 2: 'C'}", "{1: 'B', 2: 'A'}"],
    ),
    "dict_precision": (["{'a': 'x', 'b': 'y'}"], ["{'a': 'x'}", "{'a': 'z', 'c': 'y'}"]),
    "dict_equality": (["{'top-down': 'c'}"], ["{'top-down': 'c'}", "{'top-down': 'a'}"]),
    "dict_jaccard_agg_jaccard": (["{'k': [1, 2]}"], ['{"k": [2, 1]}', "{'k': [1]}"]),
    "dict_set_equality_agg_jaccard": (["{'k': '1, 2'}"], ["{'k': '2, 1'}", "{'k': '1'}"]),
    "dict_nbbox_iou_tuple_agg_jaccard": (
        ["{'w': '(0.1, 0.1, 0.2, 0.2)'}"],
        ["{'w': '(0.1, 0.1, 0.2, 0.2)'}", "{'w': '(0.5, 0.5, 0.6, 0.6)'}"],
    ),
    "nbbox_iou_tuple": (["[(0.1, 0.1, 0.5, 0.5)]"], ["[(0.2, 0.2, 0.6, 0.6)]", "none"]),
    "nbbox_iou_single": (["(0.1, 0.2, 0.3, 0.4)"], ["(0.1, 0.2, 0.2, 0.3)", "(0.1, 0.2, 0.3)"]),
    "nbbox_iou_sequence": (
        ["[(0.1, 0.1, 0.2, 0.2), (0.3, 0.3, 0.4, 0.4)]"],
        ["[(0.1, 0.1, 0.2, 0.2), (0.35, 0.3, 0.45, 0.4)]"],
    ),
    "xml_nbbox_iou_single": (
        ["<box>0.1, 0.0, 0.3, 0.1</box>"],
        ["<box>0.0, 0.0, 0.2, 0.1</box>", "no box"],
    ),
    "xml_norm_point_distance": (
        ["<point>0.5, 0.8</point>"],
        ["<point>0.5, 0.75</point>", "<point>2, 2</point>"],
    ),
    "sequence_coords_similarity": (["[[0.5, 0.5]]"], ["[[0.6, 0.6]]", "[[0.5, 0.5]]", "prose"]),
    "bleu": (["the cat sat on the mat"], ["the cat sat on a mat"]),
    "gleu_cn": (["交叉注意层"], ["交叉注意层", "语言模型"]),
    "nli_entailment": (["same"], ["same"]),
    "ascii_art_gpt4o_judge": ([" ** \n****"], ["", " ** \n****"]),
    "unsupported": (["x"], ["x"]),
    "xml_norm_point_in_bbox": (
        ["<point>0.2, 0.2</point>"],
        ["<point>0.2, 0.2</point>", "<point>0.9, 0.9</point>"],
    ),
}
_DECORATIONS = ["Answer: {}", "Let me think.\nAnswer: {}", "**Answer:** {}", "{}"]


@dataclass(frozen=True)
class SyntheticQuery:
    metric: str
    metric_info: dict[str, Any]
    correct_answer: dict[str, Any]
    response: str
    eval_context: dict[str, Any] = field(default_factory=dict)
    judge_replies: dict[str, str] | None = None


def _task(metric: str, parse: str, fields: tuple[str, ...] = ("Answer",)) -> dict[str, Any]:
    return {
        "field_score_function": {name: metric for name in fields},
        "aggregation": {"function": "mean", "field_weights": {name: 1 for name in fields}},
        "response_parse_function": parse,
        "gpt4o_eval_configs": {
            "judge_model_type": "text only",
            "eval_criteria_prompt": "{resp}",
            "template_mapping": {"resp": "model_output"},
        },
    }


def _special(metric: str, rng: random.Random) -> SyntheticQuery | None:
    if metric == "symbolic_planning_test":
        plan = rng.choice(PLANS)
        return SyntheticQuery(
            metric,
            _task(metric, "answer_string", ("plan",)),
            {"plan": PLANS[0]},
            f"Answer: {plan}",
            {"task_pddl": BLOCKS_TASK, "domain_pddl": BLOCKS_DOMAIN},
        )
    if metric == "program_judge":
        hangs = rng.random() < 0.01
        code = PROGRAMS[3] if hangs else rng.choice(PROGRAMS[:3])
        tests = CLOCK_TESTS[: 1 if hangs else rng.randint(1, 2)]
        return SyntheticQuery(
            metric,
            _task(metric, "answer_string"),
            {"Answer": "# tested"},
            f"Here it is.\nAnswer:\n```python\n# v{rng.random()}\n{code}\n```",
            {"test_case": tests},
        )
    if metric == "constrained_generation":
        return SyntheticQuery(
            metric,
            _task(metric, "dummy", ("##poem",)),
            {"##poem": ""},
            rng.choice(POEMS),
            dict(rng.choice(POEM_CONSTRAINTS)),
        )
    if metric == "positive_int_match":
        colours = ("red", "blue", "green")
        truth = {c: str(rng.randint(0, 3)) for c in colours}
        guess = {c: str(rng.randint(0, 3)) for c in colours}
        return SyntheticQuery(metric, _task(metric, "json", colours), truth, f"Answer: {guess}")
    if metric == "gpt_4o_as_judge":
        reply = rng.choice(["**Score explanation**: ok\n**Score**: 7", "I cannot grade."])
        return SyntheticQuery(
            metric,
            _task(metric, "answer_string"),
            {"Answer": "two"},
            "Answer: two cats",
            judge_replies={"Answer": reply},
        )
    if metric == "geo_proximity_location_dict":
        where = {"country": "France", "province_or_state": "", "municipality": "Paris"}
        return SyntheticQuery(
            metric,
            _task(metric, "json", ("country", "place")),
            {"country": "France", "place": "Paris"},
            f"Answer: {where}",
        )
    return None


def make_workload(size: int, seed: int = 0) -> list[SyntheticQuery]:
    """`size` queries spread evenly over every registered metric."""
    from vlmscope.metrics.megabench.metric_types import METRICS

    rng = random.Random(seed)
    metrics = sorted(METRICS)
    queries = []
    for index in range(size):
        metric = metrics[index % len(metrics)]
        special = _special(metric, rng)
        if special is not None:
            queries.append(special)
            continue
        targets, responses = _PAIRS[metric]
        target = rng.choice(targets)
        answer = rng.choice([*responses, target])
        parse = (
            "verbatim_answer_string"
            if metric in ("code_result_exact_str_match", "boxed_single_numerical_match")
            else "answer_string"
        )
        context = (
            {"bounding_boxes": ["(0.1, 0.1, 0.3, 0.3)"]}
            if metric == "xml_norm_point_in_bbox"
            else {}
        )
        replies = (
            {"Answer": rng.choice(["yes", "no"])} if metric == "ascii_art_gpt4o_judge" else None
        )
        response = rng.choice(_DECORATIONS).format(answer)
        queries.append(
            SyntheticQuery(
                metric, _task(metric, parse), {"Answer": target}, response, context, replies
            )
        )
    return queries


def official_files(
    queries: list[SyntheticQuery], task_names: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The workload as `vlmscope megabench score` reads it: an `all_query_responses.json` and its
    task samples (`metric_info` and `eval_context` as Python literals, as in the dataset).

    One task per metric (its queries in workload order), named after `task_names` in turn (e.g.
    the packaged 505-task metadata, so that the summary and keyword step sees real tasks). Judge
    replies have no place in these files: judged fields score 0 as "judge_missing" there.
    """
    by_metric: dict[str, list[SyntheticQuery]] = {}
    for query in queries:
        by_metric.setdefault(query.metric, []).append(query)
    if len(by_metric) > len(task_names):
        raise ValueError(f"{len(by_metric)} metrics but only {len(task_names)} task names")
    responses, samples = [], []
    for name, metric_queries in zip(task_names, by_metric.values(), strict=False):
        responses.append(
            {
                "task_name": name,
                "global_description": "",
                "global_images": [],
                "example_info": {"image_paths": [], "example_text": ""},
                "query_response": [
                    {
                        "response": query.response,
                        "correct_answer": query.correct_answer,
                        "global_idx": str(index),
                        "query_idx": index,
                        "images": [],
                        "query_text": "",
                    }
                    for index, query in enumerate(metric_queries)
                ],
            }
        )
        samples.append(
            {
                "task_name": name,
                "task_samples": [
                    {
                        "metric_info": repr(query.metric_info),
                        "eval_context": repr(query.eval_context),
                    }
                    for query in metric_queries
                ],
            }
        )
    return responses, samples


def queries_in_file_order(queries: list[SyntheticQuery]) -> list[int]:
    """Indices of `queries` in the order `official_files` writes them (grouped by metric)."""
    by_metric: dict[str, list[int]] = {}
    for index, query in enumerate(queries):
        by_metric.setdefault(query.metric, []).append(index)
    return [index for indices in by_metric.values() for index in indices]
