"""A battle as the server keeps it: the hidden pair, every exchange, and the vote once cast.

The browser is given none of this. It holds a reference to its battle only inside the Space's
server-side session state, so the names stay here until the vote reveals them. A battle
belongs to the anonymous session it was shown to; only that session may continue it or vote.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

#: The four votes, as the VisionArena battle rows spell the winner.
VOTES = {
    "A is better": "model_a",
    "B is better": "model_b",
    "Tie": "tie",
    "Both are bad": "tie (bothbad)",
}


@dataclass(frozen=True)
class Exchange:
    """One user message (text, images by sha256) and both answers; None while streaming.
    `failed` marks an exchange where a side got no answer: such a battle takes no vote."""

    text: str
    images: tuple[str, ...] = ()
    answer_a: str | None = None
    answer_b: str | None = None
    failed: bool = False

    @property
    def answered(self) -> bool:
        return self.answer_a is not None and self.answer_b is not None and not self.failed

    def answer(self, side: str) -> str | None:
        """Side "a"'s or side "b"'s answer."""
        return self.answer_a if side == "a" else self.answer_b


@dataclass(frozen=True)
class Battle:
    battle_id: str
    question_id: str
    session: str
    model_a: str
    model_b: str
    created: float
    exchanges: tuple[Exchange, ...] = field(default=())
    winner: str | None = None

    @property
    def answered(self) -> bool:
        """Every exchange has both answers: the battle may take a vote or a next message."""
        return bool(self.exchanges) and all(e.answered for e in self.exchanges)

    @property
    def failed(self) -> bool:
        return any(e.failed for e in self.exchanges)

    @property
    def images(self) -> tuple[str, ...]:
        return tuple(h for e in self.exchanges for h in e.images)

    def asked(self, text: str, images: tuple[str, ...]) -> Battle:
        return replace(self, exchanges=(*self.exchanges, Exchange(text, images)))

    def answered_with(self, answer_a: str | None, answer_b: str | None) -> Battle:
        """The last exchange closed with both answers (None: that side failed)."""
        last = self.exchanges[-1]
        closed = replace(
            last,
            answer_a=answer_a or "",
            answer_b=answer_b or "",
            failed=answer_a is None or answer_b is None,
        )
        return replace(self, exchanges=(*self.exchanges[:-1], closed))

    def conversation(self, side: str) -> list[dict[str, str]]:
        """One side's messages {role, content}, user first (FastChat's conversation shape)."""
        messages: list[dict[str, str]] = []
        for exchange in self.exchanges:
            answer = exchange.answer(side)
            messages.append({"role": "user", "content": exchange.text})
            if answer is not None:
                messages.append({"role": "assistant", "content": answer})
        return messages

    def to_json(self) -> dict[str, Any]:
        return {
            "battle_id": self.battle_id,
            "question_id": self.question_id,
            "session": self.session,
            "model_a": self.model_a,
            "model_b": self.model_b,
            "created": self.created,
            "winner": self.winner,
            "exchanges": [
                {"text": e.text, "images": list(e.images), "answer_a": e.answer_a,
                 "answer_b": e.answer_b, "failed": e.failed}
                for e in self.exchanges
            ],
        }  # fmt: skip

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Battle:
        return cls(
            battle_id=raw["battle_id"],
            question_id=raw["question_id"],
            session=raw["session"],
            model_a=raw["model_a"],
            model_b=raw["model_b"],
            created=float(raw["created"]),
            winner=raw.get("winner"),
            exchanges=tuple(
                Exchange(e["text"], tuple(e["images"]), e["answer_a"], e["answer_b"], e["failed"])
                for e in raw["exchanges"]
            ),
        )
