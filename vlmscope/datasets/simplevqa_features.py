"""SimpleVQA rows as `datasets` examples: the two configs the builder and its export offer.

- `default`: the 11 upstream columns, `image` decoded into an `Image` feature instead of base64
  text, plus the three parsed `vqa_category` fields;
- `atomic`: one row per item with an atomic question, `question`/`answer` holding the atomic
  question and its fact, the original pair kept beside them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import datasets

from vlmscope.tracks.simplevqa.rows import SimpleVQARow

CONFIGS: tuple[str, ...] = ("default", "atomic")

_S = datasets.Value("string")
_CATEGORY_FEATURES = {"task_category": _S, "subject_category": _S, "entity_class": _S}
FEATURES: dict[str, datasets.Features] = {
    "default": datasets.Features(
        {
            "data_id": datasets.Value("int64"),
            "image": datasets.Image(),
            "image_description": _S,
            "language": _S,
            "question": _S,
            "answer": _S,
            "original_category": _S,
            "source": _S,
            "atomic_question": _S,
            "atomic_fact": _S,
            "vqa_category": _S,
            **_CATEGORY_FEATURES,
        }
    ),
    "atomic": datasets.Features(
        {
            "data_id": datasets.Value("int64"),
            "image": datasets.Image(),
            "language": _S,
            "question": _S,
            "answer": _S,
            "original_question": _S,
            "original_answer": _S,
            **_CATEGORY_FEATURES,
        }
    ),
}


def examples(rows: Sequence[SimpleVQARow], config: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(key, example) pairs for `config`; images as bytes plus a name, so exports embed them."""
    if config not in CONFIGS:
        raise ValueError(f"unknown SimpleVQA config {config!r}; known: {', '.join(CONFIGS)}")
    for row in rows:
        if config == "atomic" and not row.atomic_question.strip():
            continue
        yield row.data_id, _example(row, config)


def _example(row: SimpleVQARow, config: str) -> dict[str, Any]:
    common = {
        "data_id": row.data_id,
        "image": {"bytes": row.image, "path": row.image_name},
        "language": row.language,
        "task_category": row.category.task_category,
        "subject_category": row.category.subject_category,
        "entity_class": row.category.entity_class,
    }
    if config == "atomic":
        return {
            **common,
            "question": row.atomic_question,
            "answer": row.atomic_fact,
            "original_question": row.question,
            "original_answer": row.answer,
        }
    return {
        **common,
        "image_description": row.image_description,
        "question": row.question,
        "answer": row.answer,
        "original_category": row.original_category,
        "source": row.source,
        "atomic_question": row.atomic_question,
        "atomic_fact": row.atomic_fact,
        "vqa_category": row.vqa_category,
    }
