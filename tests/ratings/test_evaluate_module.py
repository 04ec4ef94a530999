"""The arena_ratings evaluate module, loaded offline from its folder like a user would."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ratings.arena_golden import anony_battles, golden

evaluate = pytest.importorskip("evaluate")

MODULE_DIR = Path(__file__).resolve().parents[2] / "evaluate_metrics" / "arena_ratings"
COMPONENTS = golden("fastchat_components.json")


def _columns() -> dict[str, list[str]]:
    battles = anony_battles()
    names = battles.models
    winners = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}
    return {
        "model_a": [names[i] for i in battles.model_a],
        "model_b": [names[i] for i in battles.model_b],
        "winner": [winners[float(o)] for o in battles.outcome],
    }


def test_bt_config_reproduces_compute_bt() -> None:
    metric = evaluate.load(str(MODULE_DIR), "bt")
    result = metric.compute(
        **_columns(), rounds=10, seed=1, anchor="mixtral-8x7b-instruct-v0.1=1114"
    )
    assert set(result["models"]) == set(COMPONENTS["compute_bt"])
    for model, entry in result["models"].items():
        assert entry["rating"] == pytest.approx(COMPONENTS["compute_bt"][model], abs=0.1)
        assert entry["lower"] <= entry["rating"] <= entry["upper"]
    assert result["settings"]["rounds"] == 10


def test_elo_config_reproduces_compute_elo() -> None:
    metric = evaluate.load(str(MODULE_DIR), "elo")
    result = metric.compute(**_columns(), rounds=5)
    for model, entry in result["models"].items():
        assert entry["rating"] == pytest.approx(COMPONENTS["compute_elo"][model], abs=1e-6)


def test_weights_stand_for_repeated_rows() -> None:
    metric = evaluate.load(str(MODULE_DIR), "bt")
    rows = {
        "model_a": ["a", "b", "a", "c"],
        "model_b": ["b", "c", "c", "a"],
        "winner": ["model_a", "model_a", "tie", "model_b"],
    }
    weighted = metric.compute(**rows, weight=[2.0, 1.0, 1.0, 1.0], rounds=5)
    repeated = metric.compute(
        model_a=["a", *rows["model_a"]],
        model_b=["b", *rows["model_b"]],
        winner=["model_a", *rows["winner"]],
        rounds=5,
    )
    for model, entry in weighted["models"].items():
        assert entry["rating"] == pytest.approx(repeated["models"][model]["rating"], abs=1e-6)
        assert entry["battles"] == repeated["models"][model]["battles"]
        assert entry["win_rate"] == pytest.approx(repeated["models"][model]["win_rate"])


def test_unknown_config_is_rejected() -> None:
    with pytest.raises(KeyError, match="rating system"):
        evaluate.load(str(MODULE_DIR), "glicko")


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"model_a": ["x", 1]}, r"^index 1: field 'model_a'"),
        ({"model_a": [None, "y"]}, r"^index 0: field 'model_a'"),
        ({"winner": "model_a"}, "^winner: a list with one item per row"),
        ({"anchor": "x"}, "^anchor: expected MODEL=VALUE"),
        ({"anchor": "x=abc"}, "^anchor: 'abc' is not a number"),
        ({"anchor": "z=1000"}, "^anchor: 'z' has no battles on the board"),
        ({"rounds": "10"}, r"^rounds: expected an integer >= 1"),
        ({"seed": 1.5}, r"^seed: expected an integer >= 0"),
    ],
)
def test_bad_items_and_arguments_are_named(change: dict[str, object], named: str) -> None:
    """An int model was cast to the model "1"; a bad anchor was ignored or a bare float error."""
    metric = evaluate.load(str(MODULE_DIR), "bt")
    good = {"model_a": ["x", "y"], "model_b": ["y", "x"], "winner": ["model_a", "tie"]}
    with pytest.raises(ValueError, match=named):
        metric.compute(**{"rounds": 3, **good, **change})


def test_numpy_columns_and_integers_are_taken() -> None:
    np = pytest.importorskip("numpy")
    metric = evaluate.load(str(MODULE_DIR), "bt")
    rows = {"model_a": np.array(["x", "y"]), "model_b": ("y", "x"), "winner": ["model_a", "tie"]}
    result = metric.compute(**rows, rounds=np.int64(3), seed=np.int32(1))
    assert result["settings"]["rounds"] == 3 and set(result["models"]) == {"x", "y"}
