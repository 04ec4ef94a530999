"""Every `evaluate` module under evaluate_metrics/ has a card, and the card's examples give what
they show.

A card (`README.md` beside the module, with the Hub's front matter) is what a metric user reads
first; its examples are run here as doctests, from the repository root as the cards say.
"""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(p.parent for p in (ROOT / "evaluate_metrics").glob("*/*.py"))


def test_every_module_is_found() -> None:
    assert {m.name for m in MODULES} >= {
        "arena_ratings",
        "megabench",
        "megabench_task",
        "simplevqa_factuality",
    }


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.name)
def test_each_card_names_its_module_and_its_examples_hold(
    module: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    card = module / "README.md"
    assert card.is_file(), f"{module.name} has no card"
    text = card.read_text(encoding="utf-8")
    front = text.split("---")[1]
    assert "title:" in front and "description:" in front
    assert f'evaluate.load("evaluate_metrics/{module.name}"' in text
    monkeypatch.chdir(ROOT)  # the examples load the module by its path from the repository root
    test = doctest.DocTestParser().get_doctest(text, {"json": json}, card.name, str(card), 0)
    assert test.examples, card
    failed, _ = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert failed == 0
