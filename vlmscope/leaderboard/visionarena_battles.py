"""The battle browser of the VisionArena page: one vote, the two conversations side by side.

A human-vote board's details are the battle records it was fitted on (FastChat's clean-battle
dicts: the two models, the vote, the language, the classifier flags under `category_tag`), not
the conversations: like every result dataset (`vlmscope.leaderboard.sample_prompts`), it stores no
prompts or images, which are the benchmark's data. The browser finds the battle in the
VisionArena-Battle folder by its `question_id` (the folder `VLMSCOPE_VISIONARENA_BATTLE_DATA`
names, else the sample shipped in the package), checks that it pairs the same two models, and
shows Model A's and Model B's conversations turn by turn. Without the data, or when the battle
is not in it, the vote and the flags still show, and a note says why the conversations do not.

Every text from the data (questions, answers, model names) is returned as plain text
(`as_text`) for read-only text boxes: whatever a user or a model wrote never becomes markup.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from vlmscope.leaderboard.rating_view import OVERALL
from vlmscope.leaderboard.safe_html import as_text
from vlmscope.leaderboard.visionarena_view import label_of

BATTLE_DATA_ENV = "VLMSCOPE_VISIONARENA_BATTLE_DATA"
SHIPPED = Path(__file__).resolve().parents[1] / "samples" / "visionarena" / "battle"
ALL_MODELS = "(all models)"
MAX_CHOICES = 500
VOTES = {
    "model_a": "Model A is better",
    "model_b": "Model B is better",
    "tie": "tie: both as good",
    "tie (bothbad)": "tie (bothbad): both bad",
}
DATA_COLUMNS = ("question_id", "model_a", "model_b", "conversation_a", "conversation_b", "images")


@dataclass(frozen=True)
class BattleView:
    """What the browser shows of one battle; every text is plain text."""

    summary: str
    side_a: str
    side_b: str
    images: list[tuple[bytes, str]] = field(default_factory=list)
    note: str = ""


def battle_data_dir(env: Mapping[str, str]) -> Path | None:
    """The Battle folder to read conversations from: the env's, else the shipped sample."""
    if env.get(BATTLE_DATA_ENV):
        return Path(env[BATTLE_DATA_ENV])
    return SHIPPED if SHIPPED.is_dir() else None


