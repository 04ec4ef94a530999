"""Read and validate VisionArena rows (Chat, Battle, vision-arena-bench-v0.1), split `train`.

The `datasets` builders and the track read rows through this module, so a bad row fails the same
way everywhere: with its `conversation_id` / `question_id`, the field and what is wrong.
Layouts: `row_files.py`; inferred shapes (conversation nesting, `categories`): `conversations.py`.

Rules:
- Chat: a conversation starts with the user and ends with an answer; `num_turns`, when given,
  equals its user turns;
- Battle: the vote (models, winner, tstamp, anony, style counts, labels) is checked by the
  rules of every rating door (`battle_votes.py`); both conversations ask the same number of
  user turns. `anony` absent or null reads as anonymous (the upstream Battle data has no such
  column: every battle there was anonymous); category flags and `dedup_tag` stay unlabelled
  when absent or null. `is_preset` is read when present, else False [I];
- Bench: the question is the first user turn's text (`turns[0][0]["content"]`); at least one
  image; `category` (or `cluster`) kept when present;
- a repeated id is an error: the row would be counted twice.
A bad row's message names the file, the row's id and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from vlmscope.judges.markdown import answer_style_counts
from vlmscope.tracks.shipped_samples import SAMPLES_ROOT
from vlmscope.tracks.visionarena import conversations as fields
from vlmscope.tracks.visionarena.battle_votes import category_tag, check_vote, dedup_tag
from vlmscope.tracks.visionarena.conversations import Turn
from vlmscope.tracks.visionarena.row_files import VisionArenaDataError, records

__all__ = ["SAMPLE_DIR", "BattleRow", "BenchRow", "ChatRow", "Turn", "VisionArenaDataError",
           "battle_record", "read_battle_rows", "read_bench_rows", "read_chat_rows"]  # fmt: skip

#: The shipped samples, one folder per dataset (`dataset_scripts/make_visionarena_samples.py`).
SAMPLE_DIR = SAMPLES_ROOT / "visionarena"
Row = TypeVar("Row")


@dataclass(frozen=True)
class ChatRow:
    """One VisionArena-Chat conversation; `images` are the encoded image files, in order."""

    conversation_id: str
    model: str
    conversation: tuple[Turn, ...]
    images: tuple[bytes, ...]
    language: str
    num_turns: int
    category_labels: Mapping[str, bool | None] = field(hash=False)
    """The flags as the row gives them (`conversations.category_labels`): the reference labels
    of `vlmscope visionarena classify`, which must not read an absent flag as false."""
    is_preset: bool
    preset_dataset: str
    translated_conversation: tuple[Turn, ...] | None
    user_id: int | None
    tstamp: float | None


@dataclass(frozen=True)
class BattleRow:
    """One VisionArena-Battle vote; `conv_metadata` as given (None when the row has none)."""

    question_id: str
    model_a: str
    model_b: str
    winner: str
    conversation_a: tuple[Turn, ...]
    conversation_b: tuple[Turn, ...]
    images: tuple[bytes, ...]
    language: str
    turn: int
    categories: Mapping[str, bool | None] = field(hash=False)
    """The classifier labels as the row gives them; an absent or null flag is unlabelled."""
    is_preset: bool
    anony: bool | None
    """None: the row does not say (read as anonymous)."""
    judge: str
    tstamp: float
    conv_metadata: Mapping[str, Any] | None = field(hash=False)
    dedup_tag: Mapping[str, bool | None] | None = field(default=None, hash=False)


@dataclass(frozen=True)
class BenchRow:
    """One vision-arena-bench-v0.1 prompt: the first user turn's text and its image(s)."""

    question_id: str
    question: str
    images: tuple[bytes, ...]
    category: str


def read_chat_rows(data_dir: str | Path) -> list[ChatRow]:
    """Every VisionArena-Chat row of `data_dir`, validated, in file order."""
    return _read(data_dir, "chat", "conversation_id", _chat)


