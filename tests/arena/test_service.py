"""The arena's rules end to end against two streaming stub models: a battle is answered side by
side, continued with each side's own history, voted on once by the session it was shown to, and
stored in the battle shape; forged, early, repeated and refused requests change nothing."""

from __future__ import annotations

import threading

import pytest

from tests.arena.conftest import NAMES, Clock, MakeArena, png
from tests.arena.drive import ask
from tests.arena.sse_stub import SSEStub
from vlmscope.arena import service
from vlmscope.arena.safety import Refused


def test_a_battle_streams_both_answers_then_takes_one_vote(make_arena: MakeArena) -> None:
    arena = make_arena()
    updates = ask(arena, "What colour is this?", images=[png()])
    last = updates[-1]
    assert last.done and not (last.failed_a or last.failed_b)
    assert len(updates) > 3  # streamed in pieces, not one final answer
    answers = {last.text_a, last.text_b}
    assert any(a.startswith("zeta answer 1: What colour is this?") for a in answers)
    assert any(a.startswith("omega answer 1") for a in answers)
    assert not any(name in u.text_a + u.text_b for u in updates for name in NAMES)

    reveal = arena.vote("session-1", "10.0.0.1", last.battle_id, "model_b")
    assert {reveal.model_a, reveal.model_b} == set(NAMES)
    assert reveal.stored_now and reveal.winner == "model_b"
    [stored] = arena.store.votes()
    record = stored.record
    assert record["winner"] in service.WINNERS and record["winner"] == "model_b"
    assert (record["model_a"], record["model_b"]) == (reveal.model_a, reveal.model_b)
    assert record["conversation_a"][1]["content"] == last.text_a
    assert record["conversation_b"][1]["content"] == last.text_b
    assert record["num_turns"] == 1 and record["anony"] is True
    assert record["language"] == "English"  # of the first prompt, named as VisionArena does
    assert len(record["images"]) == 1 and len(record["images"][0]) == 64
    assert record["judge"] != "session-1"  # the voter is an anonymous hash
    omega = "a" if record["model_a"] == NAMES[1] else "b"
    assert record["conv_metadata"][f"bold_count_{omega}"]["**"] == 1
    assert record["conv_metadata"][f"list_count_{omega}"]["unordered"] == 1


def test_each_side_keeps_its_own_history(
    make_arena: MakeArena, stubs: tuple[SSEStub, SSEStub]
) -> None:
    arena = make_arena()
    first = ask(arena, "Describe it.", images=[png("blue")])[-1]
    second = ask(arena, "And the border?", battle_id=first.battle_id)[-1]
    assert second.battle_id == first.battle_id and second.done
    for stub in stubs:
        body = stub.bodies[-1]
        roles = [m["role"] for m in body["messages"]]
        assert roles == ["user", "assistant", "user"]
        own_answer = body["messages"][1]["content"]
        assert own_answer in (first.text_a, first.text_b)
        assert own_answer.startswith("zeta" if stub is stubs[0] else "omega")
        assert body["stream"] is True
        assert body["messages"][0]["content"][0]["type"] == "image_url"
    arena.vote("session-1", "10.0.0.1", first.battle_id, "tie")
    record = arena.store.votes()[0].record
    assert record["num_turns"] == 2
    assert [m["role"] for m in record["conversation_a"]] == ["user", "assistant"] * 2
    assert record["conversation_a"][3]["content"] == second.text_a


