"""Curating a VisionArena-Bench from chat logs, and the topic map, as the paper did (Sec. 6, 3).

    conversations ─ screen ─> candidates ─ duplicates ─> prompts ─ embed ─> UMAP ─> HDBSCAN
        ─> c-TF-IDF keywords, cluster table ─> uniform sample across clusters

- screen (`bench_candidates`): single-turn, in the chosen languages, with an image, a question;
- duplicates (`bench_duplicates`): exact and near copies dropped, each naming what it repeats;
- embed: the caller's `Embedder` (a CLIP model, `vlmscope.models.clip_embedder`; a fixed
  stand-in in tests), image and text averaged per prompt;
- UMAP and HDBSCAN (`bench_clusters`), keywords (`topic_keywords`), the table (`topic_table`);
- sample (`bench_sampling`): uniform across clusters, seeded.

Every conversation read ends with one decision (`Curated.decisions`), and every parameter,
with the versions of the libraries that used it, is in `Curated.settings`, which the bench's
card and the topic folder carry. The same conversations, parameters and embeddings give the
same result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from vlmscope.tracks.visionarena.bench_candidates import (
    KEPT,
    OUTSIDE_SUBSET,
    Candidate,
    CandidateRules,
    Detector,
    Screened,
    screen,
)
from vlmscope.tracks.visionarena.bench_clusters import Clustering, ClusterParams, cluster
from vlmscope.tracks.visionarena.bench_duplicates import (
    DuplicateRules,
    find_duplicates,
    fingerprints,
)
from vlmscope.tracks.visionarena.bench_sampling import sample_uniform
from vlmscope.tracks.visionarena.rows import ChatRow
from vlmscope.tracks.visionarena.topic_keywords import KeywordParams, cluster_keywords
from vlmscope.tracks.visionarena.topic_table import ClusterRow, cluster_table

Stage = Callable[[str], None]


class Embedder(Protocol):
    """One unit vector per prompt from its text and images (points x dimensions)."""

    def embed(
        self, texts: Sequence[str], images: Sequence[Sequence[bytes]]
    ) -> NDArray[np.float32]: ...

    def settings(self) -> dict[str, Any]:
        """What produced the vectors (model, how image and text were combined, versions)."""
        ...


@dataclass(frozen=True)
class CurationParams:
    size: int | None = 500
    """Bench prompts to sample; None: no sample (the topic map)."""
    seed: int = 0
    """Seeds UMAP and the sampling (and the subset of `max_prompts`)."""
    rules: CandidateRules = field(default_factory=CandidateRules)
    duplicates: DuplicateRules | None = field(default_factory=DuplicateRules)
    """None: duplicates are not looked for (the topic map counts them like any prompt)."""
    clusters: ClusterParams = field(default_factory=ClusterParams)
    keywords: KeywordParams = field(default_factory=KeywordParams)
    examples: int = 3
    max_prompts: int | None = None
    """Cluster a seeded random subset of this many prompts (the paper's topic map: 50K)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "seed": self.seed,
            "candidates": self.rules.to_json(),
            "duplicates": None if self.duplicates is None else self.duplicates.to_json(),
            "clusters": asdict(self.clusters),
            "keywords": self.keywords.to_json(),
            "examples_per_cluster": self.examples,
            "max_prompts": self.max_prompts,
        }


@dataclass(frozen=True)
class Decision:
    """What became of one conversation read."""

    screened: Screened
    decision: str
    duplicate_of: str | None = None
    cluster: int | None = None
    sampled: bool = False


@dataclass(frozen=True)
class Curated:
    prompts: list[Candidate]
    """The prompts clustered: candidates left after duplicates (and the `max_prompts` cut)."""
    embeddings: NDArray[np.float32]
    clustering: Clustering
    table: list[ClusterRow]
    sampled: list[int]
    """Indices into `prompts` of the bench's prompts, by cluster then order."""
    decisions: list[Decision]
    settings: dict[str, Any]

    @property
    def bench(self) -> list[Candidate]:
        return [self.prompts[k] for k in self.sampled]

    def counts(self) -> dict[str, int]:
        """How many conversations ended with each decision (`sampled` and `not_sampled`
        split the kept ones when a bench was drawn)."""
        counts: dict[str, int] = {}
        for d in self.decisions:
            name = d.decision
            if name == KEPT and self.settings["parameters"]["size"] is not None:
                name = "sampled" if d.sampled else "not_sampled"
            counts[name] = counts.get(name, 0) + 1
        return counts


def curate(
    rows: Iterable[ChatRow],
    params: CurationParams,
    embedder: Embedder,
    *,
    detect: Detector | None = None,
    stage: Stage = lambda _name: None,
) -> Curated:
    """Run the whole curation; `stage` is told each step's name as it starts (progress)."""
    stage("screening conversations")
    candidates, screened = screen(rows, params.rules, detect)
    duplicate_of: dict[str, str] = {}
    decision_of: dict[str, str] = {}
    prompts = candidates
    if params.duplicates is not None:
        stage("finding duplicates")
        found = find_duplicates(fingerprints(candidates), params.duplicates)
        prompts = [c for c, dup in zip(candidates, found, strict=True) if dup is None]
        for c, dup in zip(candidates, found, strict=True):
            if dup is not None:
                duplicate_of[c.conversation_id] = candidates[dup.of].conversation_id
                decision_of[c.conversation_id] = dup.kind
    prompts = _subset(prompts, params.max_prompts, params.seed)
    if len(prompts) < len(candidates) - len(duplicate_of):
        clustered = {p.conversation_id for p in prompts}
        for c in candidates:
            if c.conversation_id not in clustered and c.conversation_id not in duplicate_of:
                decision_of[c.conversation_id] = OUTSIDE_SUBSET
    stage(f"embedding {len(prompts)} prompts")
    embeddings = embedder.embed([p.question for p in prompts], [p.images for p in prompts])
    stage("clustering (UMAP, HDBSCAN)")
    clustering = cluster(embeddings, params.clusters)
    labels = [int(x) for x in clustering.labels]
    sampled = [] if params.size is None else sample_uniform(labels, params.size, params.seed)
    stage("keywords (c-TF-IDF)")
    texts = [p.question for p in prompts]
    keywords = cluster_keywords(texts, labels, params.keywords)
    table = cluster_table(
        [p.conversation_id for p in prompts],
        texts,
        labels,
        clustering.reduced,
        keywords,
        examples=params.examples,
        sampled=sampled,
    )
    cluster_of = {p.conversation_id: label for p, label in zip(prompts, labels, strict=True)}
    picked = {prompts[k].conversation_id for k in sampled}
    decisions = [
        Decision(
            s,
            decision_of.get(s.conversation_id, s.decision),
            duplicate_of.get(s.conversation_id),
            cluster_of.get(s.conversation_id),
            s.conversation_id in picked,
        )
        for s in screened
    ]
    settings = {
        "parameters": params.to_json(),
        "embedding": embedder.settings(),
        "clustering": clustering.settings,
    }
    return Curated(prompts, embeddings, clustering, table, sampled, decisions, settings)


def _subset(prompts: list[Candidate], limit: int | None, seed: int) -> list[Candidate]:
    """A seeded random `limit` of `prompts`, in their order (all of them when fewer)."""
    if limit is None or len(prompts) <= limit:
        return prompts
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(len(prompts), size=limit, replace=False).tolist())
    return [prompts[k] for k in chosen]
