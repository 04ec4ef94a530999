"""Models on one keyword are turned apart, evenly, in a stable order, and never towards the
next keyword."""

from __future__ import annotations

import pytest

from vlmscope.leaderboard.radar_dodge import MAX_STEP, SPREAD, dodge_offsets, keyword_angles


def test_keywords_sit_evenly_round_the_circle() -> None:
    assert keyword_angles(4) == [0.0, 90.0, 180.0, 270.0]
    assert keyword_angles(1) == [0.0]
    assert keyword_angles(0) == []


def test_a_lone_model_stays_on_its_spoke() -> None:
    assert dodge_offsets(1, 7) == [0.0]
    assert dodge_offsets(0, 7) == []


@pytest.mark.parametrize("models", [2, 3, 4])
@pytest.mark.parametrize("keywords", [1, 2, 5, 12, 40])
def test_models_are_apart_centred_and_within_their_keyword(models: int, keywords: int) -> None:
    offsets = dodge_offsets(models, keywords)
    assert len(offsets) == models
    steps = [b - a for a, b in zip(offsets, offsets[1:], strict=False)]
    assert all(step > 0 for step in steps)  # in the models' order, none on another
    assert max(steps) - min(steps) == pytest.approx(0, abs=1e-9)  # evenly
    assert sum(offsets) == pytest.approx(0, abs=1e-9)  # centred on the spoke
    assert steps[0] <= MAX_STEP + 1e-9
    gap = 360.0 / keywords
    assert offsets[-1] - offsets[0] <= SPREAD * gap + 1e-9  # never drift to the next keyword


def test_the_order_is_stable_whatever_the_number_of_keywords() -> None:
    for keywords in (3, 9, 30):
        first, second = dodge_offsets(2, keywords)
        assert first < 0 < second  # the first model always before the spoke
