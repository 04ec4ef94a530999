"""A browsed MEGA-Bench prompt is rebuilt as the run built it: with its task's first query, whose
frame share the task description's videos take (the official context is built once per task)."""

from __future__ import annotations

from typing import Any

import pytest

from vlmscope.messages import ImagePart
from vlmscope.tracks.megabench import prompt, spec
from vlmscope.tracks.shipped_samples import sample_dir

SAMPLE = sample_dir("megabench")


def test_a_later_query_is_rebuilt_with_its_task_s_first_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple[str, str]] = []
    real = prompt.build_prompt

    def build_prompt(row: Any, *args: Any, first_row: Any = None, **kwargs: Any) -> Any:
        seen.append((row.id, first_row.id))
        return real(row, *args, first_row=first_row, **kwargs)

    monkeypatch.setattr(prompt, "build_prompt", build_prompt)
    task = "sample_min_multi_image"  # rows 4 and 5 of the sample
    first = spec.rebuild_prompt({"task_name": task, "row_id": "4"}, SAMPLE)
    later = spec.rebuild_prompt({"task_name": task, "row_id": "5"}, SAMPLE)
    assert first is not None and later is not None
    assert seen == [("4", "4"), ("5", "4")]
    images = [p for p in later.turns[0].parts if isinstance(p, ImagePart)]
    assert len(images) == 1 + 2 + 2  # the legend, the demonstration's two, the query's two
    missing = spec.rebuild_prompt({"task_name": task, "row_id": "0"}, SAMPLE)  # another task's
    assert missing is None
