"""Stand-ins are recognised from the config, and a result card says what its numbers are."""

from __future__ import annotations

from vlmscope.config import parse_config
from vlmscope.runner.result_card import track_card
from vlmscope.stand_ins import StandIn, model_stand_in, run_stand_ins, stand_ins_of

CONFIG = {
    "models": [
        {"backend": "hf", "name": "tiny", "path": "x", "tiny_arch": "llava"},
        {"backend": "hf", "name": "real", "path": "org/model"},
        {"backend": "openai", "name": "api", "base_url": "http://127.0.0.1:1/v1", "model": "m"},
        {"backend": "oracle"},
    ],
    "tracks": [{"name": "probench", "judge": {"backend": "coin", "name": "coin-judge"}}],
}


def test_only_the_coin_and_random_weight_models_are_stand_ins() -> None:
    config = parse_config(CONFIG)
    tiny, real, api, oracle = config.models
    judge = config.tracks[0].judge
    assert judge is not None
    assert model_stand_in(tiny, "answers") == StandIn(
        "answers", "tiny", "a random-weight tiny llava model"
    )
    assert [model_stand_in(m, "answers") for m in (real, api, oracle)] == [None, None, None]
    coin = model_stand_in(judge, "judge")
    assert coin is not None and coin.name == "coin-judge" and coin.role == "judge"
    grader = StandIn("grader", "offline_match", "x")
    found = run_stand_ins([tiny, real, tiny], judge, [grader])
    assert [s.name for s in found] == ["tiny", "coin-judge", "offline_match"]  # each once
    assert stand_ins_of([s.to_json() for s in found]) == tuple(found)
    assert stand_ins_of(None) == ()


def test_a_card_states_metrics_scales_judge_stand_ins_and_note() -> None:
    summary = {"F": 0.5, "grader": {"protocol": "offline_match (not the paper's LLM grading)"}}
    grader = StandIn("grader", "offline_match", "the gold answer looked up in the response")
    card = track_card("simplevqa", summary, [grader], "What these numbers mean: nothing.")
    assert "SimpleVQA: CO, NA and IN" in card and "Headline numbers: F, CGA." in card
    assert "fractions here" in card and "percentages (x100)" in card
    assert "Graded by offline_match (not the paper's LLM grading)." in card
    assert "- grades by `offline_match`: the gold answer looked up in the response" in card
    assert card.endswith("What these numbers mean: nothing.")
    plain = track_card("megabench", {"core": 1.0}, [], "")
    assert "measure nothing" not in plain and "No judge" in plain and "Note" not in plain


def test_each_judge_of_a_panel_is_named_and_its_sources_checked() -> None:
    from vlmscope.runner.model_sources import model_entries

    panel = [
        {"backend": "coin", "name": "coin-a"},
        {"backend": "hf", "name": "tiny-judge", "path": "x", "tiny_arch": "llava"},
        {"backend": "hf", "name": "real-judge", "path": "org/judge"},
    ]
    config = parse_config({**CONFIG, "tracks": [{"name": "probench", "judge": panel}]})
    found = run_stand_ins([], config.tracks[0].judge, [])
    assert [(s.role, s.name) for s in found] == [("judge", "coin-a"), ("judge", "tiny-judge")]
    judges = [(field, m.name) for field, m in model_entries(config) if "judge" in field]
    assert judges == [
        ("tracks.0.judge.judges.0", "coin-a"),
        ("tracks.0.judge.judges.1", "tiny-judge"),
        ("tracks.0.judge.judges.2", "real-judge"),
    ]
