"""Topic maps in the results: the data of the Space's Topics page (VisionArena Fig. 3 and 11).

A topic folder (`vlmscope visionarena topics ... --out DIR`, written by
`vlmscope.datasets.visionarena_topics`) holds a `clusters` and a `points` config. Every such
folder under the results location is found, read with the same checks as a result folder (each
shard inside the location, symlinked folders not followed, hidden ones skipped) and shown; one
that does not read is skipped with a short reason, as a bad result folder is. The page's
controls only pick among the folders found here, by their path inside the results.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from vlmscope.leaderboard.load import ResultsLocation, has_config, inside, read_config_rows
from vlmscope.leaderboard.result_store import UNREADABLE, Problem

CONFIGS = ("clusters", "points")
SETTINGS_FILE = "topics.json"  # `vlmscope.datasets.visionarena_topics.SETTINGS_FILE`
TOP = 20
"""Clusters in the bar chart and the table: the paper's Fig. 11 shows the top 20."""


@dataclass(frozen=True)
class TopicSet:
    name: str
    """The folder's path inside the results: how the page names and picks it."""
    clusters: list[dict[str, Any]]
    points: list[dict[str, Any]]
    settings: dict[str, Any] = field(default_factory=dict)

    def label(self, cluster: int) -> str:
        """A cluster's name in charts: its summary or first keywords; outliers say so."""
        if cluster < 0:
            return "outliers"
        for row in self.clusters:
            if row["cluster"] == cluster:
                return str(row["name"])
        return f"{cluster}"


def find_topic_sets(location: ResultsLocation) -> tuple[list[TopicSet], list[Problem]]:
    """Every topic folder under the results root, and the ones skipped with why."""
    found: list[TopicSet] = []
    problems: list[Problem] = []
    if not location.root.is_dir():
        return found, problems
    for current, subdirs, _files in os.walk(location.root, followlinks=False):
        folder = Path(current)
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        if not all(has_config(folder, config) for config in CONFIGS):
            continue
        subdirs.clear()
        name = folder.relative_to(location.root).as_posix()
        try:
            found.append(read_topic_set(location, folder, name))
        except (*UNREADABLE, ValueError, KeyError) as err:
            problems.append(Problem(name, str(err)[:300]))
    return found, problems


def read_topic_set(location: ResultsLocation, folder: Path, name: str) -> TopicSet:
    clusters = read_config_rows(location, folder, "clusters")
    points = read_config_rows(location, folder, "points")
    for row in clusters:
        for key in ("cluster", "name", "size", "share", "keywords", "examples"):
            if key not in row:
                raise ValueError(f"the clusters config has no {key!r} column")
    settings: dict[str, Any] = {}
    settings_path = inside(location, folder / SETTINGS_FILE)
    if settings_path.is_file():
        settings = json.loads(settings_path.read_text(encoding="utf-8"))
    return TopicSet(name, clusters, points, settings)


def top_clusters(topics: TopicSet, top: int = TOP) -> pd.DataFrame:
    """The largest clusters (outliers left out), largest first: what the bars and table show."""
    ranked = sorted(
        (r for r in topics.clusters if r["cluster"] >= 0), key=lambda r: (-r["size"], r["cluster"])
    )[:top]
    return pd.DataFrame(
        {
            "Cluster": [int(r["cluster"]) for r in ranked],
            "Topic": [str(r["name"]) for r in ranked],
            "Prompts": [int(r["size"]) for r in ranked],
            "Share %": [round(100 * float(r["share"]), 2) for r in ranked],
            "Keywords": [", ".join(r["keywords"][:8]) for r in ranked],
            "Example": [str(r["examples"][0]) if r["examples"] else "" for r in ranked],
        }
    )


def topics_note(topics: TopicSet) -> str:
    """One line of what the map is made of (plain words; the caller escapes it)."""
    s = topics.settings
    clusters = sum(r["cluster"] >= 0 for r in topics.clusters)
    parts = [f"{clusters} clusters of {s.get('prompts_clustered', '?')} prompts"]
    if s.get("source"):
        parts.append(f"from {s['source']}")
    model = s.get("embedding", {}).get("model")
    if model:
        parts.append(f"embedded with {model}")
    parts.append(f"{len(topics.points)} prompts on the map")
    return ", ".join(parts) + "."
