"""An answer cached before traces were kept apart (`<think>...</think>answer` as its text, no
trace) is split when the runner reads it back, as a fresh reply is; the cache keeps its row."""

from __future__ import annotations

from pathlib import Path

from vlmscope.cache import ResponseCache
from vlmscope.config import OpenAIModelConfig, OracleModelConfig
from vlmscope.messages import Response
from vlmscope.runner.cached_reasoning import resplit

OLD = "<think>maybe 3? no</think>The answer is 4."


def _model(**fields: object) -> OpenAIModelConfig:
    return OpenAIModelConfig.model_validate(
        {"backend": "openai", "name": "m", "base_url": "http://x", "model": "m", **fields}
    )


def test_an_old_form_entry_is_split_on_read_and_left_in_the_file(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    cache.put_many({"k": Response(text=OLD)}, backend="m")
    read = resplit(cache.get_many(["k"])["k"], _model())
    assert read is not None
    assert (read.text, read.reasoning) == ("The answer is 4.", "maybe 3? no")
    assert cache.get("k") == Response(text=OLD)  # the stored row is as it was


def test_split_entries_other_tags_and_no_tags_are_unchanged(tmp_path: Path) -> None:
    split = Response(text="The answer is 4.", reasoning="maybe 3? no")
    assert resplit(split, _model()) is split
    old = Response(text=OLD)
    assert resplit(old, _model(reasoning_tags="none")) is old
    assert resplit(old, OracleModelConfig(backend="oracle")) is old
    custom = resplit(Response(text="[r]x[/r]y"), _model(reasoning_tags=["[r]", "[/r]"]))
    assert custom is not None and (custom.text, custom.reasoning) == ("y", "x")
