"""A reply cut off inside its reasoning is reported with the limit it ran into and the field
that raises it: "raise the token limit" named neither, and a model's own cap and a track's
limit are raised in different places."""

from __future__ import annotations

from vlmscope.runner.table import limit_advice


def test_a_model_cap_below_the_tracks_limit_is_named() -> None:
    advice = limit_advice(
        {"track_max_new_tokens": [512], "model_max_new_tokens": 16, "max_new_tokens": [16]}
    )
    assert advice.startswith("the model's max_new_tokens: 16 cut the track's limit of 512")


def test_the_tracks_own_limit_names_its_option() -> None:
    advice = limit_advice(
        {"track_max_new_tokens": [4096], "model_max_new_tokens": None, "max_new_tokens": [4096]}
    )
    assert advice.startswith("the track's limit of 4096 tokens counts the reasoning")
    assert "options.max_new_tokens" in advice and "enable_thinking: false" in advice
    # a cap at or above the track's limit lowered nothing: the track's limit is the one
    high = {"track_max_new_tokens": [512], "model_max_new_tokens": 4096, "max_new_tokens": [512]}
    assert limit_advice(high).startswith("the track's limit of 512 tokens")
