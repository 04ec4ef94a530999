"""One check for two battle tables built by different paths."""

from __future__ import annotations

import numpy as np

from vlmscope.ratings.inputs.battles import Battles


def assert_same_battles(x: Battles, y: Battles) -> None:
    """Same models in the same order, and every column equal in type and value."""
    assert x.models == y.models
    for name in ("model_a", "model_b", "outcome", "weights", "style_a", "style_b"):
        u, v = getattr(x, name), getattr(y, name)
        assert (u is None) == (v is None), name
        if u is not None:
            assert u.dtype == v.dtype and np.array_equal(u, v), name
