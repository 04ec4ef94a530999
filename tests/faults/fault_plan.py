"""A replier for `tests.servers.OpenAIStub` that fails a share of all attempts, in six ways.

Whether an attempt fails is a hash of (seed, model, conversation, attempt number): a share
`rate` of all attempts fail, the same ones on every run whatever the arrival order. The faults
take the kinds of `KINDS` in turn, so each kind gets a sixth of them (a small run still sees
every kind). Every decision is logged, so a test can check the client's own accounting (retries
by cause, final failures, attempts per request) against exactly what was injected.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from tests.servers import Call, Reply

KINDS = ("rate_limited", "server_error", "timeout", "truncated_json", "body_50mb", "slow_drip")
OK = "ok"
# the causes (`vlmscope.models.retry.Cause`) the client may book each fault under: a 50 MB body
# is read whole and rejected (bad_body), unless it does not arrive within the client's timeout
# (on a busy machine it can take over a second), which is then rightly a timeout
CAUSES = {
    "rate_limited": ("rate_limited",),
    "server_error": ("server_error",),
    "timeout": ("timeout",),
    "truncated_json": ("bad_body",),
    "body_50mb": ("bad_body", "timeout"),
    "slow_drip": ("timeout",),
}
FLEXIBLE = "body_50mb"
BIG_BODY_BYTES = 50 * 2**20


@lru_cache(maxsize=1)
def big_body() -> bytes:
    """50 MB of JSON that is not a completion (no choices): read whole, then rejected."""
    padding = BIG_BODY_BYTES - len(b'{"padding": "", "choices": []}')
    return b'{"padding": "' + b"a" * padding + b'", "choices": []}'


def completion(text: str) -> bytes:
    return json.dumps(
        {"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop",
         "message": {"role": "assistant", "content": text}}]}
    ).encode()  # fmt: skip


def conversation(messages: object) -> str:
    """The stub's view of one request: its messages, hashed (the model is kept beside it)."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Outcome:
    """How the client must have ended one request: attempts made, and the fault that ended it
    (None when it was answered)."""

    attempts: int
    failed_kind: str | None

    @property
    def causes(self) -> tuple[str, ...]:
        """The causes the client may name in its error ((), for an answered request)."""
        return CAUSES[self.failed_kind] if self.failed_kind else ()


def episodes(log: list[str], max_attempts: int) -> list[list[str]]:
    """Split one conversation's attempts into the requests the client made: a request ends at
    its first answer or after `max_attempts` faults (a failed request may be asked again)."""
    out: list[list[str]] = []
    current: list[str] = []
    for kind in log:
        current.append(kind)
        if kind == OK or len(current) == max_attempts:
            out.append(current)
            current = []
    if current:
        out.append(current)  # an unfinished request: the caller's checks will catch it
    return out


def outcome(episode: list[str]) -> Outcome:
    last = episode[-1]
    return Outcome(len(episode), None if last == OK else last)


def booked_as(kinds: Counter[str], causes: Counter[str]) -> int | None:
    """Whether faults of `kinds` can have been booked as `causes` (each fault under one of its
    `CAUSES`): None if not, else how many 50 MB bodies were booked as timeouts."""
    fixed = Counter({c: 0 for c in causes})
    for kind, n in kinds.items():
        if kind != FLEXIBLE:
            fixed[CAUSES[kind][0]] += n
    rest = Counter({c: causes[c] - fixed[c] for c in fixed})
    if any(n < 0 for n in rest.values()) or sum(rest.values()) != kinds[FLEXIBLE]:
        return None
    if any(n and c not in CAUSES[FLEXIBLE] for c, n in rest.items()):
        return None
    return rest["timeout"]


class FaultPlan:
    """`OpenAIStub(FaultPlan(answer, timeout_s=...))`; `answer(call)` gives a success's text.

    `timeout_s` is the client's: a `timeout` fault waits far longer (the stub stops when the
    client hangs up) and a `slow_drip` sends its body so slowly that the whole reply takes five
    times as long, though each read the client makes gets bytes well within it.
    """

    def __init__(
        self,
        answer: Callable[[Call], str],
        *,
        timeout_s: float,
        rate: float = 0.2,
        seed: int = 0,
    ) -> None:
        self.answer = answer
        self.timeout_s = timeout_s
        self.rate = rate
        self.seed = seed
        self.log: dict[tuple[str, str], list[str]] = {}
        self.prompts: dict[tuple[str, str], str] = {}  # the last message's text, per conversation
        self._faults = 0
        self._lock = threading.Lock()

    def __call__(self, call: Call) -> Reply | str:
        body = call.body or {}
        key = (str(body.get("model", "")), conversation(body.get("messages", [])))
        with self._lock:
            attempts = self.log.setdefault(key, [])
            self.prompts[key] = call.prompt
            kind = OK
            if self.fails(key, len(attempts) + 1):
                kind = KINDS[self._faults % len(KINDS)]
                self._faults += 1
            attempts.append(kind)
        return self.reply(kind, call)

    def fails(self, key: tuple[str, str], attempt: int) -> bool:
        digest = hashlib.sha256(f"{self.seed}|{key[0]}|{key[1]}|{attempt}".encode()).hexdigest()
        return int(digest[:13], 16) / 16**13 < self.rate

    def reply(self, kind: str, call: Call) -> Reply | str:
        if kind == OK:
            return self.answer(call)
        if kind == "rate_limited":
            return Reply(status=429, headers={"Retry-After": "0.05"}, body=b'{"error": "slow"}')
        if kind == "server_error":
            return Reply(status=500, body=b"<html>upstream error</html>")
        if kind == "timeout":
            return Reply(delay_s=20 * self.timeout_s)
        whole = completion(self.answer(call))
        if kind == "truncated_json":
            return Reply(body=whole[: len(whole) // 2])
        if kind == "body_50mb":
            return Reply(body=big_body())
        # slow_drip: 50 pieces, each well within the timeout, together five times over it
        piece = max(1, -(-len(whole) // 50))
        return Reply(body=whole, drip_s=self.timeout_s / 10, drip_bytes=piece)

    def keys(self, model: str) -> list[tuple[str, str]]:
        return [k for k in self.log if k[0] == model]

    def injected(self, keys: Iterable[tuple[str, str]]) -> Counter[str]:
        """Faults sent, by kind, to the conversations `keys`."""
        return Counter(kind for k in keys for kind in self.log[k] if kind != OK)

    def expected(self, keys: Iterable[tuple[str, str]], max_attempts: int) -> Counter[str]:
        """What the client must have counted for these conversations: `requests`, `ok`,
        `failed`, `retries`, and by fault kind `retried:<kind>` (a fault the client retried)
        and `failed:<kind>` (a fault on a request's last allowed attempt)."""
        counts: Counter[str] = Counter()
        for key in keys:
            for episode in episodes(self.log[key], max_attempts):
                counts["requests"] += 1
                end = outcome(episode)
                counts["failed" if end.failed_kind else "ok"] += 1
                if end.failed_kind:
                    counts[f"failed:{end.failed_kind}"] += 1
                for kind in episode[:-1] if end.failed_kind else episode:
                    if kind != OK:
                        counts["retries"] += 1
                        counts[f"retried:{kind}"] += 1
        return counts

    def final(self, key: tuple[str, str], max_attempts: int) -> Outcome:
        """How the last request made for this conversation ended."""
        return outcome(episodes(self.log[key], max_attempts)[-1])
