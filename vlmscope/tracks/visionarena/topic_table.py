"""The cluster table: what each topic cluster holds (paper Sec. 3, Fig. 3 and Fig. 11).

One row per cluster, outliers (-1) included as BERTopic's topic table includes them: its size,
its share of all clustered prompts, its c-TF-IDF keywords (`topic_keywords`), example prompts,
how many bench prompts it gave, and, when a judge summarised it, a one-line summary. The
examples are the prompts nearest the cluster's centre in the reduced (UMAP) space, the most
typical ones; without a reduced space (too few prompts to cluster) the first ones in order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class ClusterRow:
    cluster: int
    size: int
    share: float
    keywords: tuple[str, ...]
    example_ids: tuple[str, ...]
    examples: tuple[str, ...]
    sampled: int = 0
    summary: str | None = None

    @property
    def name(self) -> str:
        """How the cluster is labelled in a chart: its summary, else its first keywords."""
        if self.summary:
            return self.summary
        words = "_".join(self.keywords[:4]) or "(no keywords)"
        return f"{self.cluster}: {words}"

    def to_json(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "size": self.size,
            "share": self.share,
            "keywords": list(self.keywords),
            "example_ids": list(self.example_ids),
            "examples": list(self.examples),
            "sampled": self.sampled,
            "summary": self.summary,
        }


def cluster_table(
    ids: Sequence[str],
    texts: Sequence[str],
    labels: Sequence[int],
    reduced: NDArray[np.float32],
    keywords: Mapping[int, Sequence[tuple[str, float]]],
    *,
    examples: int = 3,
    sampled: Sequence[int] = (),
) -> list[ClusterRow]:
    """One row per cluster id in `labels`, in id order (-1 first); `sampled` are indices of
    the prompts a bench took."""
    label_array = np.asarray(labels, dtype=np.int64)
    taken = np.bincount(
        label_array[list(sampled)] + 1, minlength=int(label_array.max(initial=-1)) + 2
    )
    total = len(label_array)
    rows = []
    for c in sorted({int(x) for x in label_array}):
        members = np.flatnonzero(label_array == c)
        typical = _typical(members, reduced)[:examples]
        rows.append(
            ClusterRow(
                cluster=c,
                size=len(members),
                share=len(members) / total,
                keywords=tuple(word for word, _ in keywords.get(c, ())),
                example_ids=tuple(ids[k] for k in typical),
                examples=tuple(texts[k] for k in typical),
                sampled=int(taken[c + 1]),
            )
        )
    return rows


def _typical(members: NDArray[np.intp], reduced: NDArray[np.float32]) -> list[int]:
    """Members nearest their centre first (ties: file order); file order without coordinates."""
    if reduced.shape[1] == 0:
        return [int(k) for k in members]
    points = reduced[members].astype(np.float64)
    distance = np.linalg.norm(points - points.mean(axis=0), axis=1)
    order = np.lexsort((members, distance))
    return [int(members[k]) for k in order]


def with_summaries(rows: Sequence[ClusterRow], summaries: Mapping[int, str]) -> list[ClusterRow]:
    """The table with each summarised cluster's one-line summary filled in."""
    return [replace(row, summary=summaries.get(row.cluster)) for row in rows]
