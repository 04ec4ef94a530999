"""Two games with positions swapped, one nudge when a verdict is missing, verdicts never ties."""

import asyncio

from vlmscope.cache import ResponseCache
from vlmscope.judges.client import Judge
from vlmscope.judges.pairwise import judge_pair, load_pairwise_template
from vlmscope.judges.verdicts import VerdictOutcome
from vlmscope.messages import Response, failed, user_request
from vlmscope.models.base import SyncBackend

TEMPLATE = load_pairwise_template("visionarena_bench_judge.txt")
QUESTION = user_request(b"\x89PNG-fake", "What colour is the square?")


class ScriptedJudge(SyncBackend):
    name = "scripted"
    identity = {"backend": "scripted"}

    def __init__(self, script):
        super().__init__()
        self.script = script
        self.requests = []

    def generate(self, requests, on_done=None):
        self.requests.extend(requests)
        return [Response(self.script(r)) for r in requests]


def run(script, tmp_path, model="red", baseline="blue"):
    backend = ScriptedJudge(script)
    judge = Judge(backend, ResponseCache(tmp_path / "c.sqlite"))
    games = asyncio.run(
        judge_pair(judge, TEMPLATE, question=QUESTION, model_answer=model, baseline_answer=baseline)
    )
    return games, backend


def answer_of(request, letter):
    text = request.turns[0].text
    start = text.index(f"<|The Start of Assistant {letter}'s Answer|>\n") + len(
        f"<|The Start of Assistant {letter}'s Answer|>\n"
    )
    return text[start : text.index(f"\n<|The End of Assistant {letter}'s Answer|>")]


def test_positions_swapped_and_template_used(tmp_path):
    games, backend = run(lambda r: "A is right: [[A>B]]", tmp_path)
    first, second = backend.requests
    assert (answer_of(first, "A"), answer_of(first, "B")) == ("blue", "red")  # baseline as A first
    assert (answer_of(second, "A"), answer_of(second, "B")) == ("red", "blue")
    assert first.system.startswith("Please act as an impartial judge")
    assert len(first.images) == 1  # the prompt's image goes to the judge
    assert [g.model_first for g in games] == [False, True]
    assert [g.verdict.label for g in games] == ["A>B", "A>B"]


def test_missing_verdict_gets_one_nudge_and_texts_are_joined(tmp_path):
    def script(request):
        return "[[B>>A]] after all" if len(request.turns) == 3 else "Both answers are fine."

    games, backend = run(script, tmp_path)
    assert len(backend.requests) == 4
    nudge = backend.requests[1]
    assert [t.role for t in nudge.turns] == ["user", "assistant", "user"]
    assert nudge.turns[1].text == "Both answers are fine."
    assert (
        nudge.turns[2].text
        == "continue your judgment and finish by outputting a final verdict label"
    )
    # arena-hard-auto v0.1 records each reply after a newline
    assert games[0].nudged and games[0].judgment == "\nBoth answers are fine.\n[[B>>A]] after all"
    assert games[0].verdict.label == "B>>A"


def test_still_no_verdict_or_two_labels_is_unparseable_not_a_tie(tmp_path):
    games, backend = run(
        lambda r: (
            "[[A>B]] or maybe [[B>A]]"
            if "red\n<|The End of Assistant A" in r.turns[0].text
            else "no idea"
        ),
        tmp_path,
    )
    assert games[0].verdict.outcome is VerdictOutcome.NO_LABEL and games[0].nudged
    assert games[1].verdict.outcome is VerdictOutcome.CONFLICTING_LABELS and not games[1].nudged
    assert all(g.verdict.label is None for g in games)


def test_judgments_are_cached(tmp_path):
    calls = []
    run(lambda r: calls.append(1) or "[[A=B]]", tmp_path)
    run(lambda r: calls.append(1) or "[[A=B]]", tmp_path)
    assert len(calls) == 2  # the second run is answered from the cache


class FailingAfter(ScriptedJudge):
    """Fails every request with `turns` turns (arena-hard-auto v0.1 crashes on such a reply,
    joining `None` to its judgment text); answers the others from `script`."""

    def __init__(self, script, turns):
        super().__init__(script)
        self.turns = turns

    def generate(self, requests, on_done=None):
        self.requests.extend(requests)
        return [
            failed("no content") if len(r.turns) == self.turns else Response(self.script(r))
            for r in requests
        ]


def test_a_failed_reply_is_no_judgment_and_a_failed_nudge_keeps_the_first_text(tmp_path):
    for turns, expected in ((1, None), (3, "\nthinking")):
        backend = FailingAfter(lambda r: "thinking", turns)
        judge = Judge(backend, ResponseCache(tmp_path / f"{turns}.sqlite"))
        games = asyncio.run(
            judge_pair(judge, TEMPLATE, question=QUESTION, model_answer="a", baseline_answer="b")
        )
        assert [g.judgment for g in games] == [expected, expected]
        assert all(g.error == "no content" and g.verdict.label is None for g in games)
        outcome = VerdictOutcome.NO_JUDGMENT if turns == 1 else VerdictOutcome.NO_LABEL
        assert all(g.verdict.outcome is outcome for g in games)
        assert len(backend.requests) == (2 if turns == 1 else 4)