def read_battle_rows(data_dir: str | Path) -> list[BattleRow]:
    """Every VisionArena-Battle row of `data_dir`, validated, in file order."""
    return _read(data_dir, "battle", "question_id", _battle)


def read_bench_rows(data_dir: str | Path) -> list[BenchRow]:
    """Every vision-arena-bench-v0.1 row of `data_dir`, validated, in file order."""
    return _read(data_dir, "bench", "question_id", _bench)


def _read(
    data_dir: str | Path,
    dataset: str,
    id_field: str,
    parse: Callable[[Mapping[str, Any], str, tuple[Path, ...]], Row],
) -> list[Row]:
    seen: dict[str, int] = {}
    out: list[Row] = []
    for position, (source, record, image_dirs) in enumerate(records(Path(data_dir), dataset)):
        row_id = record.get(id_field)
        if not isinstance(row_id, str) or not row_id.strip():
            raise VisionArenaDataError(
                f"{source}, row {position}: field {id_field!r} is missing or not text: {row_id!r}"
            )
        where = f"{source}, {id_field} {row_id}"
        if row_id in seen:
            raise VisionArenaDataError(
                f"{source}, {where}: field {id_field!r} repeats row {seen[row_id]} "
                f"(row {position}); it would be counted twice"
            )
        seen[row_id] = position
        out.append(parse(record, where, image_dirs))
    return out


def _user_turns(turns: tuple[Turn, ...]) -> int:
    return sum(t.role == "user" for t in turns)


def _turn_count(value: Any, turns: tuple[Turn, ...], where: str, name: str) -> int:
    count = _user_turns(turns)
    if value is not None and (isinstance(value, bool) or value != count):
        raise VisionArenaDataError(
            f"{where}: field {name!r} is {value!r} but the conversation has {count} user turn(s)"
        )
    return count


def _chat(record: Mapping[str, Any], where: str, image_dirs: tuple[Path, ...]) -> ChatRow:
    turns = fields.conversation(record["conversation"], where, "conversation")
    translated = record.get("translated_conversation")
    user_id = record.get("user_id")
    if user_id is not None and (isinstance(user_id, bool) or not isinstance(user_id, int)):
        raise VisionArenaDataError(f"{where}: field 'user_id' is {user_id!r}, expected an integer")
    tstamp = record.get("tstamp")
    return ChatRow(
        conversation_id=record["conversation_id"],
        model=fields.text(record.get("model"), where, "model", required=True),
        conversation=turns,
        images=fields.images(record.get("images"), where, image_dirs, required=False),
        language=fields.text(record.get("language"), where, "language"),
        num_turns=_turn_count(record.get("num_turns"), turns, where, "num_turns"),
        category_labels=fields.category_labels(record.get("categories"), where),
        is_preset=fields.flag(record.get("is_preset"), where, "is_preset", False),
        preset_dataset=fields.text(record.get("preset_dataset"), where, "preset_dataset"),
        translated_conversation=None
        if translated is None
        else fields.conversation(translated, where, "translated_conversation"),
        user_id=user_id,
        tstamp=None if tstamp is None else fields.number(tstamp, where, "tstamp"),
    )


