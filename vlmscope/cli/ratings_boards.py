"""What `vlmscope ratings battles|verdicts` does once its flags are parsed: read the input
(battles streamed in blocks when no category board or stored details need the records), build the
board with the settings asked for, and write it (`--out` JSON, `--result-dir` result dataset).
Bad settings and bad input rows end as one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from vlmscope.cli.board_inputs import empty_board, per_component, refuse_empty
from vlmscope.cli.board_output import (
    board_notes,
    config_hash,
    describe,
    now_iso,
    write_board_json,
)
from vlmscope.ratings.boards.board import RatingBoard, with_skipped_rows
from vlmscope.ratings.boards.names import BATTLES_BOARD, VERDICTS_BOARD
from vlmscope.ratings.inputs.anchor_text import parse_anchor, require_rated
from vlmscope.ratings.inputs.row_checks import BadRowError

BATTLES_TRACK = BATTLES_BOARD
PROBENCH_TRACK = "probench"
VERDICTS_TRACK = VERDICTS_BOARD
ALL_CATEGORIES = "all"


@dataclass(frozen=True)
class RatedFile:
    """One command's board with what the result dataset records about how it was made."""

    board: RatingBoard
    details: Sequence[Mapping[str, Any]]
    """The battles or verdicts of the top-level board, after selection, in fit order."""
    request: Mapping[str, Any]
    """The settings asked for (preset settings, companion, categories): hashed with the input."""
    first_skipped: Mapping[str, str] = field(default_factory=dict)
    """Per reason, the message of the first input row skipped for it (--skip-bad-rows)."""


def require_output(args: argparse.Namespace) -> None:
    """An argparse error (usage, exit 2) when the board would be written nowhere."""
    if args.out is None and args.result_dir is None:
        args.usage_error("one of --out FILE / --result-dir DIR is required")


def run_and_write(
    args: argparse.Namespace, command: str, rate: Callable[[argparse.Namespace], RatedFile]
) -> int:
    """Rate, then write; a bad setting or input is one line on stderr and exit status 2."""
    started_at = now_iso()
    try:
        rated = rate(args)
        input_bytes = args.file.read_bytes() if args.result_dir is not None else b""
    except (ValueError, KeyError, OSError) as error:
        print(f"error: vlmscope ratings {command}: {_reason(error)}", file=sys.stderr)
        return 2
    for note in board_notes(rated.board):
        print(f"vlmscope ratings {command}: {args.file}: {note}", file=sys.stderr)
    for reason, count in rated.board.skipped_rows.items():
        first = rated.first_skipped.get(reason, "")
        print(
            f"vlmscope ratings {command}: skipped {count} row(s) ({reason}); first: {first}",
            file=sys.stderr,
        )
    try:
        if args.out is not None:
            write_board_json(args.out, rated.board)
        if args.result_dir is not None:
            _write_result(args, command, rated, config_hash(rated.request, input_bytes), started_at)
    except OSError as error:
        print(f"error: vlmscope ratings {command}: {_reason(error)}", file=sys.stderr)
        return 2
    print(f"board: {describe(rated.board)}")
    return 0


def _write_result(
    args: argparse.Namespace, command: str, rated: RatedFile, hashed: str, started_at: str
) -> None:
    from vlmscope.runner.results import BoardResult, write_board_result

    track = args.track or _default_track(command, args.reference)
    result = BoardResult(
        track=track,
        board=rated.board,
        details=rated.details,
        source=f"ratings {command} {args.file.name}",
        config_hash=hashed,
        started_at=started_at,
        finished_at=now_iso(),
    )
    folder = write_board_result(args.result_dir, result)
    print(
        f"wrote result dataset {folder} (track {track}): summary = the board, "
        f"details = {len(rated.details)} {command}"
    )


def rate_battles(args: argparse.Namespace) -> RatedFile:
    from vlmscope.ratings.boards.battle_presets import BattleSettings, battle_board
    from vlmscope.ratings.boards.names import BATTLE_CATEGORIES
    from vlmscope.ratings.inputs.battles import read_battle_records
    from vlmscope.ratings.inputs.board_selection import select_board_battles

    anchor_model, anchor_rating = parse_anchor(args.anchor, "--anchor")
    settings = BattleSettings(
        reference=args.reference,
        system=args.system,
        rounds=args.bootstrap,
        seed=args.seed,
        anchor_model=anchor_model,
        anchor_rating=anchor_rating,
        category=args.category,
    )
    categories = _categories(args, BATTLE_CATEGORIES)
    request = _request("battles", asdict(settings), args.style_control, categories)
    if not categories and settings.category is None and args.result_dir is None:
        return _stream_battles(args, settings, request)
    checked = read_battle_records(
        args.file, style=args.style_control, skip_bad_rows=args.skip_bad_rows
    )
    if refuse_empty(args.file, len(checked.rows) + sum(checked.skipped.values()), args.allow_empty):
        return RatedFile(board=empty_board(request), details=(), request=request)

    def fit(models: frozenset[str] | None, main: bool = True) -> RatingBoard:
        rows = checked.rows
        if models is not None:
            rows = [r for r in rows if r["model_a"] in models and r["model_b"] in models]
        return battle_board(
            rows,
            settings,
            categories=categories if main else (),
            style_companion=args.style_control,
        )

    board = _anchored(_connected(args, fit), anchor_model)
    return RatedFile(
        board=with_skipped_rows(board, checked.skipped),
        details=select_board_battles(checked.rows, settings.category),
        request=request,
        first_skipped=checked.first_skipped,
    )


