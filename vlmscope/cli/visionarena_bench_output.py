"""What `build-bench` and `topics` print and, for `topics`, the folder it writes: the cluster
table with the judge's one-line summaries (cached beside DIR in `DIR.summaries.sqlite`, so a
rerun asks nothing again) and the 2-D map of a seeded subset of the prompts."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from vlmscope.config import ModelConfig
    from vlmscope.tracks.visionarena.bench_curation import Curated
    from vlmscope.tracks.visionarena.topic_table import ClusterRow

SHOWN_CLUSTERS = 15


def judge_cache_path(out: Path) -> Path:
    return out.with_name(f"{out.name}.summaries.sqlite")


def write_topic_folder(
    args: argparse.Namespace, curated: Curated, judge: ModelConfig | None
) -> dict[str, Any]:
    """Summaries (with a judge), the map, the folder; returns the facts written with it."""
    from vlmscope.datasets.visionarena_topics import write_topics
    from vlmscope.tracks.visionarena.bench_clusters import map_2d
    from vlmscope.tracks.visionarena.topic_table import with_summaries

    table = curated.table
    facts: dict[str, Any] = {
        "source": args.source or args.data.name,
        "conversations_read": len(curated.decisions),
        "prompts_clustered": len(curated.prompts),
        "clusters": sum(row.cluster >= 0 for row in table),
        "decisions": curated.counts(),
        "summaries": None,
    }
    if judge is not None:
        summaries, facts["summaries"] = _summaries(judge, table, judge_cache_path(args.out))
        table = with_summaries(table, summaries)
    rng = np.random.default_rng(args.seed)
    count = len(curated.prompts)
    points = list(range(count))
    if count > args.map_points:
        points = sorted(rng.choice(count, size=args.map_points, replace=False).tolist())
    coordinates, facts["map"] = map_2d(curated.embeddings[points], _cluster_params(curated))
    facts["map"] = {"points": len(points), **facts["map"]}
    out = write_topics(args.out, curated, table, points, coordinates, facts=facts)
    return {**facts, "out": out, "table": table}


def _cluster_params(curated: Curated) -> Any:
    """The UMAP parameters the clusters were made with, for the map's own UMAP."""
    from vlmscope.tracks.visionarena.bench_clusters import ClusterParams

    return ClusterParams(**curated.settings["parameters"]["clusters"])


def _summaries(
    config: ModelConfig, table: list[ClusterRow], cache_path: Path
) -> tuple[dict[int, str], dict[str, Any]]:
    from vlmscope.cache import ResponseCache
    from vlmscope.judges.client import Judge
    from vlmscope.models.registry import build_backend
    from vlmscope.tracks.visionarena.topic_summaries import (
        PROMPT,
        SUMMARY_SETTINGS,
        summarise,
    )

    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache = ResponseCache(cache_path)
    judge = Judge(build_backend(config), cache)
    try:
        found = asyncio.run(summarise(judge, table))
    finally:
        cache.close()
    outcomes: dict[str, int] = {}
    for summary in found:
        outcomes[summary.outcome] = outcomes.get(summary.outcome, 0) + 1
    facts = {
        "judge": judge.describe(SUMMARY_SETTINGS),
        "prompt": PROMPT,
        "outcomes": outcomes,
        "calls": {"asked": judge.counts["asked"], "cached": judge.counts["cached"]},
    }
    return {s.cluster: s.label for s in found if s.label}, facts


def cluster_lines(table: list[ClusterRow], total: int) -> list[str]:
    """The largest clusters, one line each: id, size, share, name or keywords."""
    ranked = sorted((r for r in table if r.cluster >= 0), key=lambda r: (-r.size, r.cluster))
    lines = [f"{'cluster':>8} {'size':>7} {'share':>7} {'sampled':>8}  keywords / summary"]
    for row in ranked[:SHOWN_CLUSTERS]:
        label = row.summary or ", ".join(row.keywords[:6])
        lines.append(f"{row.cluster:>8} {row.size:>7} {row.share:>7.1%} {row.sampled:>8}  {label}")
    outliers = next((r for r in table if r.cluster < 0), None)
    if outliers is not None:
        lines.append(f"{'outliers':>8} {outliers.size:>7} {outliers.share:>7.1%}")
    if len(ranked) > SHOWN_CLUSTERS:
        lines.append(f"... {len(ranked) - SHOWN_CLUSTERS} more clusters of {total} prompts")
    return lines


def decision_line(curated: Curated) -> str:
    counts = curated.counts()
    return f"{len(curated.decisions)} conversations: " + ", ".join(
        f"{name} {count}" for name, count in sorted(counts.items(), key=lambda kv: -kv[1])
    )


def bench_report(curated: Curated, out: Path) -> str:
    skipped = curated.clustering.settings.get("skipped")
    lines = [decision_line(curated)]
    if skipped:
        lines.append(f"clustering skipped: {skipped}")
    lines += cluster_lines(curated.table, len(curated.prompts))
    lines.append(f"wrote {len(curated.sampled)} bench prompts to {out}")
    return "\n".join(lines)


def topics_report(curated: Curated, written: dict[str, Any]) -> str:
    lines = [decision_line(curated)]
    summaries = written.get("summaries")
    if summaries:
        lines.append(f"summaries: {summaries['outcomes']}; judge calls {summaries['calls']}")
    lines += cluster_lines(written["table"], len(curated.prompts))
    lines.append(f"wrote the topic map of {len(curated.prompts)} prompts to {written['out']}")
    return "\n".join(lines)
