"""`walk_conversations`: how far each multi-turn sample got, and what to ask next."""

from __future__ import annotations

from vlmscope.messages import Request, Response, TextPart, failed, user_request
from vlmscope.tracks.base import FollowUp, Sample
from vlmscope.tracks.conversation import reference_turns, walk_conversations


def _sample(n_followups: int, sample_id: str = "s") -> Sample:
    return Sample(
        sample_id,
        user_request("turn 1"),
        reference="ref 1",
        followups=tuple(FollowUp(f"turn {k}", f"ref {k}") for k in range(2, n_followups + 2)),
    )


def _texts(request: Request) -> list[tuple[str, str]]:
    return [(t.role, t.text) for t in request.turns]


def test_each_turn_carries_the_models_own_earlier_answers() -> None:
    answers = {1: "mine 1", 2: "mine 2"}

    def lookup(requests: list[Request]) -> list[Response | None]:
        out: list[Response | None] = []
        for r in requests:
            turn = sum(t.role == "user" for t in r.turns)
            out.append(Response(answers[turn]) if turn in answers else None)
        return out

    (conversation,) = walk_conversations([_sample(3)], lookup)
    assert [r.text for r in conversation.responses] == ["mine 1", "mine 2"]
    assert conversation.next_request is not None
    assert _texts(conversation.next_request) == [
        ("user", "turn 1"),
        ("assistant", "mine 1"),
        ("user", "turn 2"),
        ("assistant", "mine 2"),
        ("user", "turn 3"),
    ]


def test_a_failed_turn_ends_the_conversation_and_a_complete_one_asks_nothing() -> None:
    def fail_second(requests: list[Request]) -> list[Response | None]:
        return [
            failed("boom") if len(r.turns) == 3 else Response(f"a{len(r.turns)}") for r in requests
        ]

    stopped, single = walk_conversations([_sample(2, "x"), _sample(0, "y")], fail_second)
    assert [r.ok for r in stopped.responses] == [True, False]
    assert stopped.next_request is None and stopped.final is not None and not stopped.final.ok
    assert [r.text for r in single.responses] == ["a1"] and single.next_request is None


def test_reference_turns_follow_the_oracles_own_answers() -> None:
    turns = reference_turns(_sample(2))
    assert [reference for _, reference in turns] == ["ref 1", "ref 2", "ref 3"]
    last_request = turns[-1][0]
    assert _texts(last_request)[1] == ("assistant", "ref 1")
    assert _texts(last_request)[3] == ("assistant", "ref 2")
    assert isinstance(last_request.turns[-1].parts[0], TextPart)
