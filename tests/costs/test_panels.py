"""Judge panels: several judges per judge request, their verdicts kept, their aggregate scored.

ProBench judged by a panel of three: the stand-in server's judge (always `A>B`), a coin that
always says `B>A` and one that always says `A>B`. The majority is `A>B`, which is what the
track scores; each member's verdict is kept in the details and its agreement with the panel
reported in the summary. A judge asked twice per request that changes its mind is reported
unstable; one that does not, stable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.costs.runs import api_model, details, summary, vlmscope_run, write_config
from tests.servers import Call, OpenAIStub, Reply
from vlmscope.config import ConfigError, parse_config
from vlmscope.judges.panel import aggregate_verdicts, most_common
from vlmscope.judges.panel_codecs import JudgeScores, PairwiseLabels
from vlmscope.runner.plan import plan_tracks


def always(label: str, name: str) -> dict[str, Any]:
    return {"backend": "coin", "name": name, "labels": [label]}


def fickle(call: Call) -> Reply:
    """A judge that says A>B the first time it sees a conversation and B>A the next."""
    if "[[A" in json.dumps(call.body):
        return Reply(text="[[A>B]]" if call.attempt == 1 else "[[B>A]]")
    return Reply(text="A careful answer.")


def probench_run(tmp_path: Path, stub: OpenAIStub, judge: Any) -> Path:
    raw = {
        "output_dir": str(tmp_path / "out"),
        "models": [api_model(stub, "stub-model")],
        "tracks": [{"name": "probench", "subset": "singleround", "judge": judge,
                    "options": {"bootstrap_rounds": 10}}],
    }  # fmt: skip
    assert vlmscope_run(write_config(tmp_path, raw)) == 0
    return tmp_path / "out"


def test_a_panel_scores_its_majority_and_keeps_each_verdict(tmp_path: Path) -> None:
    with OpenAIStub(fickle) as stub:
        panel = {"judges": [api_model(stub, "server-judge", "judge-stub"),
                            always("B>A", "coin-no"), always("A>B", "coin-yes")],
                 "min_valid": 2}  # fmt: skip
        out = probench_run(tmp_path, stub, panel)
    rows = details(out, "stub-model", "probench")
    assert rows
    for row in rows:
        games = json.loads(row["extra"])["games"]
        assert [g["label"] for g in games] == ["A>B", "A>B"]  # the majority, in both games
        judged = [c for c in row["calls"] if c["phase"] == "judge"]
        assert {c["model"] for c in judged} == {"server-judge", "coin-no", "coin-yes"}
        assert len(judged) == 6  # two games, three judges
        by_judge = {c["model"]: c["verdict"] for c in judged}
        assert by_judge == {"server-judge": "A>B", "coin-no": "B>A", "coin-yes": "A>B"}
        assert {c["panel_verdict"] for c in judged} == {"A>B"}
        assert {c["panel"] for c in judged} == {"panel:server-judge+coin-no+coin-yes"}
    facts = summary(out, "stub-model", "probench", 2)["panel"]
    members = facts["members"]
    assert members["server-judge"]["agreement"] == members["coin-yes"]["agreement"] == 1.0
    assert members["coin-no"]["agreement"] == 0.0
    assert facts["asks"] == 2 * len(rows) and facts["without_verdict"] == 0
    described = summary(out, "stub-model", "probench", 2)["judge"]
    assert described["aggregate"] == "majority" and len(described["panel"]) == 3


def test_repeats_report_how_stable_each_judge_is(tmp_path: Path) -> None:
    with OpenAIStub(fickle) as stub:
        panel = {"judges": [api_model(stub, "fickle-judge", "judge-stub"), always("A>B", "coin")],
                 "repeats": 2}  # fmt: skip
        out = probench_run(tmp_path, stub, panel)
        judge_calls = [c for c in stub.calls if (c.body or {}).get("model") == "judge-stub"]
    rows = details(out, "stub-model", "probench")
    assert len(judge_calls) == 2 * 2 * len(rows)  # two games, each asked twice
    members = summary(out, "stub-model", "probench", 2)["panel"]["members"]
    assert members["fickle-judge"]["stability"] == 0.0
    assert members["fickle-judge"]["repeated_asks"] == 2 * len(rows)
    assert members["coin"]["stability"] == 1.0


def half_mute(call: Call) -> Reply:
    """A judge without a verdict whenever the model's answer is shown first."""
    if "[[A" not in json.dumps(call.body):
        return Reply(text="A careful answer.")
    shown_first = "Assistant A's Answer:\n<a/>\n['A careful answer.']" in call.prompt
    return Reply(text="no idea" if shown_first else "[[A>B]]")


