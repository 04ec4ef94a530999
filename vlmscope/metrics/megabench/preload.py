"""Load once what the metrics read lazily (WordNet nouns, NLTK tokenizers, CMUdict, jieba's
dictionary, sympy's LaTeX parser): a few seconds that would otherwise land on the first query that
needs each of them. Call it before timing, or before forking worker processes so they inherit it.
"""

from __future__ import annotations

from collections.abc import Callable


def _wordnet() -> None:
    from vlmscope.metrics.megabench.lexicon import lemmatize_noun, split_words

    lemmatize_noun("cats")
    split_words("A cat sat. It purred.")


def _cmudict() -> None:
    from vlmscope.metrics.megabench.pronunciation import cmudict_lookup

    cmudict_lookup()


def _jieba() -> None:
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()


def _latex() -> None:
    from vlmscope.metrics.megabench.latex import parse_latex_cached

    parse_latex_cached("1")


RESOURCES: dict[str, Callable[[], None]] = {
    "wordnet": _wordnet,
    "cmudict": _cmudict,
    "jieba": _jieba,
    "latex": _latex,
}


def preload() -> dict[str, str]:
    """Load every resource; returns {resource: error} for those that could not be loaded."""
    failures = {}
    for name, load in RESOURCES.items():
        try:
            load()
        except Exception as error:
            failures[name] = f"{type(error).__name__}: {error}"
    return failures
