"""The metrics' NLTK modules load without NLTK's `__init__` (and so without scipy, scikit-learn or
pandas), and the rest of the process still gets the whole of NLTK when it asks for it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("scipy", "sklearn", "pandas")


def _run(code: str) -> dict[str, object]:
    """The JSON a fresh interpreter prints last after running `code`."""
    finished = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    loaded: dict[str, object] = json.loads(finished.stdout.splitlines()[-1])
    return loaded


def test_tokenizers_and_gleu_load_without_nltks_init_or_heavy_libraries() -> None:
    result = _run(
        "import json, sys\n"
        "from vlmscope.metrics.megabench.lexicon import split_words\n"
        "from vlmscope.metrics.megabench.text_overlap import gleu_cn\n"
        'words = split_words("Dr. Smith\'s cat sat. It purred!")\n'
        "score = gleu_cn('the cat sat', 'the cat sat down')\n"
        "print(json.dumps({'words': words, 'score': score, 'modules': sorted(sys.modules)}))"
    )
    assert result["words"] == ["Dr", ".", "Smith", "'s", "cat", "sat", ".", "It", "purred", "!"]
    assert 0 < float(str(result["score"])) < 1
    modules = [str(name) for name in result["modules"]]  # type: ignore[attr-defined]
    assert "nltk.tokenize.punkt" in modules and "nltk.translate.gleu_score" in modules
    assert "nltk.collocations" not in modules  # NLTK's own __init__ did not run
    assert [name for name in modules if name.split(".")[0] in HEAVY] == []


def test_the_rest_of_the_process_still_sees_the_whole_of_nltk() -> None:
    result = _run(
        "import json, sys\n"
        "from vlmscope.metrics.megabench.lexicon import split_words\n"
        "before = split_words('A cat. A dog.')\n"
        "import nltk\n"
        "from nltk.tokenize import TreebankWordTokenizer\n"
        "import nltk.tokenize.punkt\n"
        "print(json.dumps({\n"
        "    'whole': nltk.word_tokenize('Hello there, cat.', preserve_line=True),\n"
        "    'treebank': TreebankWordTokenizer().tokenize('a cat.'),\n"
        "    'punkt': nltk.tokenize.punkt.__name__,\n"
        "    'after': split_words('A cat. A dog.'),\n"
        "    'before': before,\n"
        "}))"
    )
    assert result["whole"] == ["Hello", "there", ",", "cat", "."]
    assert result["treebank"] == ["a", "cat", "."]
    assert result["punkt"] == "nltk.tokenize.punkt"
    assert result["after"] == result["before"] == ["A", "cat", ".", "A", "dog", "."]


def test_only_nltk_modules_are_taken() -> None:
    from vlmscope.metrics.megabench.nltk_parts import nltk_module

    with pytest.raises(ValueError, match="not an NLTK module"):
        nltk_module("scipy.stats")
