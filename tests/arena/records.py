"""Battles and votes written straight into a store, without models (store and export tests)."""

from __future__ import annotations

from vlmscope.arena.battles import Battle
from vlmscope.arena.config import Limits
from vlmscope.arena.safety import CheckedImage, check_image
from vlmscope.arena.shape import vote_record
from vlmscope.arena.vote_store import VoteStore


def answered_battle(
    number: int, images: tuple[CheckedImage, ...] = (), models: tuple[str, str] = ("m1", "m2")
) -> Battle:
    battle = Battle(
        battle_id=f"battle-{number}",
        question_id=f"q{number:04d}",
        session=f"voter-{number % 3}",
        model_a=models[number % 2],
        model_b=models[1 - number % 2],
        created=1_700_000_000.0 + number,
    )
    battle = battle.asked(f"question {number}", tuple(i.sha256 for i in images))
    return battle.answered_with(f"answer a{number} with **bold**", f"answer b{number}")


def store_vote(store: VoteStore, number: int, winner: str, images: tuple[bytes, ...] = ()) -> dict:
    checked = tuple(check_image(data, Limits()) for data in images)
    store.put_images(checked)
    battle = answered_battle(number, checked)
    store.save_battle(battle)
    return store.record_vote(battle, vote_record(battle, winner, 1_700_000_100.0 + number))
