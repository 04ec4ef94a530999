"""The tasks of the shipped MEGA-Bench sample, one function each: the row fields all of a
task's questions share and each question's own, its images drawn as it goes. What each task
exercises is the table in `make_megabench_sample`'s docstring.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from dataset_scripts.megabench_sample_drawing import card, save, write_clip

DEMO_HEADER = "Demonstration example(s) of the task:\n\nExample 1:\n"
CLOSING = (
    "Answer the new question below. The last part of your response should be of the following "
    'format: "Answer: <YOUR ANSWER>" (without angle brackets) where YOUR ANSWER is your answer, '
    "following the same task logic and output format of the demonstration example(s). For your "
    "answer, do not output additional contents that violate the specified format. Think step by "
    "step before answering."
)
JUDGE_TEMPLATE = (
    "You are judging a description of an image.\n"
    "Question: {question}\n"
    "Reference description: {reference}\n"
    "What a good answer must mention: {must_mention}\n"
    "Candidate description: {response}\n\n"
    "Rate the candidate from 0 to 10 for correctness and completeness against the reference. "
    "Reply in exactly this format:\n"
    "**Score explanation**: <one or two sentences>\n"
    "**Score**: <integer from 0 to 10>"
)


def metric_info(
    fields: dict[str, str],
    parser: str,
    weights: dict[str, float] | None = None,
    function: str = "mean",
    **extra: Any,
) -> str:
    info: dict[str, Any] = {
        "field_score_function": fields,
        "aggregation": {"function": function, "field_weights": weights or dict.fromkeys(fields, 1)},
        "response_parse_function": parser,
    }
    info.update(extra)
    return repr(info)


def demo(question: str, answer: str, *, with_image: bool = True, reasoning: bool = True) -> str:
    image = "<image>\n" if with_image else ""
    thought = "[PLEASE OUTPUT YOUR REASONING]\n" if reasoning else ""
    return f"{DEMO_HEADER}{image}Example Question: {question}\nExample Response:\n{thought}Answer: {answer}\n\n{CLOSING}"


Task = tuple[dict[str, Any], list[dict[str, Any]]]
"""A task's row fields that all its questions share, then each question's own fields (the
keywords of `make_megabench_sample.row`); drawing a task saves its images under the folder it is
given."""


def single_answer(root: Path, folder: str) -> Task:
    demo_img = save(root, f"{folder}/demo.png", card("A: red", (200, 30, 30)))
    shared = {
        "description": "Which option letter is drawn in the picture? Options: A, B, C.",
        "global_media": [],
        "example_text": demo("Which letter is drawn?", "A"),
        "example_media": [demo_img],
        "query_text": "Which letter is drawn? <image>",
        "info": metric_info({"Answer": "exact_str_match"}, "answer_string"),
        "app": "Perception",
        "input_format": "Photographs",
        "output_format": "multiple_choice",
    }
    questions = [
        {
            "query_media": [save(root, f"{folder}/q{i}.png", card(letter, colour))],
            "answer": {"Answer": letter},
        }
        for i, (letter, colour) in enumerate([("B", (30, 60, 200)), ("C", (30, 160, 60))])
    ]
    return shared, questions


def json_fields(root: Path, folder: str) -> Task:
    demo_img = save(root, f"{folder}/demo.png", card("cat 3", (90, 90, 90)))
    shared = {
        "description": "Read the card: give the animal and the number as JSON.",
        "global_media": [],
        "example_text": demo("What is on the card?", "{'animal': 'cat', 'count': '3'}"),
        "example_media": [demo_img],
        "query_text": "What is on the card? <image>",
        "info": metric_info(
            {"animal": "exact_str_match_case_insensitive", "count": "simple_str_match"},
            "json",
            weights={"animal": 1, "count": 3},
        ),
        "app": "Information_Extraction",
        "input_format": "Text-Based Images and Documents",
        "output_format": "structured_output",
    }
    questions = [
        {
            "query_media": [
                save(root, f"{folder}/q{i}.png", card(f"{animal} {count}", (120, 40, 160)))
            ],
            "answer": {"animal": animal, "count": count, "##note": "auxiliary"},
        }
        for i, (animal, count) in enumerate([("dog", "2"), ("bird", "5")])
    ]
    return shared, questions


def min_multi_image(root: Path, folder: str) -> Task:
    legend = save(root, f"{folder}/legend.png", card("unit = 1", (0, 0, 0)))
    demo_a = save(root, f"{folder}/demo_a.png", card("4", (0, 0, 0)))
    demo_b = save(root, f"{folder}/demo_b.png", card("6", (0, 0, 0)))
    shared = {
        "description": "The legend <image> gives the unit. Add the numbers on the two cards.",
        "global_media": [legend],
        "example_text": f"{DEMO_HEADER}<image> <image>\nExample Question: What is the sum?\n"
        f"Example Response:\n[PLEASE OUTPUT YOUR REASONING]\nAnswer: {{'sum': '10', 'product': '24'}}\n\n{CLOSING}",
        "example_media": [demo_a, demo_b],
        "query_text": "What is the sum and the product? <image> <image>",
        "info": metric_info(
            {"sum": "number_rel_diff_ratio", "product": "general_single_numerical_match"},
            "json",
            function="min",
        ),
        "app": "Mathematics",
        "input_format": "Diagrams and Data Visualizations",
        "output_format": "numerical_data",
    }
    questions = [
        {
            "query_media": [
                save(root, f"{folder}/q{i}_a.png", card(str(a), (0, 0, 0))),
                save(root, f"{folder}/q{i}_b.png", card(str(b), (0, 0, 0))),
            ],
            "answer": {"sum": str(a + b), "product": str(a * b)},
            "eval_context": {"unit": "1"} if i == 0 else {},
        }
        for i, (a, b) in enumerate([(3, 4), (10, 2.5)])
    ]
    return shared, questions


def verbatim_code(root: Path, folder: str) -> Task:
    shared = {
        "description": "Transcribe the line of code in the image exactly.",
        "global_media": [],
        "example_text": demo("Transcribe the code.", "y = 2", with_image=False),
        "example_media": [],
        "query_text": "Transcribe the code. <image>",
        "info": metric_info({"code": "exact_str_match"}, "verbatim_answer_string"),
        "app": "Coding",
        "input_format": "User Interface Screenshots",
        "output_format": "exact_text",
    }
    questions = [
        {
            "query_media": [save(root, f"{folder}/q{i}.png", card(word, (20, 20, 20), (140, 48)))],
            "answer": {"code": word},
        }
        for i, word in enumerate(["print('hi')", "x = 1"])
    ]
    return shared, questions


def ascii_shape(root: Path, folder: str) -> Task:
    shared = {
        "description": "Draw the shape named on the card as ASCII art.",
        "global_media": [],
        "example_text": demo("Draw it.", "/\\", with_image=False),
        "example_media": [],
        "query_text": "Draw the shape. <image>",
        "info": metric_info({"art": "exact_str_match"}, "ascii_answer_string"),
        "app": "Coding",
        "input_format": "Artistic and Creative Content",
        "output_format": "exact_text",
    }
    questions = [
        {
            "query_media": [save(root, f"{folder}/q{i}.png", card(shape, (60, 60, 60)))],
            "answer": {"art": art},
        }
        for i, (shape, art) in enumerate([("box", "+--+\n|  |\n+--+"), ("line", "----")])
    ]
    return shared, questions


def video_count(root: Path, folder: str) -> Task:
    shared = {
        "description": "Count how many frames of the video show a star.",
        "global_media": [],
        "example_text": demo("How many stars?", "4", with_image=False),
        "example_media": [],
        "query_text": "How many stars? <video>",
        "info": metric_info({"count": "exact_str_match"}, "answer_string"),
        "app": "Perception",
        "input_format": "Videos",
        "output_format": "numerical_data",
    }
    questions = []
    for i, n_flashes in enumerate([2, 3]):
        frames = f"{folder}/clip{i}_frames"
        for f in range(6):
            lit = f % 3 == 0 or (n_flashes == 3 and f == 5)
            save(
                root,
                f"{frames}/frame_{f:03d}.png",
                card("*" if lit else ".", (230, 180, 0) if lit else (90, 90, 90)),
            )
        questions.append({"query_media": ["./" + frames], "answer": {"count": str(n_flashes)}})
    return shared, questions


def open_judge(root: Path, folder: str) -> Task:
    judge_config = {
        "judge_model_type": "with image",
        "eval_criteria_prompt": JUDGE_TEMPLATE,
        "reference_type": "reference_answer",
        "template_mapping": {
            "question": "example_question",
            "reference": "answers.Description",
            "response": "model_output",
            "must_mention": "eval_context.must_mention",
        },
    }
    shared = {
        "description": "Describe the image in one sentence.",
        "global_media": [],
        "example_text": "",
        "example_media": [],
        "query_text": "Describe this image. <image>",
        "info": metric_info(
            {"Description": "gpt_4o_as_judge"}, "dummy", gpt4o_eval_configs=judge_config
        ),
        "app": "Knowledge",
        "input_format": "Photographs",
        "output_format": "open_ended_output",
    }
    questions = [
        {
            "query_media": [save(root, f"{folder}/q{i}.png", card(thing, colour, (140, 64)))],
            "answer": {"Description": f"The image shows {thing}."},
            "eval_context": {"must_mention": thing},
        }
        for i, (thing, colour) in enumerate(
            [("a red circle", (210, 30, 30)), ("a blue square", (30, 60, 210))]
        )
    ]
    return shared, questions


def video_file(root: Path, folder: str) -> Task:
    """Two queries, each a short clip of a dot crossing the frame, with a demo clip: real
    `.mp4` files, so a run decodes and samples video the way the released data needs."""
    demo_clip = write_clip(root, f"{folder}/demo.mp4", "right", fps=8, n_frames=16)
    shared = {
        "description": "A dot crosses the frame in the video. Which way does it move? "
        "Options: left, right, up, down.",
        "global_media": [],
        "example_text": f"{DEMO_HEADER}<video>\nExample Question: Which way does the dot "
        f"move?\nExample Response:\n[PLEASE OUTPUT YOUR REASONING]\nAnswer: right\n\n"
        f"{CLOSING}",
        "example_media": [demo_clip],
        "query_text": "Which way does the dot move? <video>",
        "info": metric_info({"direction": "exact_str_match"}, "answer_string"),
        "app": "Perception",
        "input_format": "Videos",
        "output_format": "multiple_choice",
    }
    questions = [
        {
            "query_media": [
                write_clip(root, f"{folder}/q{i}.mp4", direction, fps=fps, n_frames=n_frames)
            ],
            "answer": {"direction": direction},
        }
        for i, (direction, fps, n_frames) in enumerate([("left", 8, 24), ("down", 24, 48)])
    ]
    return shared, questions


TASKS: dict[str, Callable[[Path, str], Task]] = {
    "sample_single_answer": single_answer,
    "sample_json_fields": json_fields,
    "sample_min_multi_image": min_multi_image,
    "sample_verbatim_code": verbatim_code,
    "sample_ascii_shape": ascii_shape,
    "sample_video_count": video_count,
    "sample_open_judge": open_judge,
    "sample_video_file": video_file,
}
"""The tasks in row order (the table of `make_megabench_sample`'s docstring); query ids count across tasks."""
