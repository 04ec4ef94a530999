"""Through `vlmscope run`: a cache written in the old form (a thinking model's whole reply as
the answer's text, no trace) is scored on the answer alone when the run is made again.

The first run, against a model that thinks inline, caches split answers. Each cached answer is
then written back the way an older version stored it (`<think>` trace `</think>` answer as its
text, no `reasoning`), the server is stopped, and the same run is made again from the cache: its
details must hold the same answers and traces as the first run's, and the cache file keeps the
old rows (nothing is rewritten, no key changes).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.reasoning.runs import details, gold_answers, vlmscope_run
from tests.reasoning.stubs import InlineThinking, Thinker
from tests.servers import OpenAIStub


def _config(stub: OpenAIStub, out: Path) -> dict[str, Any]:
    model = {"backend": "openai", "name": "thinker", "base_url": stub.base_url,
             "model": "Qwen/Qwen3-VL-8B-Thinking", "max_retries": 0}  # fmt: skip
    track = {"name": "simplevqa", "options": {"grader": "offline_match", "bootstrap_rounds": 20}}
    return {"output_dir": str(out), "models": [model], "tracks": [track]}


def _to_old_form(cache: Path) -> dict[str, str]:
    """Every answered row rewritten as an older version stored it; the rows as written."""
    with sqlite3.connect(cache) as conn:
        rows = conn.execute("SELECT key, response FROM responses WHERE ok = 1").fetchall()
        written = {}
        for key, text in rows:
            record = json.loads(text)
            trace = record.pop("reasoning", "")
            assert trace, "the first run kept a trace apart"
            record["text"] = f"<think>\n{trace}\n</think>\n\n{record['text']}"
            written[key] = json.dumps(record)
            conn.execute("UPDATE responses SET response = ? WHERE key = ?", (written[key], key))
    return written


def _read(cache: Path) -> dict[str, str]:
    with sqlite3.connect(cache) as conn:
        return dict(conn.execute("SELECT key, response FROM responses WHERE ok = 1").fetchall())


def _answers(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["sample_id"], r["response"], r["reasoning"]) for r in rows]


def test_old_form_cache_is_split_on_read(tmp_path: Path) -> None:
    out = tmp_path / "results"
    replier = InlineThinking(Thinker())
    with OpenAIStub(replier) as stub:
        raw = _config(stub, out)
        replier.thinker = gold_answers(raw, "thinker")
        status, _ = vlmscope_run(tmp_path, raw)
    assert status == 0
    first = _answers(details(out, "thinker", "simplevqa"))
    assert all(reasoning and "<think>" not in response for _, response, reasoning in first)
    old = _to_old_form(out / "cache.sqlite")
    status, _ = vlmscope_run(tmp_path, raw)  # the server is down: every answer is cached
    assert status == 0
    assert _answers(details(out, "thinker", "simplevqa")) == first
    assert _read(out / "cache.sqlite") == old
