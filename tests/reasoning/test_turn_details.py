"""`earlier_turns` round trip: what the details keep of earlier turns is what a rejudge restores."""

from __future__ import annotations

import json

from vlmscope.messages import Response, Status, Usage
from vlmscope.runner.rejudge import _row_answers
from vlmscope.runner.turn_details import earlier_turns


def test_a_rejudge_restores_earlier_turns_with_their_traces() -> None:
    turns = [
        Response(text="first", reasoning="thought one", usage=Usage(reasoning_tokens=5)),
        Response(
            text="", status=Status.REQUEST_FAILED, reasoning="cut", truncated_in_reasoning=True
        ),
        Response(text="last", reasoning="thought three"),
    ]
    kept = earlier_turns(turns)
    assert [t["answer"] for t in kept] == ["first", ""]  # the last is the row's own response
    row = {"response": "last", "reasoning": "thought three", "earlier_turns": kept,
           "extra": json.dumps({"turns": [{"answer": "stale"}] * 3})}  # fmt: skip
    restored = _row_answers(row)
    assert [(r.text, r.reasoning) for r in restored] == [
        ("first", "thought one"), ("", "cut"), ("last", "thought three")
    ]  # fmt: skip
    assert restored[0].usage.reasoning_tokens == 5
    assert restored[1].status is Status.REQUEST_FAILED and restored[1].truncated_in_reasoning


def test_details_without_the_column_restore_answers_from_the_tracks_turns() -> None:
    row = {"response": "last", "extra": json.dumps({"turns": [{"answer": "a"}, {"answer": "b"}]})}
    assert [r.text for r in _row_answers(row)] == ["a", "last"]
