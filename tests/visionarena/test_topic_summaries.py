"""One-line cluster summaries from a judge served over HTTP (a local stub): the prompt is
BERTopic's, a label is read from its "topic:" line, a reply without one is counted and never
guessed, and a rerun of `vlmscope visionarena topics --summarize` asks nothing again."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.servers import Call, OpenAIStub
from vlmscope.cache import ResponseCache
from vlmscope.cli import main as vlmscope_main
from vlmscope.config import OpenAIModelConfig
from vlmscope.judges.client import Judge
from vlmscope.models.registry import build_backend
from vlmscope.models.tiny_clip import ensure_tiny_clip
from vlmscope.prompts import read_prompt_file
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR
from vlmscope.tracks.visionarena.topic_summaries import (
    PROMPT,
    parse_label,
    summarise,
    summary_prompt,
)
from vlmscope.tracks.visionarena.topic_table import ClusterRow

ROW = ClusterRow(3, 12, 0.1, ("solve", "equation"), ("a", "b"), ("Solve x+1=2", "Integrate x"))


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ("topic: Math homework help", "Math homework help"),
        ('Here you go.\n**Topic:** "Painting identification".', "Painting identification"),
        ("TOPIC : code debugging\nthanks", "code debugging"),
        ("Math homework", None),
        ("topic:   ", None),
    ],
)
def test_the_label_is_the_topic_line(reply: str, label: str | None) -> None:
    assert parse_label(reply) == label


def test_the_prompt_lists_the_examples_and_keywords_as_bertopic_fills_them() -> None:
    text = summary_prompt(ROW, read_prompt_file(PROMPT))
    assert text.startswith(
        "I have a topic that contains the following documents:\n- Solve x+1=2\n- Integrate x\n\n"
        "The topic is described by the following keywords: solve, equation\n"
    )
    assert text.rstrip().endswith("topic: <topic label>")


def test_a_reply_without_a_label_is_counted_not_guessed(tmp_path: Path) -> None:
    other = ClusterRow(4, 5, 0.05, ("dog",), ("c",), ("What breed is this dog",))
    outliers = ClusterRow(-1, 9, 0.1, (), (), ())
    config = OpenAIModelConfig(
        backend="openai", name="j", base_url="", model="judge", max_retries=0
    )
    with OpenAIStub(lambda call: "topic: Math" if "Solve" in call.prompt else "no idea") as stub:
        config = config.model_copy(update={"base_url": stub.base_url})
        cache = ResponseCache(tmp_path / "cache.sqlite")
        try:
            found = asyncio.run(
                summarise(Judge(build_backend(config), cache), [outliers, ROW, other])
            )
        finally:
            cache.close()
        assert len(stub.calls) == 2  # outliers are no topic
    assert [(s.cluster, s.outcome, s.label) for s in found] == [
        (3, "ok", "Math"),
        (4, "unparseable", None),
    ]
    assert found[1].reply == "no idea"


def reply(call: Call) -> str:
    return "topic: Visual questions" if "Describe this image" in call.prompt else "no idea"


def test_topics_summarises_each_cluster_once_across_reruns(tmp_path: Path) -> None:
    clip = ensure_tiny_clip(tmp_path / "tiny-clip")
    with OpenAIStub(reply) as stub:
        judge = tmp_path / "judge.yaml"
        judge.write_text(
            json.dumps(
                {"backend": "openai", "name": "stub-judge", "base_url": stub.base_url,
                 "model": "judge", "max_retries": 0}
            )
        )  # fmt: skip
        argv = ["visionarena", "topics", str(SAMPLE_DIR / "chat"), "--model", str(clip),
                "--all-languages", "--summarize", str(judge), "--quiet"]  # fmt: skip
        assert vlmscope_main([*argv, "--out", str(tmp_path / "one")]) == 0
        assert len(stub.calls) == 1
        assert stub.calls[0].body is not None
        system = stub.calls[0].body["messages"][0]
        assert system == {
            "role": "system",
            "content": "You are an assistant that extracts high-level topics from texts.",
        }
        assert vlmscope_main([*argv, "--out", str(tmp_path / "one")]) == 0
        assert len(stub.calls) == 1  # the rerun reads the cache beside its folder
        assert (tmp_path / "one.summaries.sqlite").is_file()
    clusters = pq.read_table(tmp_path / "one" / "clusters" / "test-00000-of-00001.parquet")
    assert clusters.column("summary").to_pylist() == ["Visual questions"]
    assert clusters.column("name").to_pylist() == ["Visual questions"]
    facts = json.loads((tmp_path / "one" / "topics.json").read_text())
    assert facts["summaries"]["outcomes"] == {"ok": 1}
    assert facts["summaries"]["judge"]["judge"] == "stub-judge"
