"""Judge-vs-baseline verdict records: one (prompt, judged model) pair judged in two games.

The record is the unit every judge-vs-baseline scorer reads (ProBench, arena-hard-auto v0.1 and
v2). Game order follows arena-hard-auto: ``judgments[0]`` is the game with the **baseline shown
as Assistant A**, ``judgments[1]`` the swapped game with the judged model as A. ProBench stores
the same two texts under ``"1"`` (baseline as A) and ``"0"`` (model as A); both layouts load.

Style metadata (token count and markdown counts of each answer) is optional: only the
style-controlled scorers need it, and they refuse to run without it instead of guessing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlmscope.ratings.battles import load_records

STYLE_FIELDS = ("token_len", "header_count", "list_count", "bold_count")


@dataclass(frozen=True)
class AnswerStyle:
    """Token count and markdown counts of one answer; dict counts are summed like upstream."""

    tokens: int
    headers: int
    lists: int
    bold: int

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> AnswerStyle:
        """Read ``{token_len, header_count, list_count, bold_count}`` (ints or dicts of ints)."""
        missing = [name for name in STYLE_FIELDS if name not in metadata]
        if missing:
            raise ValueError(f"answer metadata lacks {', '.join(missing)}")
        tokens, headers, lists, bold = (_total(metadata[name]) for name in STYLE_FIELDS)
        return cls(tokens=tokens, headers=headers, lists=lists, bold=bold)

    def as_tuple(self) -> tuple[int, int, int, int]:
        return (self.tokens, self.headers, self.lists, self.bold)


def _total(value: Any) -> int:
    """An int as is, a dict of counts as the sum of its values (all references do this)."""
    if isinstance(value, Mapping):
        return int(sum(value.values()))
    return int(value)


@dataclass(frozen=True)
class VerdictRecord:
    """Two judge games for one prompt: ``judgments[0]`` baseline as A, ``[1]`` model as A."""

    uid: str
    model: str
    baseline: str
    judgments: tuple[str | None, str | None]
    category: str | None = None
    model_style: AnswerStyle | None = None
    baseline_style: AnswerStyle | None = None


def verdict_record_from_dict(row: Mapping[str, Any], baseline: str | None = None) -> VerdictRecord:
    """Build a record from an arena-hard style row (``games``) or a ProBench file (``"1"``/``"0"``).

    ``baseline`` fills in the baseline name when the row has none (ProBench judgment files do
    not store it); a row's own ``baseline`` wins.
    """
    uid = next((row[key] for key in ("uid", "question_id", "uuid") if key in row), None)
    if uid is None:
        raise ValueError("verdict row has no uid / question_id / uuid")
    if "games" in row:
        games = row["games"]
        if len(games) != 2:
            raise ValueError(f"{uid}: expected 2 games, got {len(games)}")
        judgments = (_judgment_text(games[0]), _judgment_text(games[1]))
    elif "1" in row or "0" in row:
        judgments = (row.get("1"), row.get("0"))
    else:
        raise ValueError(f"{uid}: no 'games' and no ProBench '1'/'0' judgments")
    baseline_name = row.get("baseline") or baseline
    if not baseline_name:
        raise ValueError(f"{uid}: no baseline in the row; pass the baseline model name")
    model_meta, baseline_meta = row.get("model_metadata"), row.get("baseline_metadata")
    return VerdictRecord(
        uid=str(uid),
        model=str(row["model"]),
        baseline=str(baseline_name),
        judgments=judgments,
        category=row.get("category"),
        model_style=AnswerStyle.from_metadata(model_meta) if model_meta else None,
        baseline_style=AnswerStyle.from_metadata(baseline_meta) if baseline_meta else None,
    )


def verdict_record_to_dict(record: VerdictRecord) -> dict[str, Any]:
    """The record as an arena-hard style row that :func:`verdict_record_from_dict` reads back.

    ``model_a`` / ``model_b`` name the two sides of the first game (baseline as Assistant A),
    so a table of rows shows who was compared without parsing the games."""
    row: dict[str, Any] = {
        "uid": record.uid,
        "model": record.model,
        "baseline": record.baseline,
        "model_a": record.baseline,
        "model_b": record.model,
        "category": record.category,
        "games": [{"judgment": judgment} for judgment in record.judgments],
    }
    for key, style in (
        ("model_metadata", record.model_style),
        ("baseline_metadata", record.baseline_style),
    ):
        if style is not None:
            row[key] = dict(zip(STYLE_FIELDS, style.as_tuple(), strict=True))
    return row


def _judgment_text(game: Any) -> str | None:
    """A game is ``{"judgment": text}``; a missing game or a null judgment is ``None``."""
    if game is None:
        return None
    judgment = game.get("judgment") if isinstance(game, Mapping) else game
    return judgment if isinstance(judgment, str) else None


def read_verdict_records(path: str | Path, baseline: str | None = None) -> list[VerdictRecord]:
    """Read verdict rows (JSON lines or a JSON array), keeping file order (bootstraps use it)."""
    return records_from_rows(load_records(path), baseline)


def records_from_rows(
    rows: Iterable[Mapping[str, Any]], baseline: str | None = None
) -> list[VerdictRecord]:
    return [verdict_record_from_dict(row, baseline) for row in rows]
