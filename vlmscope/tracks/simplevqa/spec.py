"""SimpleVQA's registration: title, headline rates, Space page, prompt rebuilder."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlmscope.tracks.spec import Headline, TrackSpec

if TYPE_CHECKING:
    from vlmscope.messages import Request
    from vlmscope.tracks.base import Track


def _load() -> type[Track]:
    from vlmscope.tracks.simplevqa.track import SimpleVQATrack

    return SimpleVQATrack


def rebuild_prompt(meta: Mapping[str, Any], data_dir: Path) -> Request | None:
    """The request of a details row (data id and the question asked), rebuilt from the data."""
    from vlmscope.tracks.simplevqa.question_prompt import question_request

    row = _rows_by_id(data_dir).get(str(meta.get("data_id")))
    question = meta.get("question")
    if row is None or not isinstance(question, str):
        return None
    return question_request(row.image, row.image_name, row.language, question)


@lru_cache(maxsize=2)
def _rows_by_id(data_dir: Path) -> dict[str, Any]:
    from vlmscope.tracks.simplevqa.rows import read_rows

    return {str(row.data_id): row for row in read_rows(data_dir)}


SPEC = TrackSpec(
    name="simplevqa",
    title="SimpleVQA",
    load=_load,
    page="factuality",
    comparison="factuality",
    headlines=(
        Headline("F", ("F",), interval=("overall", "ci95", "F")),
        Headline("CGA", ("CGA",), interval=("overall", "ci95", "CGA")),
    ),
    metrics="CO, NA and IN: the shares of answers graded correct, not attempted and incorrect; "
    "CGA: correct given attempted; F: the harmonic mean of CO and CGA. All 0-1, with 95% "
    "bootstrap intervals, overall and by language, task category and domain.",
    data_env="VLMSCOPE_SIMPLEVQA_DATA",
    rebuild_prompt=rebuild_prompt,
)
