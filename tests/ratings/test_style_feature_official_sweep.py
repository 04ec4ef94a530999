"""Style features before the fit against the official code (official_sweep/README.md): FastChat's
`preprocess_for_style` on `conv_metadata` (int and dict counts, counts past int32) and
arena-hard v2's length and markdown-density features on answer metadata (computed upstream in
float32, hence the tolerance), among them answers whose metadata keys come in another order
(`reordered_keys`: upstream reads the counts by position, and so do we)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.ratings.style_cases import style_cases, v2_scores
from vlmscope.ratings.boards.arena_hard_v2 import v2_style_features
from vlmscope.ratings.fits.style_control import battle_style_features
from vlmscope.ratings.inputs.battles import Battles
from vlmscope.ratings.inputs.verdict_records import STYLE_FIELDS


def test_the_cases_include_counts_past_int32() -> None:
    assert {case["mode"] for case in style_cases()["fastchat"]} == {"normal", "huge"}
    assert {case["mode"] for case in style_cases()["arena_hard_v2"]} == {
        "normal",
        "huge",
        "reordered_keys",
    }


@pytest.mark.parametrize("index", range(12))
def test_fastchat_features(index: int) -> None:
    case = style_cases()["fastchat"][index]
    got = battle_style_features(Battles.from_records(case["records"], style=True))
    np.testing.assert_allclose(got, case["features"], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("index", range(14))
def test_arena_hard_v2_features(index: int) -> None:
    case = style_cases()["arena_hard_v2"][index]
    got = v2_style_features(v2_scores(case))
    np.testing.assert_allclose(got, case["features"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("index", [12, 13])
def test_reordered_metadata_keys_change_the_official_features(index: int) -> None:
    """The same counts with the keys in the official order give other features: the cases
    would fail if the counts were read by name."""
    case = style_cases()["arena_hard_v2"][index]
    assert case["mode"] == "reordered_keys"
    official_order = {
        **case,
        "rows": [
            {side: {key: row[side][key] for key in STYLE_FIELDS} for side in row}
            for row in case["rows"]
        ],
    }
    by_name = v2_style_features(v2_scores(official_order))
    assert np.abs(by_name - np.array(case["features"])).max() > 0.5
