"""A pairwise track end to end on the runner, judged through a local OpenAI-compatible server."""

import json
import re

from tests.servers import OpenAIStub
from vlmscope.config import parse_config
from vlmscope.hub_export import load_folder
from vlmscope.runner.loop import run


def judge_prefers_red(call):
    """The contender model always answers red; the judge prefers whichever answer says red and
    says nothing useful about the green prompts (-> nudge, then still unparseable)."""
    if call.body and call.body.get("model") == "contender":
        return "red"
    text = call.prompt if call.body is None else call.body["messages"][-1]["content"]
    if isinstance(text, list):
        text = next(p["text"] for p in text if p["type"] == "text")
    if "continue your evaluation" in str(text):
        return "Still undecided."
    a = re.search(r"Assistant A's Answer\|>\n(.*)\n<\|The End", text).group(1)
    b = re.search(r"Assistant B's Answer\|>\n(.*)\n<\|The End", text).group(1)
    if "green" in (a, b):
        return "Hard to say."
    if a == b:
        return "Same: [[A=B]]"
    return "[[A>>B]]" if a == "red" else "[[B>A]]"


def test_pairwise_track_rates_against_the_baseline(tmp_path):
    with OpenAIStub(judge_prefers_red) as stub:
        config = parse_config(
            {
                "output_dir": str(tmp_path),
                "models": [
                    {"backend": "oracle", "name": "baseline"},
                    {
                        "backend": "openai",
                        "name": "contender",
                        "base_url": stub.base_url,
                        "model": "contender",
                    },
                ],
                "tracks": [
                    {
                        "name": "tests.pairwise_track:ColourPairwiseTrack",
                        "judge": {
                            "backend": "openai",
                            "name": "judge",
                            "base_url": stub.base_url,
                            "model": "judge",
                            "max_retries": 1,
                        },
                        "options": {"baseline": "baseline", "bootstrap_rounds": 20},
                    }
                ],
            }
        )
        report = run(config)
    baseline, contender = (t.summary for t in report.tracks)
    # the baseline against itself: identical answers -> ties, except the green prompts (unparseable)
    assert baseline["judged_prompts"] == 8
    assert baseline["outcomes"] == {"ok": 6, "judge_unparseable": 2}
    assert baseline["unparseable_games"] == 4
    assert abs(baseline["win_rate"] - 50.0) < 1e-6
    # always "red": ties on red prompts, strong wins on blue and yellow, green unparseable
    assert (
        contender["win_rate"] >= 80
        and contender["lower"] <= contender["rating"] <= contender["upper"]
    )
    assert contender["ratings"]["baseline"]["win_rate"] == 50.0
    details = load_folder(report.tracks[1].result_dir, "details")
    extra = [json.loads(e) for e in details["extra"]]
    assert all(len(e["games"]) == 2 for e in extra if "games" in e)
    assert any(g["nudged"] for e in extra for g in e.get("games", []))
