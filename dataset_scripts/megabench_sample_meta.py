"""The metadata of the MEGA-Bench sample's tasks (`all_task_meta.json`), in the upstream shape.

Each task gets the keyword dimensions the breakdown groups by (skills, input and output format,
number of inputs, application), one value of each taken from the paper's taxonomy, so every
dimension of the breakdown has more than one group. `make_megabench_sample.py` writes it.
"""

from __future__ import annotations

from typing import Any

TASK_META = {
    "sample_single_answer": (
        ["Object Recognition and Classification"],
        "Photographs",
        "multiple_choice",
        "1-image",
        "Perception",
    ),
    "sample_json_fields": (
        ["Text Recognition (OCR)", "Object Recognition and Classification"],
        "Text-Based Images and Documents",
        "structured_output",
        "1-image",
        "Information_Extraction",
    ),
    "sample_min_multi_image": (
        ["Mathematical and Logical Reasoning"],
        "Diagrams and Data Visualizations",
        "numerical_data",
        "2-3 images",
        "Mathematics",
    ),
    "sample_verbatim_code": (
        ["Text Recognition (OCR)"],
        "User Interface Screenshots",
        "exact_text",
        "1-image",
        "Coding",
    ),
    "sample_ascii_shape": (
        ["Language Understanding and Generation"],
        "Artistic and Creative Content",
        "exact_text",
        "1-image",
        "Coding",
    ),
    "sample_video_count": (
        ["Temporal and Spatial Understanding"],
        "Videos",
        "numerical_data",
        "video",
        "Perception",
    ),
    "sample_open_judge": (
        ["Language Understanding and Generation", "Object Recognition and Classification"],
        "Photographs",
        "open_ended_output",
        "1-image",
        "Knowledge",
    ),
    "sample_video_file": (
        ["Temporal and Spatial Understanding", "Object Recognition and Classification"],
        "Videos",
        "multiple_choice",
        "video",
        "Perception",
    ),
}


def task_meta() -> dict[str, dict[str, Any]]:
    meta = {}
    for name, (skills, input_format, output_format, num_input, app) in TASK_META.items():
        meta[name] = {
            "skills": skills,
            "input_format": input_format,
            "output_format": output_format,
            "num_input": num_input,
            "app": app,
            "taxonomy_tree_path": f"{app};Sample",
            "max_num_query_image": 2 if num_input == "2-3 images" else 1,
            "max_num_query_video": 1 if num_input == "video" else 0,
        }
    return meta
