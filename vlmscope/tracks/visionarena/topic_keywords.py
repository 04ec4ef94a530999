"""Keywords of each topic cluster by c-TF-IDF, BERTopic's class-based TF-IDF (Grootendorst 2022).

As BERTopic computes it (`ClassTfidfTransformer`, default settings, and the topic model's own
preparation of the text):

1. the prompts of each cluster (outliers, -1, included) are joined with spaces into one
   document per cluster; newlines and tabs become spaces and, for English, every character
   but ASCII letters, digits and spaces is removed; an empty document reads "emptydoc";
2. scikit-learn's `CountVectorizer` counts the words of each cluster document (here with
   English stop words removed, BERTopic's recommended setting, since function words would
   otherwise top every cluster);
3. the term frequency is each row L1-normalised; the weight of word x is
   log(1 + A / f_x), A the average number of words per cluster (as an integer, truncated) and
   f_x the frequency of x across all clusters; c-TF-IDF = tf * weight;
4. a cluster's keywords are its `top_n` words by c-TF-IDF with a score above 0. Where BERTopic
   leaves the order of equal scores to numpy's partition, ties here go alphabetically.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

_NOT_ENGLISH_WORD = re.compile(r"[^A-Za-z0-9 ]+")


@dataclass(frozen=True)
class KeywordParams:
    top_n: int = 10
    stop_words: str | None = "english"
    english: bool = True
    """Keep only ASCII letters, digits and spaces (BERTopic's `language="english"`)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "method": "c-TF-IDF (BERTopic ClassTfidfTransformer, defaults)",
            "vectorizer": "sklearn CountVectorizer, ngram_range (1, 1)",
            "top_n": self.top_n,
            "stop_words": self.stop_words,
            "english_text_cleaning": self.english,
        }


def cluster_documents(
    texts: Sequence[str], labels: Sequence[int], *, english: bool
) -> tuple[list[int], list[str]]:
    """(cluster ids in order, one prepared document per cluster): steps 1 of the module doc."""
    joined: dict[int, list[str]] = {}
    for text, label in zip(texts, labels, strict=True):
        joined.setdefault(int(label), []).append(text)
    ids = sorted(joined)
    documents = []
    for c in ids:
        document = " ".join(joined[c]).replace("\n", " ").replace("\t", " ")
        if english:
            document = _NOT_ENGLISH_WORD.sub("", document)
        documents.append(document or "emptydoc")
    return ids, documents


def c_tf_idf(counts: Any) -> Any:
    """c-TF-IDF of a (clusters x words) count matrix (scipy sparse): step 3."""
    from scipy import sparse
    from sklearn.preprocessing import normalize

    frequency = np.squeeze(np.asarray(counts.sum(axis=0)))
    average = int(counts.sum(axis=1).mean())
    weight = np.log(average / frequency + 1)
    tf = normalize(counts.astype(np.float64), axis=1, norm="l1")
    return sparse.csr_matrix(tf @ sparse.diags(weight))


def cluster_keywords(
    texts: Sequence[str], labels: Sequence[int], params: KeywordParams
) -> dict[int, list[tuple[str, float]]]:
    """Each cluster's top words with their c-TF-IDF scores, best first."""
    from sklearn.feature_extraction.text import CountVectorizer

    ids, documents = cluster_documents(texts, labels, english=params.english)
    vectorizer = CountVectorizer(stop_words=params.stop_words)
    try:
        counts = vectorizer.fit_transform(documents)
    except ValueError:  # no word left (every word a stop word): no keywords at all
        return {c: [] for c in ids}
    words = vectorizer.get_feature_names_out()
    scores = c_tf_idf(counts)
    out: dict[int, list[tuple[str, float]]] = {}
    for row, c in enumerate(ids):
        line = scores.getrow(row)
        ranked = sorted(
            (
                (str(words[k]), float(v))
                for k, v in zip(line.indices, line.data, strict=True)
                if v > 0
            ),
            key=lambda item: (-item[1], item[0]),
        )
        out[c] = ranked[: params.top_n]
    return out
