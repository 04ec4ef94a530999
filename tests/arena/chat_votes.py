"""A vote store of answered battles with a drawing each, for the Chat export and the benches
built from it: `votes` one-turn battles in English, one two-turn battle and one in French."""

from __future__ import annotations

import io
import random
from pathlib import Path

from tests.arena.records import answered_battle
from tests.visionarena.planted_chats import GROUPS, drawing
from vlmscope.arena.config import Limits
from vlmscope.arena.safety import check_image
from vlmscope.arena.shape import vote_record
from vlmscope.arena.vote_store import VoteStore

FIRST_VOTE = 1_730_000_000.0


def fill_store(path: Path, votes: int) -> VoteStore:
    rng = random.Random(3)
    store = VoteStore(path)
    colours = [colour for colour, _ in GROUPS.values()]
    for number in range(votes + 2):
        buffer = io.BytesIO()
        drawing(colours[number % len(colours)], rng).save(buffer, "PNG")
        image = check_image(buffer.getvalue(), Limits())
        store.put_images([image])
        battle = answered_battle(number, (image,))
        if number == votes:
            battle = battle.asked("and then?", ()).answered_with("more a", "more b")
        language = "French" if number == votes + 1 else "English"
        store.save_battle(battle)
        store.record_vote(battle, vote_record(battle, "tie", FIRST_VOTE + number, language))
    return store


def arena_config(folder: Path, store: VoteStore) -> Path:
    """An arena config naming `store` (its contestants are never asked)."""
    config = folder / "arena.yaml"
    model = "{backend: openai, name: %s, base_url: 'http://127.0.0.1:1/v1', model: m}"
    config.write_text(
        f"contestants: [{model % 'm1'}, {model % 'm2'}]\nstore: {{path: '{store.path}'}}\n"
    )
    return config
