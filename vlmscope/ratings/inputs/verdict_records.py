"""Judge-vs-baseline verdict records: one (prompt, judged model) pair judged in two games.

The record is the unit every judge-vs-baseline scorer reads (ProBench, arena-hard-auto v0.1 and
v2). Game order follows arena-hard-auto: ``judgments[0]`` is the game with the **baseline shown
as Assistant A**, ``judgments[1]`` the swapped game with the judged model as A. ProBench stores
the same two texts under ``"1"`` (baseline as A) and ``"0"`` (model as A); both layouts load.

Style metadata (token count and markdown counts of each answer) is optional: only the
style-controlled scorers need it, and they refuse to run without it instead of guessing. Each
answer's style keeps the order its metadata gave the four keys (`AnswerStyle.key_order`):
arena-hard v2 reads the counts by position, so that order can change its numbers.

Rows are checked as they are read (:mod:`vlmscope.ratings.inputs.row_checks`): a missing, null or
blank model or baseline, a model judged against itself, metadata counts that are not finite
non-negative numbers, a row without uid or judgments are errors naming the file, line and field
(or, with ``skip_bad_rows``, skipped and counted). A judgment without a label is not a bad row:
the scorers count it as unparseable.

Metadata written by another tool may have keys besides the four, or lack some of them. Reading
keeps every key in its order with its count (`AnswerStyle.by_position`), because whether that
is an error depends on the scorer: the ones that read counts by name need the four keys
(`require_named_styles`), arena-hard v2 reads positions and gives a number for some such
layouts. A record read from a file keeps its place (`VerdictRecord.place`), so a problem found
when it is scored names the file and line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vlmscope.ratings.inputs.row_checks import (
    BAD_GAMES,
    MISSING_FIELD,
    MISSING_MODEL,
    SELF_BATTLE,
    BadRowError,
    CheckedRows,
    RowPlace,
    check_file,
    model_name,
)
from vlmscope.ratings.inputs.style_values import BOOLEAN, BOOLEANS_IN_A_DICT, FLOAT, read_count

STYLE_FIELDS = ("token_len", "header_count", "list_count", "bold_count")


@dataclass(frozen=True)
class AnswerStyle:
    """Token count and markdown counts of one answer; dict counts are summed like upstream.

    A count the metadata lacks reads 0 here and is listed in `missing`: scorers that read the
    counts by name call `require_named_styles` first."""

    tokens: float
    headers: float
    lists: float
    bold: float
    key_order: tuple[str, ...] = STYLE_FIELDS
    """Every key of the metadata read, in its order (`STYLE_FIELDS` is the official layout)."""
    other_counts: tuple[float | None, ...] = ()
    """The counts of the keys in `key_order` that are not among the four, in their order, read
    as the four are; None where the value is not a count (a string, null, a list)."""
    odd_kinds: tuple[tuple[str, str], ...] = ()
    """``(key, kind)`` for each value that is a boolean, a float or a dict with booleans
    (:mod:`vlmscope.ratings.inputs.style_values`): the references differ on those."""

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any], name: str = "metadata") -> AnswerStyle:
        """Read ``{token_len, header_count, list_count, bold_count}`` (ints or dicts of ints).

        Each of the four that is present must be a finite, non-negative number, a boolean or a
        dict of them: else :class:`BadRowError` (``bad_number``) naming ``name.field``. Absent
        ones, other keys and odd kinds of value are kept for the scorer to judge (module doc)."""
        if not isinstance(metadata, Mapping):
            raise BadRowError(MISSING_FIELD, name, "not an object")
        read = {
            key: read_count(metadata[key], f"{name}.{key}")
            for key in STYLE_FIELDS
            if key in metadata
        }
        others = {key: _count_or_none(metadata[key]) for key in metadata if key not in STYLE_FIELDS}
        tokens, headers, lists, bold = (read[key][0] if key in read else 0 for key in STYLE_FIELDS)
        kinds = {key: got[1] for key, got in (read | others).items() if got is not None}
        return cls(
            tokens,
            headers,
            lists,
            bold,
            key_order=tuple(metadata),
            other_counts=tuple(got[0] if got else None for got in others.values()),
            odd_kinds=tuple((key, kind) for key in metadata if (kind := kinds.get(key))),
        )

    @property
    def missing(self) -> tuple[str, ...]:
        """The four keys the metadata lacks, in the official order."""
        return tuple(key for key in STYLE_FIELDS if key not in self.key_order)

    def as_tuple(self) -> tuple[float, float, float, float]:
        """The counts by name: tokens, headers, lists, bold (scorers reading them check
        `require_named_styles` first; this refuses rather than read an absent count as 0)."""
        if self.missing:
            raise ValueError(f"metadata lacks {', '.join(self.missing)}")
        return (self.tokens, self.headers, self.lists, self.bold)

    def by_position(self) -> tuple[float | None, ...]:
        """The count of every key, in the metadata's order, as arena-hard v2's `show_result`
        reads them (`metadata.values()`, taken to be tokens, headers, lists, bold): equal to
        `as_tuple` when the keys came in the official layout. None: not a count."""
        counts = (self.tokens, self.headers, self.lists, self.bold)
        by_name = dict(zip(STYLE_FIELDS, counts, strict=True))
        others = iter(self.other_counts)
        return tuple(by_name[key] if key in by_name else next(others) for key in self.key_order)

    def in_official_order(self) -> bool:
        return self.key_order == STYLE_FIELDS

    def as_metadata(self) -> dict[str, float | bool | dict[str, float | bool] | None]:
        """The metadata as read back: every key in its order with its count, each of a kind
        every reference reads as it read the original (`AnswerStyle.odd_kinds`): a boolean stays
        one, a float stays a float, a float summed from a dict is written as a dict of it (a
        bare float stops arena-hard v2, a dict of floats does not), and a dict with booleans
        stays one (its sum and a ``false``, which adds nothing), so the board read from the
        written record notes it as the first board did."""
        kinds = dict(self.odd_kinds)
        return {
            key: _written(count, kinds.get(key))
            for key, count in zip(self.key_order, self.by_position(), strict=True)
        }


def _written(
    count: float | None, kind: str | None
) -> float | bool | dict[str, float | bool] | None:
    if kind == BOOLEAN:
        return bool(count)
    if kind == BOOLEANS_IN_A_DICT and count is not None:
        return {"sum": count, "boolean": False}
    if type(count) is float and kind != FLOAT:
        return {"sum": count}
    return count


def _count_or_none(value: Any) -> tuple[float, str | None] | None:
    """Another key's value read as the four are read, or None when it is not a count."""
    try:
        return read_count(value, "metadata")
    except BadRowError:
        return None


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
    place: RowPlace | None = field(default=None, compare=False)
    """Where the record was read (file and line), when it came from a file."""

    def __post_init__(self) -> None:
        model_name({}, "model", self.model)
        model_name({}, "baseline", self.baseline)
        if self.model == self.baseline:
            raise BadRowError(SELF_BATTLE, "model", f"{self.model!r} is also the baseline")


