"""The arena's server side: battles asked, answered, continued and voted on, every rule checked.

The Space binds its controls to `Arena.open_message` (then `Arena.answer`) and `Arena.vote`
and keeps nothing but the battle id, in its server-side session state. The rules a public arena
needs live here, not in the page:
- a message passes the rate limits (session and address), the prompt and image checks and the
  operator's moderation hook before a model sees it; images are stored once, by sha256;
- a new battle draws its pair by the configured rule; the names stay on the server;
- a battle is continued and voted on only by the session it was shown to, only when both
  answers of every message arrived, and voted on once: a repeated vote returns the vote that
  stands (so a retry after a lost acknowledgement is harmless), never a second row;
- a vote is acknowledged (the names revealed) only after the store committed it;
- a store that cannot be read or written (a damaged file, a full disk) refuses the message or
  the vote with a plain sentence (`STORE_PROBLEM`); the log names the file and SQLite's reason.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

from vlmscope.arena.battles import VOTES, Battle
from vlmscope.arena.config import ArenaConfig
from vlmscope.arena.contestants import Contestant, params
from vlmscope.arena.in_flight import InFlight
from vlmscope.arena.language import prompt_language
from vlmscope.arena.moderation import Moderation, allow_all
from vlmscope.arena.pairing import draw_pair
from vlmscope.arena.safety import RateLimiter, Refused, check_images, check_prompt
from vlmscope.arena.shape import vote_record
from vlmscope.arena.vote_store import StoreFailed, VoteStore
from vlmscope.messages import ImagePart, Part, Request, TextPart, Turn

log = logging.getLogger(__name__)
WINNERS = frozenset(VOTES.values())
STORE_PROBLEM = (
    "The arena cannot store battles or votes right now, so it takes none; please try again later."
)


@contextmanager
def _storing() -> Iterator[None]:
    """A store failure as a refusal the visitor can read; the log keeps the file and reason."""
    try:
        yield
    except StoreFailed as err:
        log.error("%s", err)
        raise Refused(STORE_PROBLEM) from None


@dataclass(frozen=True)
class Update:
    """What the page shows while a message is answered: both texts so far."""

    battle_id: str
    text_a: str
    text_b: str
    done: bool = False
    failed_a: bool = False
    failed_b: bool = False
    unstored: bool = False
    """The answers could not be saved (`STORE_PROBLEM`): the battle takes no vote."""


@dataclass(frozen=True)
class Reveal:
    """The acknowledged vote: who was behind each side, and whether this call stored it."""

    model_a: str
    model_b: str
    winner: str
    stored_now: bool


class Arena:
    def __init__(
        self,
        config: ArenaConfig,
        store: VoteStore,
        contestants: Mapping[str, Contestant],
        *,
        moderation: Moderation = allow_all,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        secret: bytes = b"",
    ) -> None:
        """`clock` stamps votes and drives the rate limits; `secret` salts the anonymous
        session ids (keep it across restarts so a session's retry still matches)."""
        missing = [name for name in config.names if name not in contestants]
        if missing:
            raise ValueError(f"contestants: no backend for {', '.join(missing)}")
        self.config = config
        self.store = store
        self.contestants = contestants
        self.moderation = moderation
        self.clock = clock
        self.rng = rng or random.Random(secrets.randbits(64))
        self.secret = secret
        limits = config.limits
        self._asks = {
            "session": RateLimiter(limits.asks_per_session, limits.window_s, clock),
            "ip": RateLimiter(limits.asks_per_ip, limits.window_s, clock),
        }
        self._votes = {
            "session": RateLimiter(limits.votes_per_session, limits.window_s, clock),
            "ip": RateLimiter(limits.votes_per_ip, limits.window_s, clock),
        }
        # held while a stored battle is read, checked and changed (a message, a vote)
        self._changing = threading.Lock()
        self.saving = InFlight()
        """Votes being stored now: the board waits for them (`InFlight.settle`)."""

    def anonymous(self, session_key: str) -> str:
        """The session id the store keeps: a salted hash, never the page's own key."""
        return hashlib.sha256(self.secret + session_key.encode()).hexdigest()[:16]

    # asking -------------------------------------------------------------------------------
    def open_message(
        self,
        session_key: str,
        ip: str,
        battle_id: str | None,
        text: str,
        images: Sequence[bytes] = (),
    ) -> Battle:
        """The battle with the new message added (a new battle when `battle_id` is None), saved
        before any model is asked; Refused if any rule says no."""
        _within(self._asks, session_key, ip, "messages")
        prompt = check_prompt(text, self.config.limits)
        checked = check_images(images, self.config.limits)
        reason = self.moderation(prompt, [c.data for c in checked])
        if reason:
            raise Refused(f"The prompt was refused: {reason}")
        session = self.anonymous(session_key)
        with self._changing, _storing():
            if battle_id is None:
                model_a, model_b = draw_pair(self.config.names, self.config.pairing, self.rng)
                battle = Battle(
                    battle_id=secrets.token_urlsafe(18),
                    question_id=secrets.token_hex(16),
                    session=session,
                    model_a=model_a,
                    model_b=model_b,
                    created=self.clock(),
                )
            else:
                battle = self._shown(battle_id, session)
                if battle.winner is not None:
                    raise Refused("This battle has been voted on; start a new one.")
                if not battle.answered:
                    raise Refused("Both answers must arrive before the next message.")
                if len(battle.exchanges) >= self.config.limits.max_turns:
                    raise Refused(
                        f"A battle has at most {self.config.limits.max_turns} messages; "
                        "vote, then start a new one."
                    )
            self.store.put_images(checked)
            battle = battle.asked(prompt, tuple(c.sha256 for c in checked))
            self.store.save_battle(battle)
        return battle

    async def answer(self, battle: Battle) -> AsyncIterator[Update]:
        """Both sides' answers to the battle's last message as they stream in; the last update
        (`done`) comes after the answers are saved."""
        try:
            images = await asyncio.to_thread(self._image_parts, battle)
        except StoreFailed as err:
            log.error("%s", err)
            yield Update(battle.battle_id, "", "", True, unstored=True)
            return
        requests = {side: self._request(battle, side, images) for side in ("a", "b")}
        names = {"a": battle.model_a, "b": battle.model_b}
        queue: asyncio.Queue[tuple[str, str | None]] = asyncio.Queue()
        texts = {"a": "", "b": ""}
        failed: set[str] = set()

        async def run(side: str) -> None:
            try:
                async for piece in self.contestants[names[side]].stream(requests[side]):
                    await queue.put((side, piece))
            except Exception:  # any failure of a model is that side failing, logged in full
                log.exception("battle %s: side %s failed", battle.battle_id, side)
                failed.add(side)
            finally:
                await queue.put((side, None))

        tasks = [asyncio.create_task(run(side)) for side in ("a", "b")]
        try:
            open_sides = 2
            while open_sides:
                side, piece = await queue.get()
                if piece is None:
                    open_sides -= 1
                    continue
                texts[side] += piece
                yield Update(battle.battle_id, texts["a"], texts["b"])
        finally:
            for task in tasks:
                task.cancel()
        texts = {side: storable(text) for side, text in texts.items()}
        answered = battle.answered_with(
            None if "a" in failed else texts["a"], None if "b" in failed else texts["b"]
        )
        try:
            await asyncio.to_thread(self.store.save_battle, answered)
        except StoreFailed as err:
            log.error("%s", err)
            yield Update(battle.battle_id, texts["a"], texts["b"], True, unstored=True)
            return
        yield Update(battle.battle_id, texts["a"], texts["b"], True, "a" in failed, "b" in failed)

    def _image_parts(self, battle: Battle) -> dict[str, ImagePart]:
        """The battle's images by sha256, each read from the store once for both sides."""
        return {h: ImagePart(self.store.image(h)[1]) for h in set(battle.images)}

    def _request(self, battle: Battle, side: str, images: Mapping[str, ImagePart]) -> Request:
        turns: list[Turn] = []
        for exchange in battle.exchanges:
            parts: list[Part] = [images[h] for h in exchange.images]
            parts.append(TextPart(exchange.text))
            turns.append(Turn("user", tuple(parts)))
            answer = exchange.answer(side)
            if answer is not None:
                turns.append(Turn("assistant", (TextPart(answer),)))
        return Request(tuple(turns), params=params(self.config.sampling))

    # voting -------------------------------------------------------------------------------
    def vote(self, session_key: str, ip: str, battle_id: str | None, winner: str) -> Reveal:
        """Store the session's vote on its battle; the names only come back once it is stored.
        The vote counts as being saved (`saving`) from the call on."""
        with self.saving.holding():
            if winner not in WINNERS:
                raise Refused(f"Unknown vote {winner!r}.")
            if battle_id is None:
                raise Refused("There is no battle to vote on: ask something first.")
            _within(self._votes, session_key, ip, "votes")
            with _storing():
                return self._vote(self.anonymous(session_key), battle_id, winner)

    def _vote(self, session: str, battle_id: str, winner: str) -> Reveal:
        standing = self.store.vote(battle_id)
        if standing is not None:
            if standing["judge"] != session:
                raise Refused("This battle was not shown to you.")
            return _reveal(standing, stored_now=False)
        with self._changing:  # a message opened meanwhile would be lost from the voted battle
            battle = self._shown(battle_id, session)
            if battle.failed:
                raise Refused("A model failed to answer; this battle takes no vote.")
            if not battle.answered:
                raise Refused("Both answers must arrive before the vote.")
            language = prompt_language(battle.exchanges[0].text)  # the first prompt, as FastChat
            record = vote_record(battle, winner, self.clock(), language)
            stood = self.store.record_vote(replace(battle, winner=winner), record)
        return _reveal(stood, stored_now=stood is record)

    def _shown(self, battle_id: str, session: str) -> Battle:
        """The battle, if it exists and was shown to `session` (else one refusal for both, so
        a guess learns nothing about other sessions' battles)."""
        battle = self.store.battle(battle_id)
        if battle is None or battle.session != session:
            raise Refused("This battle was not shown to you.")
        return battle


def storable(text: str) -> str:
    """`text` as UTF-8 can hold it: surrogate halves streamed in separate pieces joined into
    their character, a lone one (JSON lets a server send `"\\ud83d"`) made U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _within(limiters: Mapping[str, RateLimiter], session_key: str, ip: str, what: str) -> None:
    if not session_key:
        raise Refused("This request has no session; reload the page.")
    for kind, key in (("session", session_key), ("ip", ip)):
        limiter = limiters[kind]
        if not limiter.allow(key):
            wait = limiter.retry_after(key)
            raise Refused(f"Too many {what} from this {kind}; try again in {wait:.0f} s.")


def _reveal(record: Mapping[str, object], *, stored_now: bool) -> Reveal:
    return Reveal(str(record["model_a"]), str(record["model_b"]), str(record["winner"]), stored_now)