def test_a_forged_vote_is_refused_and_stores_nothing(make_arena: MakeArena) -> None:
    arena = make_arena()
    battle_id = ask(arena, "hello", session="owner")[-1].battle_id
    for session, forged in (("intruder", battle_id), ("owner", "made-up-id"), ("owner", None)):
        with pytest.raises(Refused):
            arena.vote(session, "10.0.0.9", forged, "model_a")
    with pytest.raises(Refused, match="not shown to you"):
        ask(arena, "take over", session="intruder", battle_id=battle_id)
    with pytest.raises(Refused, match="no session"):  # a request without a session owns nothing
        arena.vote("", "10.0.0.9", battle_id, "model_a")
    assert arena.store.vote_count() == 0
    arena.vote("owner", "10.0.0.1", battle_id, "model_a")
    with pytest.raises(Refused, match="not shown to you"):
        arena.vote("intruder", "10.0.0.9", battle_id, "model_b")
    assert [v.record["winner"] for v in arena.store.votes()] == ["model_a"]


def test_a_repeated_vote_is_stored_once_and_the_first_stands(make_arena: MakeArena) -> None:
    arena = make_arena()
    battle_id = ask(arena, "hello")[-1].battle_id
    first = arena.vote("session-1", "10.0.0.1", battle_id, "model_a")
    again = arena.vote("session-1", "10.0.0.1", battle_id, "model_b")
    assert first.stored_now and not again.stored_now
    assert again.winner == "model_a"
    assert arena.store.vote_count() == 1
    with pytest.raises(Refused, match="voted on"):
        ask(arena, "more", battle_id=battle_id)


def test_no_vote_before_both_answers_and_none_after_a_failure(make_arena: MakeArena) -> None:
    arena = make_arena()
    battle = arena.open_message("session-1", "10.0.0.1", None, "unanswered")
    with pytest.raises(Refused, match="Both answers"):
        arena.vote("session-1", "10.0.0.1", battle.battle_id, "model_a")
    with SSEStub(lambda m: "", fail=True) as down:
        retries = {"max_retries": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.05}
        broken = make_arena(
            contestants=[
                {"backend": "openai", "name": name, "base_url": down.base_url, "model": "m"}
                | retries
                for name in NAMES
            ]
        )
        last = ask(broken, "anyone?")[-1]
        assert len(down.bodies) == 2 * 3  # each side: the first attempt and its two retries
    assert last.done and last.failed_a and last.failed_b
    assert not any(name in last.text_a + last.text_b for name in NAMES)
    with pytest.raises(Refused, match="failed"):
        broken.vote("session-1", "10.0.0.1", last.battle_id, "model_a")


def test_moderation_hook_refuses_before_any_model_is_asked(
    make_arena: MakeArena, stubs: tuple[SSEStub, SSEStub]
) -> None:
    arena = make_arena(moderation="tests.arena.moderation_hook:refuse_forbidden")
    before = [len(s.bodies) for s in stubs]
    with pytest.raises(Refused, match="forbidden word"):
        ask(arena, "tell me the FORBIDDEN thing")
    assert [len(s.bodies) for s in stubs] == before
    assert ask(arena, "an allowed question")[-1].done


def test_rate_limits_per_session_and_per_address(make_arena: MakeArena) -> None:
    clock = Clock()
    arena = make_arena(
        clock=clock,
        limits={"asks_per_session": 2, "asks_per_ip": 3, "window_s": 60},
    )
    ask(arena, "one", session="s1", ip="1.1.1.1")
    ask(arena, "two", session="s1", ip="1.1.1.1")
    with pytest.raises(Refused, match="this session"):
        ask(arena, "three", session="s1", ip="1.1.1.1")
    ask(arena, "four", session="s2", ip="1.1.1.1")
    with pytest.raises(Refused, match="this ip"):
        ask(arena, "five", session="s3", ip="1.1.1.1")
    ask(arena, "six", session="s3", ip="2.2.2.2")  # another address is not limited
    clock.now += 61
    assert ask(arena, "seven", session="s1", ip="1.1.1.1")[-1].done


