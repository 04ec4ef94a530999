"""Which VisionArena-Chat conversations may become bench prompts (paper Sec. 6, first step).

The paper keeps single-turn conversations ("to prevent the user from correcting the model in
its response on its second turn") in English ("we are personally unable to verify the quality
of non-english prompts"). A bench row also needs what the bench reader needs: a non-blank
question and at least one image. Every conversation read gets one `decision`, so the curation
report counts what each rule dropped and nothing leaves silently.

A row's language is its `language` field; a row that names none is detected from its first
prompt by the caller's detector (the live arena's, `vlmscope.arena.language`), and says so.
The topic map (Sec. 3) uses the same rules with `single_turn` and `require_image` off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from vlmscope.tracks.visionarena.rows import ChatRow

KEPT = "kept"
MULTI_TURN = "multi_turn"
LANGUAGE = "language"
NO_IMAGE = "no_image"
EMPTY_PROMPT = "empty_prompt"
EXACT_DUPLICATE = "exact_duplicate"
NEAR_DUPLICATE = "near_duplicate"
OUTSIDE_SUBSET = "outside_subset"
"""Kept, but not among the random subset that was clustered (`max_prompts`)."""

Detector = Callable[[str], str]


@dataclass(frozen=True)
class CandidateRules:
    """What a conversation needs to be a candidate prompt."""

    languages: tuple[str, ...] = ("English",)
    """Language names as VisionArena writes them; empty: every language."""
    single_turn: bool = True
    require_image: bool = True

    def to_json(self) -> dict[str, object]:
        return {
            "languages": list(self.languages),
            "single_turn": self.single_turn,
            "require_image": self.require_image,
        }


@dataclass(frozen=True)
class Candidate:
    """A conversation's first prompt: its text and images, with where it came from."""

    conversation_id: str
    question: str
    images: tuple[bytes, ...]
    language: str
    model: str
    tstamp: float | None


@dataclass(frozen=True)
class Screened:
    """One conversation read: its decision, and the language it was judged by."""

    conversation_id: str
    decision: str
    language: str
    language_detected: bool
    num_turns: int
    tstamp: float | None


def screen(
    rows: Iterable[ChatRow], rules: CandidateRules, detect: Detector | None = None
) -> tuple[list[Candidate], list[Screened]]:
    """The candidates among `rows` (file order kept) and every row's decision.

    `detect` names the language of a row whose `language` field is blank; without it such a
    row has the language "" and is kept only when `rules.languages` is empty."""
    wanted = set(rules.languages)
    candidates: list[Candidate] = []
    screened: list[Screened] = []
    for row in rows:
        question = row.conversation[0].text.strip()
        language, detected = row.language.strip(), False
        if not language and detect is not None:
            language, detected = detect(question), True
        if rules.single_turn and row.num_turns != 1:
            decision = MULTI_TURN
        elif wanted and language not in wanted:
            decision = LANGUAGE
        elif rules.require_image and not row.images:
            decision = NO_IMAGE
        elif not question:
            decision = EMPTY_PROMPT
        else:
            decision = KEPT
            candidates.append(
                Candidate(
                    row.conversation_id, question, row.images, language, row.model, row.tstamp
                )
            )
        screened.append(
            Screened(row.conversation_id, decision, language, detected, row.num_turns, row.tstamp)
        )
    return candidates, screened


def date_range(stamps: Sequence[float | None]) -> tuple[float, float] | None:
    """(earliest, latest) of the known timestamps, or None when none is known."""
    known = [s for s in stamps if s is not None]
    return (min(known), max(known)) if known else None
