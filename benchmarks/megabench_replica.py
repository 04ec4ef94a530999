"""Write a MEGA-Bench-shaped data folder at full size, with small synthetic media.

The shape is the released one: the 505 tasks of the package's `all_task_meta.json`, each with
its released number of queries (a `task_results.json` of the official tools gives them: 7,689
rows, 6,531 Core and 1,158 Open; without one the same total is spread evenly), in the config it
belongs to (`core`/`open` by its eval type, `*_single_image` for the `1-image` tasks), and the
released media mix: the `num_input` class of each task sets how many images a query shows
(`max_num_query_image`, or the class's count as task-level images when the query shows none),
and the 43 `video` tasks get a demonstration video and `max_num_query_video` query videos. The
media are tiny (solid colour PNGs, a few dozen frames of `mp4v` video), so the folder measures
the code's cost per row, not the disk's.

    python benchmarks/megabench_replica.py OUT_DIR [--scale 0.25] [--image-px 48]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image
from tqdm import tqdm

if __name__ == "__main__":  # run as a script: this checkout's vlmscope
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vlmscope.tracks.megabench.keywords import TASK_META_NAME, load_task_meta
from vlmscope.tracks.megabench.rows import STRING_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
RELEASED_COUNTS = ROOT / "tests/golden/megabench_aggregation/Gemini-2.0-1206/task_results.json"
RELEASED_ROWS, RELEASED_OPEN_TASKS = 7689, 65
SHARD_ROWS = 2000
CLASS_IMAGES = {
    "1-image": (1, 1),
    "2-3 images": (2, 3),
    "4-5 images": (4, 5),
    "6-8 images": (6, 8),
    "9-image or more": (9, 12),
    "video": (0, 0),
}
JUDGE_CONFIG = {
    "judge_model_type": "with image",
    "eval_criteria_prompt": "Question: {question}\nReference: {reference}\nAnswer: {response}\n"
    "Rate the answer from 0 to 10.\n**Score**: <integer>",
    "reference_type": "reference_answer",
    "template_mapping": {
        "question": "example_question",
        "reference": "answers.Description",
        "response": "model_output",
    },
}
CLOSING = 'Answer the new question below. The last part of your response should be "Answer: X".'


def task_plan(
    scale: float, counts_file: Path | None
) -> list[tuple[str, dict[str, Any], int, bool]]:
    """(task, meta, number of queries, is_open) for every task, in the metadata's order."""
    meta = load_task_meta()  # the package's metadata of all 505 tasks
    if counts_file is not None and counts_file.is_file():
        released = {t["name"]: t for t in json.loads(counts_file.read_text(encoding="utf-8"))}
        counts = {name: released[name]["num_query"] for name in meta}
        is_open = {name: released[name]["eval_type"] == "llm" for name in meta}
    else:
        each = RELEASED_ROWS // len(meta)
        counts = {name: each + (i < RELEASED_ROWS % len(meta)) for i, name in enumerate(meta)}
        is_open = {name: i % (len(meta) // RELEASED_OPEN_TASKS) == 0 for i, name in enumerate(meta)}
    return [
        (name, task, max(1, math.ceil(counts[name] * scale)), is_open[name])
        for name, task in meta.items()
    ]


class MediaWriter:
    """Small media files under `root/data/`, each written once, named by the row that uses it."""

    def __init__(self, root: Path, image_px: int, seed: int, *, noise: bool = False) -> None:
        self.root = root
        self.image_px = image_px
        self.random = random.Random(seed)
        self.noise = np.random.default_rng(seed) if noise else None
        self.bytes_written = 0

    def image(self, rel: str) -> str:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        size = (self.image_px, self.image_px * 3 // 4)
        colour = tuple(self.random.randrange(256) for _ in range(3))  # drawn either way: same shape
        if self.noise is not None:  # what PNG cannot shrink: the media weigh their full size
            pixels = self.noise.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
            Image.fromarray(pixels).save(path)
        else:
            Image.new("RGB", size, colour).save(path)
        self.bytes_written += path.stat().st_size
        return "./" + rel

    def video(self, rel: str) -> str:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        fps = self.random.choice([8, 24, 30])
        n_frames = self.random.randrange(16, 65)
        size = (48, 32)
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, size)
        base = np.full((size[1], size[0], 3), self.random.randrange(256), np.uint8)
        for f in range(n_frames):
            frame = base.copy()
            frame[:, (f * 3) % size[0]] = 255
            writer.write(frame)
        writer.release()
        self.bytes_written += path.stat().st_size
        return "./" + rel


def task_rows(
    name: str,
    meta: dict[str, Any],
    n_queries: int,
    is_open: bool,
    media: MediaWriter,
    first_id: int,
) -> Iterator[dict[str, str]]:
    folder = f"data/{meta['app']}/{name}"
    video = meta["num_input"] == "video"
    low, high = CLASS_IMAGES[meta["num_input"]]
    per_query = meta["max_num_query_image"] if not video else 0
    task_images = 0 if per_query or video else media.random.randint(low, high)
    global_media = [media.image(f"{folder}/global_{i}.png") for i in range(task_images)]
    example_media = [
        media.video(f"{folder}/demo.mp4") if video else media.image(f"{folder}/demo.png")
    ]
    tag = "<video>" if video else "<image>"
    description = f"Task {name}. " + " ".join("<image>" for _ in global_media)
    example = f"Demonstration example(s) of the task:\n\nExample 1:\n{tag}\nAnswer: A\n\n{CLOSING}"
    if is_open:
        info = {
            "field_score_function": {"Description": "gpt_4o_as_judge"},
            "aggregation": {"function": "mean", "field_weights": {"Description": 1}},
            "response_parse_function": "dummy",
            "gpt4o_eval_configs": JUDGE_CONFIG,
        }
    else:
        info = {
            "field_score_function": {"Answer": "exact_str_match"},
            "aggregation": {"function": "mean", "field_weights": {"Answer": 1}},
            "response_parse_function": "answer_string",
        }
    for q in range(n_queries):
        if video:
            query_media = [
                media.video(f"{folder}/q{q}_{v}.mp4")
                for v in range(max(1, meta["max_num_query_video"]))
            ]
        else:
            query_media = [media.image(f"{folder}/q{q}_{i}.png") for i in range(per_query)]
        letter = "ABCD"[q % 4]
        answer = {"Description": f"A picture of {letter}."} if is_open else {"Answer": letter}
        yield {
            "id": str(first_id + q),
            "task_name": name,
            "task_description": description,
            "global_media": repr(global_media),
            "example_text": example,
            "example_media": repr(example_media),
            "query_text": f"Query {q}: which one? " + " ".join(tag for _ in query_media),
            "query_media": repr(query_media),
            "answer": repr(answer),
            "metric_info": repr(info),
            "eval_context": "{}",
            "taxonomy_tree_path": meta["taxonomy_tree_path"],
            "application": meta["app"],
            "input_format": meta["input_format"],
            "output_format": meta["output_format"],
        }


def write_replica(
    out: Path,
    *,
    scale: float = 1.0,
    image_px: int = 48,
    counts_file: Path | None = RELEASED_COUNTS,
    seed: int = 0,
    noise: bool = False,
) -> dict[str, Any]:
    """Write the folder; returns what it holds (rows per config, tasks, video tasks, media)."""
    media = MediaWriter(out, image_px, seed, noise=noise)
    configs: dict[str, list[dict[str, str]]] = {c: [] for c in ("core", "open")}
    single: dict[str, list[dict[str, str]]] = {"core_single_image": [], "open_single_image": []}
    plan = task_plan(scale, counts_file)
    next_id = 0
    for name, meta, n_queries, is_open in tqdm(plan, desc="replica tasks", unit="task"):
        rows = list(task_rows(name, meta, n_queries, is_open, media, next_id))
        next_id += n_queries
        config = "open" if is_open else "core"
        configs[config] += rows
        if meta["num_input"] == "1-image":
            single[f"{config}_single_image"] += rows
    schema = pa.schema([(c, pa.string()) for c in STRING_COLUMNS])
    for config, rows in {**configs, **single}.items():
        folder = out / config
        folder.mkdir(parents=True, exist_ok=True)
        shards = max(1, math.ceil(len(rows) / SHARD_ROWS))
        for shard in range(shards):
            part = rows[shard * SHARD_ROWS : (shard + 1) * SHARD_ROWS]
            table = pa.Table.from_pylist(part, schema=schema)
            pq.write_table(table, folder / f"test-{shard:05d}-of-{shards:05d}.parquet")
    meta = load_task_meta()
    (out / TASK_META_NAME).write_text(json.dumps(meta), encoding="utf-8")
    return {
        "rows": {c: len(r) for c, r in {**configs, **single}.items()},
        "tasks": len(plan),
        "video_tasks": sum(1 for _, m, _, _ in plan if m["num_input"] == "video"),
        "media_bytes": media.bytes_written,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--scale", type=float, default=1.0, help="share of each task's queries")
    parser.add_argument("--image-px", type=int, default=48, help="image width in pixels")
    from help_defaults import show_defaults  # beside this script

    args = show_defaults(parser).parse_args()
    print(json.dumps(write_replica(args.out, scale=args.scale, image_px=args.image_px), indent=1))


if __name__ == "__main__":
    main()
