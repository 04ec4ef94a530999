"""Topic folders in the results: found and read with the result folders' checks, the top
clusters ranked for the bars, prompts escaped for the map, a bad folder skipped with why."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.leaderboard.topic_folder import HOSTILE_PROMPT, SUMMARY, write_topic_folder
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.topic_charts import cluster_bars, hover_text, topic_map
from vlmscope.leaderboard.topics_view import find_topic_sets, top_clusters, topics_note


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("topics") / "results"
    write_topic_folder(root / "topics" / "chat")
    return root


def test_a_topic_folder_is_found_by_its_path_inside_the_results(results: Path) -> None:
    sets, problems = find_topic_sets(ResultsLocation.local(results))
    assert problems == []
    assert [s.name for s in sets] == ["topics/chat"]
    topics = sets[0]
    assert len(topics.points) == 10 and topics.settings["source"] == "planted chats"
    assert topics.label(0) == SUMMARY and topics.label(-1) == "outliers"
    assert topics.label(1).startswith("1: ")


def test_the_top_clusters_leave_outliers_out_largest_first(results: Path) -> None:
    (topics,), _ = find_topic_sets(ResultsLocation.local(results))
    frame = top_clusters(topics)
    assert list(frame["Cluster"]) == [0, 1, 2]
    assert list(frame["Prompts"]) == [4, 3, 2]
    assert list(frame["Share %"]) == [40.0, 30.0, 20.0]
    assert frame["Topic"][0] == SUMMARY
    assert "solve" in frame["Keywords"][0]
    assert topics_note(topics) == (
        "3 clusters of 10 prompts, from planted chats, embedded with stand-in, "
        "10 prompts on the map."
    )
    bars = cluster_bars(frame, "t")
    assert list(bars.data[0].x) == [20.0, 30.0, 40.0]  # drawn bottom up: largest on top
    assert "&lt;b&gt;help&lt;/b&gt;" in bars.data[0].y[-1]


def test_the_map_has_one_trace_per_cluster_and_escaped_prompts(results: Path) -> None:
    (topics,), _ = find_topic_sets(ResultsLocation.local(results))
    figure = topic_map(topics, "map")
    assert [len(trace.x) for trace in figure.data] == [4, 3, 2, 1]
    assert figure.data[-1].name == "outliers"
    hovers = [h for trace in figure.data for h in trace.hovertext]
    hostile = next(h for h in hovers if "Read the sign" in h)
    assert "<script" not in hostile and "<img" not in hostile
    assert "&lt;script&gt;" in hostile
    assert hover_text(HOSTILE_PROMPT).count("<br>") >= 1


def test_hover_text_is_cut_and_only_line_breaks_are_markup() -> None:
    text = hover_text("<a href='x'>" + "word " * 100)
    assert text.startswith("&lt;a href='x'&gt;")
    assert text.replace("<br>", "").count("<") == 0
    assert text.endswith("…")


def test_a_folder_that_does_not_read_is_skipped_with_why(tmp_path: Path) -> None:
    root = tmp_path / "results"
    write_topic_folder(root / "good")
    bad = write_topic_folder(root / "bad")
    (bad / "points" / "test-00000-of-00001.parquet").write_bytes(b"not parquet")
    sets, problems = find_topic_sets(ResultsLocation.local(root))
    assert [s.name for s in sets] == ["good"]
    assert [p.folder for p in problems] == ["bad"]
    assert "does not read as parquet" in problems[0].error