def verdict_record_from_dict(row: Mapping[str, Any], baseline: str | None = None) -> VerdictRecord:
    """Build a record from an arena-hard style row (``games``) or a ProBench file (``"1"``/``"0"``).

    ``baseline`` fills in the baseline name when the row has none (absent or null; ProBench
    judgment files do not store it); a row's own ``baseline`` wins. A row that cannot be used
    raises :class:`BadRowError` naming the field (see :mod:`vlmscope.ratings.inputs.row_checks`).
    """
    uid = next(
        (row[key] for key in ("uid", "question_id", "uuid") if row.get(key) is not None), None
    )
    if uid is None or isinstance(uid, bool) or not isinstance(uid, str | int):
        raise BadRowError(
            MISSING_FIELD, "uid", "no uid / question_id / uuid (a string or an integer)"
        )
    if "games" in row:
        games = row["games"]
        if not isinstance(games, list | tuple) or len(games) != 2:
            shown = f"{len(games)} games" if isinstance(games, list | tuple) else repr(games)
            raise BadRowError(BAD_GAMES, "games", f"expected a list of 2 games, got {shown}")
        judgments = (_judgment_text(games[0]), _judgment_text(games[1]))
    elif "1" in row or "0" in row:
        judgments = (_judgment_text(row.get("1")), _judgment_text(row.get("0")))
    else:
        raise BadRowError(MISSING_FIELD, "games", "absent, and no ProBench '1' / '0' judgments")
    model = model_name(row, "model")
    own_baseline = row.get("baseline")
    if own_baseline is None and baseline is None:
        raise BadRowError(MISSING_MODEL, "baseline", "absent; pass the baseline model name")
    baseline_name = model_name(
        row, "baseline", own_baseline if own_baseline is not None else baseline
    )
    if model == baseline_name:
        raise BadRowError(SELF_BATTLE, "model", f"{model!r} is also the baseline")
    model_meta, baseline_meta = row.get("model_metadata"), row.get("baseline_metadata")
    return VerdictRecord(
        uid=str(uid),
        model=model,
        baseline=baseline_name,
        judgments=judgments,
        category=row.get("category"),
        model_style=AnswerStyle.from_metadata(model_meta, "model_metadata") if model_meta else None,
        baseline_style=AnswerStyle.from_metadata(baseline_meta, "baseline_metadata")
        if baseline_meta
        else None,
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
            row[key] = style.as_metadata()  # every key, order kept: v2 reads by position
    return row


def _judgment_text(game: Any) -> str | None:
    """A game is ``{"judgment": text}``; a missing game or a null judgment is ``None``."""
    if game is None:
        return None
    judgment = game.get("judgment") if isinstance(game, Mapping) else game
    return judgment if isinstance(judgment, str) else None


def require_named_styles(records: Sequence[VerdictRecord]) -> None:
    """For scorers that read the four counts by name (arena-hard v0.1, ProBench): every
    answer's metadata has them, else a ``ValueError`` naming the file and line, the record
    (uid, model, baseline), the absent key and the keys there are. Found when scoring, not
    reading (a scorer that reads none, or reads positions, can use the row), so
    ``--skip-bad-rows`` cannot leave the row out."""
    for record in records:
        for side, style in (
            ("model_metadata", record.model_style),
            ("baseline_metadata", record.baseline_style),
        ):
            if style is not None and style.missing:
                where = "" if record.place is None else f"{record.place}: "
                raise ValueError(
                    f"{where}field '{side}.{style.missing[0]}': uid {record.uid!r} "
                    f"({record.model!r} against {record.baseline!r}) "
                    f"(keys: {', '.join(style.key_order)}): absent; this reference reads "
                    f"the four counts by name ({', '.join(STYLE_FIELDS)})"
                )


def verdict_key(
    row: Mapping[str, Any], baseline: str | None = None
) -> tuple[str, tuple[str, str, str], str] | None:
    """A verdict's identity for the repeat check: its uid, model and baseline (one prompt is
    judged once per pair; the same uid recurs once per judged model)."""
    uid = next((row[k] for k in ("uid", "question_id", "uuid") if row.get(k) is not None), None)
    own = row.get("baseline")
    pair = (str(row.get("model")), str(own if own is not None else baseline))
    return "uid", (str(uid), *pair), f"{uid!r} for {pair[0]!r} against {pair[1]!r}"


def read_verdict_file(
    path: str | Path, baseline: str | None = None, *, skip_bad_rows: bool = False
) -> CheckedRows[VerdictRecord]:
    """Verdict rows of a JSON-lines file or JSON array, in file order (bootstraps use it).

    A bad row raises :class:`BadRowError` naming the file, the line (JSON lines, 1-based) or
    index (JSON array) and the field; with ``skip_bad_rows`` it is left out and counted. A
    uid judged twice for one model and baseline is such a row (``repeated``)."""
    return check_file(
        path,
        lambda row: verdict_record_from_dict(row, baseline),
        skip_bad_rows=skip_bad_rows,
        key=lambda row: verdict_key(row, baseline),
        locate=lambda record, place: replace(record, place=place),
    )


def read_verdict_records(path: str | Path, baseline: str | None = None) -> list[VerdictRecord]:
    """Read verdict rows (JSON lines or a JSON array), keeping file order (bootstraps use it);
    the first bad row raises (see :func:`read_verdict_file` to skip and count them)."""
    return read_verdict_file(path, baseline).rows