def _stream_battles(args: argparse.Namespace, settings: Any, request: dict[str, Any]) -> RatedFile:
    """The full board without categories or stored details: the file is streamed in blocks
    (`read_board_battles`: the same rows, checks and errors as the record reader, without a
    Python object per record), so a file of millions of battles fits in memory."""
    from vlmscope.ratings.boards.battle_presets import board_from_battles
    from vlmscope.ratings.inputs.battle_stream import read_board_battles

    streamed = read_board_battles(
        args.file, style=args.style_control, skip_bad_rows=args.skip_bad_rows
    )
    if refuse_empty(args.file, streamed.rows + sum(streamed.skipped.values()), args.allow_empty):
        return RatedFile(board=empty_board(request), details=(), request=request)

    def fit(models: frozenset[str] | None, main: bool = True) -> RatingBoard:
        battles = streamed.battles
        if models is not None:
            import numpy as np

            names = np.array(battles.models, dtype=object)
            keep = np.isin(names[battles.model_a], list(models))
            battles = battles.take(keep)
        return board_from_battles(battles, settings, style_companion=args.style_control)

    board = _anchored(_connected(args, fit), settings.anchor_model)
    return RatedFile(
        board=with_skipped_rows(board, streamed.skipped),
        details=(),
        request=request,
        first_skipped=streamed.first_skipped,
    )


def rate_verdicts(args: argparse.Namespace) -> RatedFile:
    from vlmscope.ratings.boards.verdict_presets import (
        VerdictSettings,
        select_verdicts,
        verdict_board,
        verdict_categories,
    )
    from vlmscope.ratings.inputs.verdict_records import read_verdict_file, verdict_record_to_dict

    settings = VerdictSettings(
        reference=args.reference,
        baseline=args.baseline,
        weight=args.weight,
        first_game_only=args.first_game_only,
        rounds=args.bootstrap,
        seed=args.seed,
        category=args.category,
    )
    checked = read_verdict_file(args.file, args.baseline, skip_bad_rows=args.skip_bad_rows)
    records = checked.rows
    request = _request("verdicts", asdict(settings), args.style_control, ())
    if refuse_empty(args.file, len(records) + sum(checked.skipped.values()), args.allow_empty):
        return RatedFile(board=empty_board(request), details=(), request=request)
    categories = _categories(args, verdict_categories(records))
    board = verdict_board(
        records, settings, categories=categories, style_companion=args.style_control
    )
    return RatedFile(
        board=with_skipped_rows(board, checked.skipped),
        details=[verdict_record_to_dict(r) for r in select_verdicts(records, settings.category)],
        request=_request("verdicts", asdict(settings), args.style_control, categories),
        first_skipped=checked.first_skipped,
    )


def _connected(
    args: argparse.Namespace, fit: Callable[[frozenset[str] | None, bool], RatingBoard]
) -> RatingBoard:
    """`fit(None, True)`, the board of every battle; when its models never all met, an error
    naming the groups, or with `--per-component` one board per group (`board_inputs`)."""
    from vlmscope.ratings.fits.connected import DisconnectedBattles

    try:
        return fit(None, True)
    except DisconnectedBattles as error:
        if not args.per_component:
            raise ValueError(
                f"{args.file}: {error}; --per-component rates each group on its own board"
            ) from None
        return per_component(error.groups, fit)


def _categories(args: argparse.Namespace, every: Sequence[str]) -> tuple[str, ...]:
    """The category boards asked for: --categories, else all with --result-dir, else none."""
    text = args.categories
    if text is None:
        wanted_all = args.result_dir is not None and args.category is None
        return tuple(every) if wanted_all else ()
    if args.category is not None:
        raise ValueError("--categories: a --category board has no category boards")
    if text.strip() == ALL_CATEGORIES:
        return tuple(every)
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not names:
        raise ValueError(f"--categories: expected 'all' or a comma list, got {text!r}")
    return names


def _default_track(command: str, reference: str | None) -> str:
    if command == "battles":
        return BATTLES_TRACK
    return PROBENCH_TRACK if reference == "probench" else VERDICTS_TRACK


def _request(
    command: str, settings: Mapping[str, Any], style_companion: bool, categories: Sequence[str]
) -> dict[str, Any]:
    return {
        "command": command,
        **settings,
        "style_companion": style_companion,
        "categories": list(categories),
    }


def _anchored(board: RatingBoard, anchor_model: str | None) -> RatingBoard:
    """The board, once its `--anchor` model is known to be on it: an anchor naming a model
    with no battles (a typo) would leave the ratings unpinned while the settings say pinned."""
    require_rated(anchor_model, board.models, "--anchor")
    return board


def _reason(error: Exception) -> str:
    """The error as one line; a missing field (KeyError) is named as such."""
    if isinstance(error, BadRowError):
        return f"{error}; --skip-bad-rows leaves such rows out and counts them"
    if isinstance(error, KeyError):
        return f"input lacks the field {error}"
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    return str(error)
