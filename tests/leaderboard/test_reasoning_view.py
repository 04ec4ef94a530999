"""The Space shows a thinking model's traces folded beside its answers and counts the replies
cut off inside them, from the results of a real `vlmscope run` (an inline-thinking server)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.reasoning.runs import gold_answers, vlmscope_run
from tests.reasoning.stubs import WRONG, InlineThinking, Thinker
from tests.servers import OpenAIStub
from vlmscope.leaderboard import browsed_samples as sv
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.overview import CUT_OFF, overview_frame
from vlmscope.leaderboard.result_store import ResultStore


def test_traces_are_folded_and_cut_off_replies_counted(
    tmp_path: Path, space_app: tuple[ModuleType, ModuleType, ModuleType]
) -> None:
    replier = InlineThinking(Thinker())
    with OpenAIStub(replier) as stub:
        model = {"backend": "openai", "name": "thinker", "base_url": stub.base_url, "model": "m"}
        raw = {
            "output_dir": str(tmp_path / "results"),
            "models": [model, {"backend": "oracle"}],
            "tracks": [{"name": "simplevqa", "options": {"grader": "offline_match"}}],
        }
        replier.thinker = gold_answers(raw, "thinker", cut="图中显示的数字是多少？")
        assert vlmscope_run(tmp_path, raw)[0] == 0
    store = ResultStore(ResultsLocation.local(tmp_path / "results"))

    frame = overview_frame(store.summaries, store.boards).set_index("Model")
    assert frame.loc["thinker", CUT_OFF] == 1 and frame.loc["oracle", CUT_OFF] == 0
    assert list(frame.columns[-4:]) == [CUT_OFF, "Failed", "Unparseable", "Other flags"]

    rows = store.details("simplevqa", "thinker")
    labels = [label for label, _ in sv.sample_choices(rows, sv.ALL_TASKS)]
    assert [label.endswith("[cut off in reasoning]") for label in labels] == [False, True]

    browser = space_app[2].SampleBrowser(store, {})
    answered = browser.show("simplevqa", "thinker", rows[0]["sample_id"])
    fold, trace = answered[-2:]
    assert fold["visible"] and fold["label"].startswith("Reasoning trace (")
    assert "estimated" in fold["label"] and trace == WRONG
    assert answered[4] != "" and WRONG not in answered[4]  # the response box: the answer only
    cut = browser.show("simplevqa", "thinker", rows[1]["sample_id"])
    assert (
        cut[-2]["label"].endswith("cut off: no answer)") and "ended inside its reasoning" in cut[0]
    )
    plain = browser.show("simplevqa", "oracle", rows[0]["sample_id"])
    assert plain[-2]["visible"] is False and plain[-1] == ""
