"""Write the shipped SimpleVQA sample: a few answerable rows in the upstream `test.parquet` layout.

The images are drawn here (shapes, rendered words and digits) so every question has a checkable
answer and nothing is copied from the real benchmark. The rows cover what the track's code paths
need: Chinese and English rows (data_id < 1012 is Chinese upstream), PNG and JPEG images, numeric
answers, a `vqa_category` of `{}`, both JSON and Python-literal category text, several task and
domain categories, and atomic questions (one equal to its original question, as upstream has).

Deterministic: the same Pillow and pyarrow versions write the same bytes.
Usage: python -m dataset_scripts.make_simplevqa_sample [OUT_DIR]
"""

from __future__ import annotations

import base64
import io
import json
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw, ImageFont

OUT_DIR = Path(__file__).resolve().parents[1] / "vlmscope" / "samples" / "simplevqa"  # package data
SCALE = 3
SOURCE = "vlmscope synthetic sample"
_STRING_COLUMNS = (
    "image", "image_description", "language", "question", "answer", "original_category",
    "source", "atomic_question", "atomic_fact", "vqa_category",
)  # fmt: skip
SCHEMA = pa.schema([("data_id", pa.int64()), *[(c, pa.string()) for c in _STRING_COLUMNS]])


def canvas(width: int = 48, height: int = 32) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), (255, 255, 255))
    return image, ImageDraw.Draw(image)


def text_image(text: str, colour: tuple[int, int, int] = (0, 0, 0)) -> Image.Image:
    """Text in Pillow's built-in bitmap font (no font files: identical pixels everywhere)."""
    font = ImageFont.load_default_imagefont()
    left, top, right, bottom = font.getbbox(text)
    image, draw = canvas(right - left + 8, bottom - top + 8)
    draw.text((4 - left, 4 - top), text, font=font, fill=colour)
    return image


def circle() -> Image.Image:
    image, draw = canvas()
    draw.ellipse((14, 6, 34, 26), fill=(220, 30, 30))
    return image


def squares(count: int) -> Image.Image:
    image, draw = canvas(12 * count + 4, 16)
    for k in range(count):
        draw.rectangle((4 + 12 * k, 4, 12 + 12 * k, 12), fill=(40, 60, 220))
    return image


def triangles(count: int) -> Image.Image:
    image, draw = canvas(14 * count + 4, 18)
    for k in range(count):
        x = 4 + 14 * k
        draw.polygon([(x, 14), (x + 10, 14), (x + 5, 4)], fill=(30, 160, 60))
    return image


def encode(image: Image.Image, image_format: str) -> str:
    """Scale up (nearest, so edges stay crisp) and encode as base64 text, as upstream stores it."""
    big = image.resize((image.width * SCALE, image.height * SCALE), Image.Resampling.NEAREST)
    buffer = io.BytesIO()
    big.save(buffer, format=image_format, **({"quality": 90} if image_format == "JPEG" else {}))
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def category(task: str, domain: str, entity: str, *, python_repr: bool = False) -> str:
    record = {"task_category": task, "subject_category": domain, "entity_class": entity}
    return repr(record) if python_repr else json.dumps(record, ensure_ascii=False)


def sample_rows() -> list[dict[str, Any]]:
    def row(
        data_id: int, image: str, language: str, question: str, answer: str, **extra: str
    ) -> dict[str, Any]:
        return {
            "data_id": data_id, "image": image, "image_description": extra.get("description", ""),
            "language": language, "question": question, "answer": answer,
            "original_category": extra.get("original_category", ""), "source": SOURCE,
            "atomic_question": extra.get("atomic_question", ""), "atomic_fact": extra.get("atomic_fact", ""),
            "vqa_category": extra.get("vqa_category", "{}"),
        }  # fmt: skip

    return [
        row(0, encode(circle(), "PNG"), "CN", "图中红色的形状是什么？", "圆形",
            description="白色背景上的一个红色圆形", original_category="生活_形状",
            atomic_question="图中的形状是什么颜色？", atomic_fact="红色",
            vqa_category=category("Object Attributes Recognition", "Life", "Shapes, Colors")),
        row(1, encode(text_image("3518"), "PNG"), "CN", "图中显示的数字是多少？", "3518",
            original_category="教育_数字", atomic_question="图中显示的数字是多少？", atomic_fact="3518",
            vqa_category=category("Text Processing", "Literature, Education and Sport", "Numbers",
                                  python_repr=True)),
        row(2, encode(squares(3), "PNG"), "CN", "图中有几个蓝色方块？", "3",
            original_category="生活_计数", atomic_question="图中的方块是什么颜色？", atomic_fact="蓝色"),
        row(1012, encode(text_image("PARIS", (20, 20, 120)), "JPEG"), "EN",
            "Which city's name is written in the image?", "Paris",
            original_category="geography_city", atomic_question="What word is written in the image?",
            atomic_fact="PARIS",
            vqa_category=category("Text Processing", "Western History and Culture", "City, Text")),
        row(1013, encode(text_image("17 + 25"), "JPEG"), "EN",
            "What is the sum of the two numbers shown in the image?", "42",
            original_category="math_arithmetic", atomic_question="Which two numbers are shown in the image?",
            atomic_fact="17 and 25",
            vqa_category=category("Logic & Science", "Natural Science", "Arithmetic, Addition")),
        row(1014, encode(triangles(4), "JPEG"), "EN", "How many triangles are in the picture?", "4",
            original_category="counting_shapes", atomic_question="What shape is shown in the picture?",
            atomic_fact="triangle",
            vqa_category=category("Quantity & Position Relationship", "Life", "Shapes, Counting")),
    ]  # fmt: skip


def write_sample(out_dir: Path = OUT_DIR) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "test.parquet"
    pq.write_table(pa.Table.from_pylist(sample_rows(), schema=SCHEMA), path)
    return path


if __name__ == "__main__":
    print(write_sample(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT_DIR))
