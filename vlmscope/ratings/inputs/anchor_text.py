"""A rating anchor written as text, `MODEL=VALUE`, read one way for every entry point.

`vlmscope ratings --anchor` and the `arena_ratings` evaluate module's `anchor` both take it; a
value that is not a finite number, a missing `=`, or a model with no battles (a typo) would
otherwise leave the ratings unpinned while the settings say pinned.
"""

from __future__ import annotations

import math
from collections.abc import Collection


def parse_anchor(text: str | None, name: str = "anchor") -> tuple[str | None, float | None]:
    """(model, rating) from `MODEL=VALUE`, or (None, None) without an anchor; `name` is the
    argument's name in the error."""
    if text is None:
        return None, None
    if not isinstance(text, str):
        raise ValueError(f"{name}: expected MODEL=VALUE text, got {type(text).__name__}")
    model, sep, value = text.rpartition("=")
    if not sep or not model:
        raise ValueError(f"{name}: expected MODEL=VALUE, got {text!r}")
    try:
        rating = float(value)
    except ValueError:
        raise ValueError(f"{name}: {value!r} is not a number") from None
    if not math.isfinite(rating):
        raise ValueError(f"{name}: {value!r} is not a finite rating")
    return model, rating


def require_rated(model: str | None, models: Collection[str], name: str = "anchor") -> None:
    """The anchor's model has battles among `models` (nothing to check without an anchor)."""
    if model is not None and model not in models:
        raise ValueError(
            f"{name}: {model!r} has no battles on the board (models: {', '.join(sorted(models))})"
        )
