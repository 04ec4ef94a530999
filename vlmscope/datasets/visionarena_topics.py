"""The topic map of a set of conversations as a Hub-style folder the Space's Topics page reads.

    OUT/clusters/test-00000-of-00001.parquet   the cluster table: cluster, name, size, share,
                                               keywords, summary, example_ids, examples
    OUT/points/test-00000-of-00001.parquet     the 2-D map: conversation_id, x, y, cluster,
                                               prompt (cut to PROMPT_CHARS)
    OUT/topics.json                            source, counts and every parameter
    OUT/README.md                              the card (`load_dataset(OUT, "clusters")`)

Written through `vlmscope.hub_export.export_folder` (atomically, split `test` as result
folders are), so a results location can hold it beside the runs: the Space shows every topic
folder it finds there.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import datasets
import numpy as np
from numpy.typing import NDArray

from vlmscope.hub_export import export_folder
from vlmscope.tracks.visionarena.bench_curation import Curated
from vlmscope.tracks.visionarena.topic_table import ClusterRow

SETTINGS_FILE = "topics.json"
PROMPT_CHARS = 300
_S = datasets.Value("string")
CLUSTER_FEATURES = datasets.Features(
    {
        "cluster": datasets.Value("int64"),
        "name": _S,
        "size": datasets.Value("int64"),
        "share": datasets.Value("float64"),
        "keywords": datasets.List(_S),
        "summary": _S,
        "example_ids": datasets.List(_S),
        "examples": datasets.List(_S),
    }
)
POINT_FEATURES = datasets.Features(
    {
        "conversation_id": _S,
        "x": datasets.Value("float32"),
        "y": datasets.Value("float32"),
        "cluster": datasets.Value("int64"),
        "prompt": _S,
    }
)


def write_topics(
    out: str | Path,
    curated: Curated,
    table: Sequence[ClusterRow],
    points: Sequence[int],
    coordinates: NDArray[np.float32],
    *,
    facts: dict[str, Any],
) -> Path:
    """Write the topic folder: `table` (the cluster table, summaries filled in when asked),
    the map of `points` (indices into `curated.prompts`) at `coordinates`, and `facts`
    (source, counts, the map's settings) beside `curated.settings`."""
    clusters = datasets.Dataset.from_list(
        [
            {
                "cluster": row.cluster,
                "name": row.name,
                "size": row.size,
                "share": row.share,
                "keywords": list(row.keywords),
                "summary": row.summary,
                "example_ids": list(row.example_ids),
                "examples": list(row.examples),
            }
            for row in table
        ],
        features=CLUSTER_FEATURES,
    )
    labels = curated.clustering.labels
    mapped = datasets.Dataset.from_list(
        [
            {
                "conversation_id": curated.prompts[k].conversation_id,
                "x": float(xy[0]),
                "y": float(xy[1]),
                "cluster": int(labels[k]),
                "prompt": curated.prompts[k].question[:PROMPT_CHARS],
            }
            for k, xy in zip(points, coordinates, strict=True)
        ],
        features=POINT_FEATURES,
    )
    settings = json.dumps({**facts, **curated.settings}, indent=2, sort_keys=True)

    def settings_file(folder: Path) -> None:
        (folder / SETTINGS_FILE).write_text(settings + "\n", encoding="utf-8")

    return export_folder(
        out,
        {"clusters": clusters, "points": mapped},
        title=f"Topics of {facts.get('source', 'conversations')}",
        description="Topic clusters (UMAP, HDBSCAN, c-TF-IDF keywords) of the conversations' "
        "first prompts, embedded with CLIP (image and text averaged), and a 2-D map of them; "
        f"every parameter is in `{SETTINGS_FILE}`.",
        split="test",
        default="clusters",
        extra_files=settings_file,
    )