def test_a_refused_answer_is_retried_before_anything_is_shown(make_arena: MakeArena) -> None:
    """Two 429s (Retry-After 0) before the stream starts: the page never sees them, the third
    attempt streams, and the vote is taken as usual."""
    with (
        SSEStub(lambda m: "busy then fine", refuse_first=2) as busy,
        SSEStub(lambda m: "at once") as ready,
    ):
        retries = {"max_retries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.05}
        arena = make_arena(
            contestants=[
                {"backend": "openai", "name": NAMES[0], "base_url": busy.base_url, "model": "m"}
                | retries,
                {"backend": "openai", "name": NAMES[1], "base_url": ready.base_url, "model": "m"}
                | retries,
            ]
        )
        last = ask(arena, "What colour is this?")[-1]
        assert (len(busy.bodies), len(ready.bodies)) == (3, 1)
    assert last.done and not (last.failed_a or last.failed_b)
    assert {last.text_a, last.text_b} == {"busy then fine", "at once"}
    assert arena.vote("session-1", "10.0.0.1", last.battle_id, "tie").stored_now


def test_a_key_variable_that_is_not_set_fails_the_side_and_sends_nothing(
    make_arena: MakeArena, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_TEST_UNSET_KEY", raising=False)
    with SSEStub(lambda m: "never asked") as keyed:
        arena = make_arena(
            contestants=[
                {"backend": "openai", "name": NAMES[0], "base_url": keyed.base_url,
                 "model": "m", "api_key_env": "ARENA_TEST_UNSET_KEY"},
                {"backend": "openai", "name": NAMES[1], "base_url": keyed.base_url,
                 "model": "m"},
            ]
        )  # fmt: skip
        last = ask(arena, "anyone?")[-1]
        assert len(keyed.bodies) == 1  # only the side without a key variable was asked
    assert last.done and (last.failed_a != last.failed_b)
    assert {last.text_a, last.text_b} == {"", "never asked"}


def test_a_message_racing_a_vote_waits_for_it_and_is_refused(
    make_arena: MakeArena, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A vote and a next message on one battle at the same moment (a double submit, a second
    tab): the message waits until the vote is stored, then is refused; the voted battle keeps
    the conversation it was voted on."""
    arena = make_arena()
    battle_id = ask(arena, "first question")[-1].battle_id
    outcome: dict[str, object] = {}

    def message() -> None:
        try:
            arena.open_message("session-1", "10.0.0.1", battle_id, "second question")
        except Refused as refusal:
            outcome["refused"] = str(refusal)

    racer = threading.Thread(target=message)
    language = service.prompt_language

    def mid_vote(text: str) -> str:  # the vote has read the battle and not yet stored it
        racer.start()
        racer.join(timeout=0.5)
        outcome["waited"] = racer.is_alive()
        return language(text)

    monkeypatch.setattr(service, "prompt_language", mid_vote)
    assert arena.vote("session-1", "10.0.0.1", battle_id, "model_a").stored_now
    racer.join()
    assert outcome == {"waited": True, "refused": "This battle has been voted on; start a new one."}
    stored = arena.store.battle(battle_id)
    assert stored is not None and stored.winner == "model_a" and len(stored.exchanges) == 1


def test_an_answer_with_a_lone_surrogate_is_stored_and_votable(make_arena: MakeArena) -> None:
    """JSON lets a server stream half of a surrogate pair (`"\\ud83d"`), which UTF-8 cannot
    hold: it is stored as U+FFFD rather than failing the save after the answer was shown."""
    with SSEStub(lambda m: "a broken \ud83d emoji") as odd:
        arena = make_arena(
            contestants=[
                {"backend": "openai", "name": name, "base_url": odd.base_url, "model": "m"}
                for name in NAMES
            ]
        )
        last = ask(arena, "anything?")[-1]
    assert last.done and not (last.failed_a or last.failed_b)
    assert last.text_a == last.text_b == "a broken \ufffd emoji"
    assert arena.vote("session-1", "10.0.0.1", last.battle_id, "tie").stored_now
    assert arena.store.votes()[0].record["conversation_a"][1]["content"] == last.text_a
    assert service.storable("\ud83d\ude00") == "\U0001f600"  # halves from two pieces, joined
