"""Sentence/word tokenisation and noun lemmatisation for constrained generation.

Sentence splitter: NLTK's Punkt algorithm with *untrained* (empty) parameters,
`nltk.tokenize.punkt.PunktSentenceTokenizer()`. The official scorer uses NLTK's trained English punkt
model, which cannot be downloaded here; the untrained splitter needs no data, agrees with the trained
one on ordinary text (it breaks after ".", "?" and "!" followed by whitespace and keeps initials such
as "J. Smith" together) and differs only on abbreviations the trained model knows ("Dr.", "e.g."),
which is also how the reference cases were produced. Words: NLTK's Treebank-style `NLTKWordTokenizer`
applied per sentence, which is exactly what `nltk.word_tokenize` does after splitting.

Lemmatiser: NLTK's `WordNetLemmatizer` noun rule (WordNet's morphy: the exception list, else the
noun suffix rules, keeping candidates that are WordNet nouns, shortest first), read directly from the
WordNet 3.0 database files (`index.noun`, `noun.exc`) that Debian's `wordnet-base` package installs
under /usr/share/wordnet (override with VLMSCOPE_WORDNET_DIR). NLTK's own corpus reader also wants a
`lexnames` file that package does not ship, and the noun rule needs only these two files.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from vlmscope.dependencies import Dependency
from vlmscope.metrics.megabench.caches import cached
from vlmscope.metrics.megabench.nltk_parts import nltk_module

WORDNET_DIR_ENV = "VLMSCOPE_WORDNET_DIR"
DEFAULT_WORDNET_DIR = "/usr/share/wordnet"
_NOUN_SUFFIX_RULES = (
    ("s", ""),
    ("ses", "s"),
    ("ves", "f"),
    ("xes", "x"),
    ("zes", "z"),
    ("ches", "ch"),
    ("shes", "sh"),
    ("men", "man"),
    ("ies", "y"),
)


def wordnet_dir() -> Path:
    return Path(os.environ.get(WORDNET_DIR_ENV, DEFAULT_WORDNET_DIR))


def wordnet_dependency() -> Dependency:
    """Whether the two WordNet files the noun rule reads are where it will look."""
    root = wordnet_dir()
    absent = [name for name in ("index.noun", "noun.exc") if not (root / name).is_file()]
    return Dependency(
        name="WordNet noun files",
        missing=f"{', '.join(absent)} not found in {root}" if absent else None,
        install=f"apt-get install wordnet-base (or set {WORDNET_DIR_ENV} to a WordNet 3.0 dict/)",
        affects="constrained_generation scores 0 on every query (a metric error each)",
    )


@lru_cache(maxsize=1)
def _noun_database() -> tuple[frozenset[str], dict[str, list[str]]]:
    root = wordnet_dir()
    index_file, exceptions_file = root / "index.noun", root / "noun.exc"
    if not index_file.is_file() or not exceptions_file.is_file():
        raise FileNotFoundError(
            f"WordNet noun files not found in {root} (install Debian's wordnet-base or set "
            f"{WORDNET_DIR_ENV})"
        )
    with index_file.open(encoding="utf-8") as lines:
        nouns = frozenset(line.split(" ", 1)[0] for line in lines if not line.startswith(" "))
    exceptions: dict[str, list[str]] = {}
    with exceptions_file.open(encoding="utf-8") as lines:
        for line in lines:
            terms = line.split()
            if terms:
                exceptions[terms[0]] = terms[1:]
    return nouns, exceptions


def lemmatize_noun(word: str) -> str:
    """`WordNetLemmatizer().lemmatize(word, "n")`: the shortest WordNet noun form, else the word."""
    nouns, exceptions = _noun_database()
    if word in exceptions:
        forms = exceptions[word]
    else:
        forms = [word[: -len(old)] + new for old, new in _NOUN_SUFFIX_RULES if word.endswith(old)]
    candidates = [form for form in dict.fromkeys([word, *forms]) if form in nouns]
    return min(candidates, key=len) if candidates else word


@lru_cache(maxsize=1)
def _sentence_splitter() -> Any:
    return nltk_module("nltk.tokenize.punkt").PunktSentenceTokenizer()


@lru_cache(maxsize=1)
def _word_tokenizer() -> Any:
    return nltk_module("nltk.tokenize.destructive").NLTKWordTokenizer()


def split_sentences(text: str) -> list[str]:
    return list(_sentence_splitter().tokenize(text))


def split_words(text: str) -> list[str]:
    """`nltk.word_tokenize`: sentences first, then Treebank-style tokens per sentence."""
    tokenizer = _word_tokenizer()
    return [token for sentence in split_sentences(text) for token in tokenizer.tokenize(sentence)]


@cached
def lemmatize_phrase(phrase: str) -> str:
    """Lower-cased, tokenised, every token noun-lemmatised, joined by spaces (official helper; its
    "ies"/"ves" patches are no-ops and are left out)."""
    return " ".join(lemmatize_noun(word) for word in split_words(phrase.lower()))