def _battle(record: Mapping[str, Any], where: str, image_dirs: tuple[Path, ...]) -> BattleRow:
    labels = fields.category_labels(record.get("categories"), where)
    dedup = dedup_tag(record.get("dedup_tag"), where)
    check_vote(record, labels, dedup, where)
    side_a = fields.conversation(record["conversation_a"], where, "conversation_a")
    side_b = fields.conversation(record["conversation_b"], where, "conversation_b")
    if _user_turns(side_a) != _user_turns(side_b):
        raise VisionArenaDataError(
            f"{where}: field 'conversation_b' has {_user_turns(side_b)} user turn(s), "
            f"conversation_a {_user_turns(side_a)}"
        )
    meta = record.get("conv_metadata")
    turn = record.get("num_turns", record.get("turn"))
    return BattleRow(
        question_id=record["question_id"],
        model_a=record["model_a"],
        model_b=record["model_b"],
        winner=record["winner"],
        conversation_a=side_a,
        conversation_b=side_b,
        images=fields.images(record.get("images"), where, image_dirs, required=False),
        language=fields.text(record.get("language"), where, "language"),
        turn=_turn_count(turn, side_a, where, "num_turns"),
        categories=labels,
        is_preset=fields.flag(record.get("is_preset"), where, "is_preset", False),
        anony=record.get("anony"),
        judge=str(record.get("judge") or ""),
        tstamp=float(record["tstamp"]),
        conv_metadata=None if meta is None else dict(meta),
        dedup_tag=dedup,
    )


def _bench(record: Mapping[str, Any], where: str, image_dirs: tuple[Path, ...]) -> BenchRow:
    turns = fields.conversation(record["turns"], where, "turns", answered=False)
    question = turns[0].text.strip()
    if not question:
        raise VisionArenaDataError(f"{where}: field 'turns' has an empty first question")
    category = record.get("category")
    if category is None:
        category = record.get("cluster")
    return BenchRow(
        question_id=record["question_id"],
        question=question,
        images=fields.images(record.get("images"), where, image_dirs, required=True),
        category=fields.text(None if category is None else str(category), where, "category"),
    )


def _words(turns: tuple[Turn, ...], role: str | None = None) -> int:
    return sum(len(t.text.split()) for t in turns if role is None or t.role == role)


def _style(turns: tuple[Turn, ...], suffix: str) -> dict[str, dict[str, int]]:
    """Markdown counts of the assistant answers joined with newlines, as FastChat's
    `add_markdown_info.py` counts a conversation; not a sum over turns, since a list marker
    ending one answer then counts on the next line's text, and code removal and fences span
    the turns."""
    answers = "\n".join(t.text for t in turns if t.role == "assistant")
    return {f"{key}{suffix}": counts for key, counts in answer_style_counts(answers).items()}


def conv_metadata(row: BattleRow) -> dict[str, Any]:
    """The row's `conv_metadata`, or (when it has none, or lacks a style element) one computed
    from the answers: tokens are whitespace-separated words (upstream counts tiktoken tokens,
    which needs a download), markdown counts as `vlmscope.judges.markdown` extracts them."""
    computed: dict[str, Any] = {
        "sum_user_tokens": _words(row.conversation_a, "user"),
        "sum_assistant_a_tokens": _words(row.conversation_a, "assistant"),
        "sum_assistant_b_tokens": _words(row.conversation_b, "assistant"),
        "context_a_tokens": _words(row.conversation_a),
        "context_b_tokens": _words(row.conversation_b),
        "turns": row.turn,
        **_style(row.conversation_a, "_a"),
        **_style(row.conversation_b, "_b"),
    }
    given = {k: v for k, v in (row.conv_metadata or {}).items() if v is not None}
    return {**computed, **given}


def battle_record(row: BattleRow) -> dict[str, Any]:
    """The FastChat clean-battle dict the rating engine reads (`vlmscope.ratings`).

    `category_tag` maps each flag to its v0.1 tag (`battle_votes.category_tag`), an unlabelled
    flag null; `dedup_tag` is the row's, null when it has none (the release has no dedup
    labels); `anony` is the row's, true when it does not say."""
    return {
        "question_id": row.question_id,
        "model_a": row.model_a,
        "model_b": row.model_b,
        "winner": row.winner,
        "judge": row.judge,
        "turn": row.turn,
        "anony": True if row.anony is None else row.anony,
        "language": row.language,
        "tstamp": row.tstamp,
        "is_preset": row.is_preset,
        "category_tag": category_tag(row.categories),
        "dedup_tag": None if row.dedup_tag is None else dict(row.dedup_tag),
        "conv_metadata": conv_metadata(row),
    }
