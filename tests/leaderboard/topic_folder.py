"""A topic folder for the Topics page's tests, written by the real writer
(`vlmscope.datasets.visionarena_topics.write_topics`) from a small curation made by hand: three
clusters of 4, 3 and 2 prompts plus one outlier, at known map coordinates, with a one-line
summary on the largest cluster. One prompt of the second cluster and the summary carry script
payloads (user and judge text: untrusted), which the page must show as characters.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.leaderboard.fabricate import PAYLOAD
from vlmscope.datasets.visionarena_topics import write_topics
from vlmscope.tracks.visionarena.bench_candidates import Candidate
from vlmscope.tracks.visionarena.bench_clusters import Clustering
from vlmscope.tracks.visionarena.bench_curation import Curated
from vlmscope.tracks.visionarena.topic_keywords import KeywordParams, cluster_keywords
from vlmscope.tracks.visionarena.topic_table import cluster_table, with_summaries

HOSTILE_PROMPT = f"Read the sign {PAYLOAD} aloud"
SUMMARY = "Math homework <b>help</b>"
PROMPTS = [
    ("m0", "Solve the equation on the whiteboard", 0, (0.0, 0.0)),
    ("m1", "Solve this integral step by step", 0, (0.2, 0.1)),
    ("m2", "What is the derivative of this equation", 0, (0.1, 0.3)),
    ("m3", "Solve the geometry problem in the picture", 0, (0.3, 0.2)),
    ("o0", "What does the receipt say", 1, (5.0, 5.0)),
    ("o1", HOSTILE_PROMPT, 1, (5.3, 5.2)),
    ("o2", "Transcribe the handwriting", 1, (5.1, 5.4)),
    ("a0", "Who painted this painting", 2, (-5.0, 4.0)),
    ("a1", "Which museum holds this painting", 2, (-5.2, 4.3)),
    ("x0", "Something else entirely", -1, (0.0, -6.0)),
]


def write_topic_folder(out: Path, source: str = "planted chats") -> Path:
    prompts = [Candidate(cid, text, (), "English", "m", None) for cid, text, _, _ in PROMPTS]
    labels = np.array([label for _, _, label, _ in PROMPTS], dtype=np.int64)
    reduced = np.array([xy for *_, xy in PROMPTS], dtype=np.float32)
    texts = [p.question for p in prompts]
    keywords = cluster_keywords(texts, labels.tolist(), KeywordParams())
    table = cluster_table(
        [p.conversation_id for p in prompts], texts, labels.tolist(), reduced, keywords
    )
    settings = {"parameters": {}, "embedding": {"model": "stand-in"}, "clustering": {}}
    curated = Curated(
        prompts, reduced, Clustering(labels, reduced, settings), table, [], [], settings
    )
    facts = {"source": source, "prompts_clustered": len(prompts), "map": {"points": len(prompts)}}
    return write_topics(
        out,
        curated,
        with_summaries(table, {0: SUMMARY}),
        list(range(len(prompts))),
        reduced,
        facts=facts,
    )
