"""Write the shipped MEGA-Bench sample in the upstream `TIGER-Lab/MEGA-Bench` layout.

Every image is drawn here with Pillow, so the sample is ours to ship. Each task exists to exercise
one code path of the builder, the prompt and the scorer:

| task | config | exercises |
| --- | --- | --- |
| sample_single_answer | core | answer_string parser; one-letter gold (option-letter rule); one-shot demo with an image |
| sample_json_fields | core | json parser; two scored fields + a `##` auxiliary one; weighted mean |
| sample_min_multi_image | core | min aggregation; global media in the description; two query images; numeric field; eval_context |
| sample_verbatim_code | core | verbatim_answer_string parser |
| sample_ascii_shape | core | ascii_answer_string parser |
| sample_video_count | core | a video given as a folder of frames |
| sample_open_judge | open | LLM-judge field (`gpt_4o_as_judge`) with a judge template; dummy parser |
| sample_video_file | core | real `.mp4` files (OpenCV `mp4v`): a demo video and a query video, decoded and sampled |

Tasks whose meta says `1-image` also form the `*_single_image` configs.

Usage: python -m dataset_scripts.make_megabench_sample [OUT_DIR]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from dataset_scripts.megabench_sample_meta import task_meta
from dataset_scripts.megabench_sample_tasks import TASKS

OUT = Path(__file__).resolve().parents[1] / "vlmscope" / "samples" / "megabench"  # package data


def row(
    task: str,
    qid: int,
    *,
    description: str,
    global_media: list[str],
    example_text: str,
    example_media: list[str],
    query_text: str,
    query_media: list[str],
    answer: dict[str, Any],
    info: str,
    eval_context: dict[str, Any] | None = None,
    app: str,
    input_format: str,
    output_format: str,
) -> dict[str, str]:
    return {
        "id": str(qid),
        "task_name": task,
        "task_description": description,
        "global_media": repr(global_media),
        "example_text": example_text,
        "example_media": repr(example_media),
        "query_text": query_text,
        "query_media": repr(query_media),
        "answer": repr(answer),
        "metric_info": info,
        "eval_context": repr(eval_context or {}),
        "taxonomy_tree_path": f"{app};Sample",
        "application": app,
        "input_format": input_format,
        "output_format": output_format,
    }


def build_rows(root: Path) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for task, draw in TASKS.items():
        shared, questions = draw(root, f"data/Perception/Sample/{task}")
        for question in questions:
            rows.append(row(task, len(rows), **shared, **question))
    return rows


def write(out: Path = OUT) -> None:
    rows = build_rows(out)
    meta = task_meta()
    (out / "all_task_meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    is_open = {r["task_name"]: "gpt_4o_as_judge" in r["metric_info"] for r in rows}
    configs = {
        "core": [r for r in rows if not is_open[r["task_name"]]],
        "open": [r for r in rows if is_open[r["task_name"]]],
    }
    for name in ("core", "open"):
        configs[f"{name}_single_image"] = [
            r for r in configs[name] if meta[r["task_name"]]["num_input"] == "1-image"
        ]
    schema = pa.schema([(c, pa.string()) for c in rows[0]])
    for name, config_rows in configs.items():
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(
            pa.Table.from_pylist(config_rows, schema=schema), folder / "test-00000-of-00001.parquet"
        )


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