def battle_records(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The battle records of a board's details rows (each row's `record` JSON, else the row)."""
    found = []
    for row in rows:
        record = row.get("record")
        if isinstance(record, str):
            try:
                record = json.loads(record)
            except ValueError:
                record = None
        found.append(dict(record) if isinstance(record, Mapping) else dict(row))
    return found


def models_of(records: Sequence[Mapping[str, Any]]) -> list[str]:
    return sorted({str(r.get(side, "")) for r in records for side in ("model_a", "model_b")} - {""})


def on_board(records: Sequence[Mapping[str, Any]], category: str) -> list[Mapping[str, Any]]:
    """The records a board was fitted on (`OVERALL`: the whole board's), in fit order; KeyError
    when a record lacks what the board's filter reads."""
    from vlmscope.ratings.inputs.board_selection import select_board_battles

    return select_board_battles(records, None if category == OVERALL else category)


def battle_choices(
    records: Sequence[Mapping[str, Any]], category: str, model: str = ALL_MODELS
) -> tuple[list[tuple[str, str]], str]:
    """(label, question id) of a board's battles, of one model or all, at most `MAX_CHOICES`,
    and a line saying how many there are (or why the board's battles cannot be picked out)."""
    try:
        on = on_board(records, category)
    except (KeyError, TypeError, ValueError) as err:
        return [], as_text(f"The battles of {label_of(category)} cannot be picked out: {err}.")
    every = model in (ALL_MODELS, "", None)
    chosen = [r for r in on if every or model in (r.get("model_a"), r.get("model_b"))]
    choices = [(choice_label(r), str(r.get("question_id", ""))) for r in chosen[:MAX_CHOICES]]
    note = f"{len(chosen)} battles on the board {label_of(category)}"
    note += "" if every else f" with {model}"
    if len(chosen) > MAX_CHOICES:
        note += f"; the first {MAX_CHOICES} are listed"
    unlabelled = _unlabelled(records, category)
    if unlabelled:
        note += f"; {unlabelled} battles carry no label for it and are on no such board"
    return choices, as_text(note + ".")


def _unlabelled(records: Sequence[Mapping[str, Any]], category: str) -> int:
    """Battles a board that reads a label left out for want of it (`BoardSelector.unlabelled`)."""
    if category == OVERALL:
        return 0
    from vlmscope.ratings.inputs.board_selection import BoardSelector

    return BoardSelector(records).unlabelled(category)


def choice_label(record: Mapping[str, Any]) -> str:
    return as_text(
        f"{record.get('question_id', '')} · {record.get('model_a', '')} vs "
        f"{record.get('model_b', '')} · {record.get('winner', '')}"
    )


def find_record(records: Sequence[Mapping[str, Any]], question_id: str) -> Mapping[str, Any] | None:
    return next((r for r in records if str(r.get("question_id")) == question_id), None)


def flags_of(record: Mapping[str, Any]) -> list[str]:
    """The battle's category flags as the board read them: each classifier flag that is set
    (`category_tag`), a preset image, more than one turn."""
    flags = []
    tags = record.get("category_tag")
    for tag in (tags or {}).values() if isinstance(tags, Mapping) else ():
        if isinstance(tag, Mapping):
            flags += [str(name) for name, value in tag.items() if value is True]
    if record.get("is_preset"):
        flags.append("preset image")
    turns = record.get("turn")
    if isinstance(turns, int | float) and turns > 1:
        flags.append("multi-turn")
    return flags


def summary_text(record: Mapping[str, Any], boards: Sequence[str]) -> str:
    winner = str(record.get("winner", ""))
    vote = VOTES.get(winner, "unknown vote")
    turns = record.get("turn")
    lines = [
        f"battle: {record.get('question_id', '')}",
        f"Model A: {record.get('model_a', '')}    Model B: {record.get('model_b', '')}",
        f"vote: {winner} ({vote})",
        f"language: {record.get('language') or 'not given'}"
        + (f"    turns: {turns}" if turns is not None else ""),
        f"category flags: {', '.join(flags_of(record)) or 'none'}",
        f"on boards: {', '.join(label_of(b) for b in boards) or 'none'}",
    ]
    return as_text("\n".join(lines))


def battle_view(
    record: Mapping[str, Any], data_dir: Path | None, boards: Sequence[str] = ()
) -> BattleView:
    """One battle: the vote and flags from the board's record, the two conversations (and the
    images) from the Battle data when it holds this battle between these two models."""
    summary = summary_text(record, boards)
    question_id = str(record.get("question_id", ""))
    if data_dir is None:
        return BattleView(summary, "", "", note=as_text(_not_shown("no Battle data folder")))
    try:
        found = find_battle(data_dir, question_id)
        if found is None:
            why = f"battle {question_id} is not in the Battle data ({data_dir.name})"
            return BattleView(summary, "", "", note=as_text(f"{_not_shown(why)}"))
        row, image_dirs = found
        pair = (row.get("model_a"), row.get("model_b"))
        if pair != (record.get("model_a"), record.get("model_b")):
            why = (
                f"battle {question_id} of the Battle data ({data_dir.name}) is {pair[0]} vs "
                f"{pair[1]}, not the board's {record.get('model_a')} vs {record.get('model_b')}"
            )
            return BattleView(summary, "", "", note=as_text(_not_shown(why)))
        side_a, side_b, images = _conversations(row, record, image_dirs)
    except (ValueError, OSError, KeyError, TypeError) as err:
        note = f"conversations not shown: the Battle data ({data_dir.name}) does not read: {err}"
        return BattleView(summary, "", "", note=as_text(note))
    captions = [(data, f"image {i}") for i, data in enumerate(images, 1)]
    return BattleView(summary, side_a, side_b, captions, as_text(f"from {data_dir.name}"))


def boards_of(record: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """The boards (of `names`) whose battles include this one (a board whose filter reads a
    field the record lacks does not)."""
    found = []
    for name in names:
        try:
            if on_board([record], name):
                found.append(name)
        except (KeyError, TypeError, ValueError):
            continue
    return found


def _conversations(
    row: Mapping[str, Any], record: Mapping[str, Any], image_dirs: tuple[Path, ...]
) -> tuple[str, str, tuple[bytes, ...]]:
    from vlmscope.tracks.visionarena import conversations as fields

    where = f"question_id {record.get('question_id', '')}"
    sides = []
    for side in ("a", "b"):
        turns = fields.conversation(row[f"conversation_{side}"], where, f"conversation_{side}")
        sides.append(conversation_text(turns, side.upper(), str(record.get(f"model_{side}", ""))))
    images = fields.images(row.get("images"), where, image_dirs, required=False)
    return sides[0], sides[1], images


def conversation_text(turns: Sequence[Any], side: str, model: str) -> str:
    """Every message of one side, each under a label: `[turn 2 of 3: user]`,
    `[turn 2 of 3: model A (name)]`."""
    n = sum(t.role == "user" for t in turns)
    parts, turn = [], 0
    for message in turns:
        if message.role == "user":
            turn += 1
            who = "user"
        else:
            who = f"model {side} ({model})"
        parts.append(f"[turn {turn} of {n}: {who}]\n{message.text}")
    return as_text("\n\n".join(parts))


def find_battle(
    data_dir: Path, question_id: str
) -> tuple[Mapping[str, Any], tuple[Path, ...]] | None:
    """The Battle data's record of one battle (only the columns shown) and the folders its image
    file names resolve in; None when the data has no such battle. Parquet shards are indexed
    once by `question_id`, then only the row group holding the battle is read; JSON-lines data
    (text, with images as file names) is read once and kept by `question_id`."""
    from vlmscope.tracks.hub_files import parquet_files
    from vlmscope.tracks.visionarena.row_files import SPLIT

    data_dir = data_dir.resolve()
    if parquet_files(data_dir, SPLIT):
        where = _parquet_index(data_dir).get(question_id)
        return None if where is None else (_parquet_row(*where), ())
    return _json_battles(data_dir).get(question_id)


@lru_cache(maxsize=2)
def _json_battles(data_dir: Path) -> dict[str, tuple[Mapping[str, Any], tuple[Path, ...]]]:
    """question_id -> (the shown columns of its record, its image folders); the first record
    of an id wins, as in the parquet index."""
    from vlmscope.tracks.visionarena.row_files import records

    battles: dict[str, tuple[Mapping[str, Any], tuple[Path, ...]]] = {}
    for _, record, image_dirs in records(data_dir, "battle"):
        shown = {c: record[c] for c in DATA_COLUMNS if c in record}
        battles.setdefault(str(record.get("question_id")), (shown, image_dirs))
    return battles


@lru_cache(maxsize=2)
def _parquet_index(data_dir: Path) -> dict[str, tuple[Path, int, int]]:
    """question_id -> (shard, row group, row in the group), reading that one column."""
    import pyarrow.parquet as pq

    from vlmscope.tracks.hub_files import parquet_files
    from vlmscope.tracks.visionarena.row_files import SPLIT, VisionArenaDataError

    index: dict[str, tuple[Path, int, int]] = {}
    for path in parquet_files(data_dir, SPLIT):
        shard = pq.ParquetFile(path)
        if "question_id" not in shard.schema_arrow.names:
            raise VisionArenaDataError(f"{path.name}: missing column question_id")
        for group in range(shard.num_row_groups):
            ids = shard.read_row_group(group, columns=["question_id"]).column(0).to_pylist()
            for position, question_id in enumerate(ids):
                index.setdefault(str(question_id), (path, group, position))
    return index


def _parquet_row(path: Path, group: int, position: int) -> Mapping[str, Any]:
    import pyarrow.parquet as pq

    shard = pq.ParquetFile(path)
    columns = [c for c in DATA_COLUMNS if c in shard.schema_arrow.names]
    table = shard.read_row_group(group, columns=columns)
    return table.slice(position, 1).to_pylist()[0]


def _not_shown(why: str) -> str:
    return (
        f"conversations not shown: {why}; set {BATTLE_DATA_ENV} to the VisionArena-Battle "
        "folder the board was made from (result datasets store no conversations)"
    )
