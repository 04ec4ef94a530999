"""Items paired by sample id: the ones every compared model has, and the ones some lack.

A comparison is only paired if both sides answered the same items, so the shared items are
compared and every other one is listed by model (the model that lacks it), never dropped
unsaid. Shared items keep the first model's order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SHOWN_IDS = 5
"""Ids named in a note; the JSON output lists them all."""


@dataclass(frozen=True)
class Alignment:
    shared: tuple[str, ...]
    missing: Mapping[str, list[str]]
    """Per model, the ids some other compared model has and it lacks."""

    def notes(self, what: str = "items") -> tuple[str, ...]:
        """One line per model that lacks items: how many, and the first few ids."""
        lines = []
        for model, ids in self.missing.items():
            if ids:
                shown = ", ".join(ids[:SHOWN_IDS]) + (", ..." if len(ids) > SHOWN_IDS else "")
                lines.append(
                    f"{model} has no result for {len(ids)} of the {what} the others have "
                    f"({shown}); they are left out of every comparison with it"
                )
        return tuple(lines)


def align(ids_by_model: Mapping[str, Sequence[str]]) -> Alignment:
    """The ids every model has (in the first model's order), and per model what it lacks."""
    sets = {model: set(ids) for model, ids in ids_by_model.items()}
    union: dict[str, None] = {}
    for ids in ids_by_model.values():
        union.update(dict.fromkeys(ids))
    common = set.intersection(*sets.values()) if sets else set()
    first = next(iter(ids_by_model.values()), ())
    shared = tuple(i for i in dict.fromkeys(first) if i in common)
    missing = {model: [i for i in union if i not in sets[model]] for model in ids_by_model}
    return Alignment(shared=shared, missing=missing)