def test_too_few_verdicts_leave_the_item_unparseable(tmp_path: Path) -> None:
    with OpenAIStub(half_mute) as stub:
        panel = {"judges": [api_model(stub, "half-mute", "judge-stub"), always("A>B", "coin")],
                 "min_valid": 2}  # fmt: skip
        out = probench_run(tmp_path, stub, panel)
    for row in details(out, "stub-model", "probench"):
        assert row["outcome"] == "judge_unparseable"
        first, second = json.loads(row["extra"])["games"]
        assert (first["label"], first["attempts"]) == ("A>B", 1)
        # one verdict of two, below min_valid: none, asked again as ProBench asks a judge
        assert (second["outcome"], second["attempts"]) == ("no_label", 3)
        assert "1 of 2 judges gave one" in second["judgment"]
    facts = summary(out, "stub-model", "probench", 2)["panel"]
    assert facts["without_verdict"] == 2 * 3  # each row's second game, asked three times
    assert facts["asks"] == 2 * (1 + 3)


def test_aggregates() -> None:
    labels = PairwiseLabels()
    assert aggregate_verdicts(["A>>B", "B>A", None], labels, "mean", 2) == "A>B"  # (2-1)/2
    assert aggregate_verdicts(["A>>B", "B>>A"], labels, "mean", 1) == "A=B"
    assert aggregate_verdicts(["B>A", "A>B", "A>B"], labels, "majority", 1) == "A>B"
    assert aggregate_verdicts(["B>A", "A>B"], labels, "majority", 1) == "B>A"  # tie: first
    assert aggregate_verdicts(["A>B", None], labels, "majority", 2) is None
    assert aggregate_verdicts(["7", "8", "3"], JudgeScores(), "mean", 1) == "6"
    assert most_common(["x", "y", "y"]) == "y"
    assert labels.read("so [[B<A]] then") == "A>B"  # a mirrored spelling is what it means
    assert labels.read("[[A>B]] or [[B>A]]") is None  # conflicting labels: no verdict
    assert labels.read(labels.write("B>>A")) == "B>>A"
    assert JudgeScores().read("**Score**: 7 and **Score**: 2") == "7"


def test_a_panel_is_refused_where_it_cannot_work() -> None:
    def planned(track: dict[str, Any]) -> None:
        plan_tracks(parse_config({"models": [{"backend": "oracle"}], "tracks": [track]}))

    panel = [always("A", "a"), always("B", "b")]
    with pytest.raises(ConfigError, match=r"tracks.0.judge.aggregate: mean needs verdicts"):
        planned({"name": "simplevqa", "judge": {"judges": panel, "aggregate": "mean"}})
    with pytest.raises(ConfigError, match="the colours track takes one judge, not a panel"):
        planned({"name": "colours", "judge": panel})
    with pytest.raises(ConfigError, match=r"tracks.0.judge: min_valid: 3 is more than the 2"):
        parse_config({"models": [{"backend": "oracle"}],
                      "tracks": [{"name": "probench", "judge": {"judges": panel, "min_valid": 3}}]})  # fmt: skip
    with pytest.raises(ConfigError, match=r"tracks\.0\.judge\.judges\.1\.base_url \(openai model"):
        parse_config({"models": [{"backend": "oracle"}],
                      "tracks": [{"name": "probench",
                                  "judge": [always("A", "a"), {"backend": "openai", "name": "x", "model": "m"}]}]})  # fmt: skip
