"""`vlmscope visionarena leaderboard`: the VisionArena leaderboard from human battles.

DATA is a VisionArena-Battle folder, as downloaded or as `python -m vlmscope.datasets.visionarena
battle` exported it (its rows become FastChat battle records; a row that does not say `anony`,
as none of the upstream data does, is rated as anonymous and the output says so; a flag nobody
labelled leaves the battle out of that category's board, counted) or a FastChat-shaped battles
file (JSON lines or a JSON array). The board is `vlmscope.tracks.visionarena.report`'s:
every category and language board with its style-controlled twin, tie shares, the
minimum-votes rule and rank changes under style control. `--result-dir` writes it as a result
dataset the Space shows; `--out` as JSON. An input with no rows is an error (`--allow-empty`
writes a board with no models), and so are battles whose models fall into groups that never met
(`--per-component` rates each group on its own board).
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vlmscope.cli.board_inputs import (
    ALLOW_EMPTY_HELP,
    PER_COMPONENT_HELP,
    empty_board,
    per_component,
    refuse_empty,
)
from vlmscope.cli.failure import fail
from vlmscope.ratings.boards.names import BATTLES_BOARD

COMMAND = "vlmscope visionarena leaderboard"
TRACK = BATTLES_BOARD


def add_leaderboard_parser(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "leaderboard",
        help="rate human battles into the vision leaderboard (every category, style control)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("data", type=Path, metavar="DATA", help="Battle folder or battles file")
    parser.add_argument("--result-dir", type=Path, help="write a result dataset the Space reads")
    parser.add_argument("--out", type=Path, help="write the board as JSON")
    parser.add_argument(
        "--bootstrap", type=int, default=100, metavar="N", help="bootstrap rounds (default 100)"
    )
    parser.add_argument(
        "--min-votes",
        type=int,
        default=100,
        metavar="N",
        help="flag models with fewer battles than this on a board (default 100, the paper's)",
    )
    parser.add_argument(
        "--languages",
        nargs="*",
        metavar="LANGUAGE",
        help="language boards (default: every language the battles name)",
    )
    parser.add_argument("--allow-empty", action="store_true", help=ALLOW_EMPTY_HELP)
    parser.add_argument("--per-component", action="store_true", help=PER_COMPONENT_HELP)
    parser.set_defaults(func=handle_leaderboard)


def handle_leaderboard(args: argparse.Namespace) -> int:
    from vlmscope.cli.board_output import describe, now_iso, write_board_json
    from vlmscope.tracks.visionarena.report import ArenaSettings, arena_leaderboard

    started_at = now_iso()
    try:
        records, from_dataset = _records(args.data)
        settings = ArenaSettings(
            rounds=args.bootstrap,
            min_votes=args.min_votes,
            languages=tuple(args.languages) if args.languages else None,
            anony_assumed=from_dataset,
        )
        if refuse_empty(args.data, len(records), args.allow_empty):
            board = empty_board({"command": "visionarena leaderboard"})
        else:
            board = _fitted(args, records, lambda kept: arena_leaderboard(kept, settings))
    except (ValueError, KeyError, OSError) as error:
        return fail(COMMAND, error)
    try:
        if args.out is not None:
            write_board_json(args.out, board)
        if args.result_dir is not None:
            _write_result(args, board, records, started_at)
    except OSError as error:
        return fail(COMMAND, error)
    print(f"board: {describe(board)}")
    return 0


def _fitted(args: argparse.Namespace, records: list[Any], rate: Callable[[list[Any]], Any]) -> Any:
    """`rate(records)`; when the models never all met, an error naming the groups, or with
    `--per-component` one leaderboard per group (`board_inputs.per_component`)."""
    from vlmscope.ratings.fits.connected import DisconnectedBattles

    def group(models: frozenset[str], main: bool) -> Any:
        return rate([r for r in records if r["model_a"] in models and r["model_b"] in models])

    try:
        return rate(records)
    except DisconnectedBattles as error:
        if not args.per_component:
            raise ValueError(
                f"{args.data}: {error}; --per-component rates each group on its own board"
            ) from None
        return per_component(error.groups, group)


def _records(data: Path) -> tuple[list[Any], bool]:
    """The battle records, and whether some were read as anonymous for want of `anony`."""
    if data.is_dir():
        from vlmscope.tracks.visionarena.rows import battle_record, read_battle_rows

        rows = read_battle_rows(data)
        return [battle_record(row) for row in rows], any(row.anony is None for row in rows)
    from vlmscope.ratings.inputs.battles import read_battle_records

    return list(read_battle_records(data, style=True).rows), False


def _write_result(args: argparse.Namespace, board: Any, records: list[Any], started: str) -> None:
    from vlmscope.cli.board_output import config_hash, now_iso
    from vlmscope.ratings.inputs.board_selection import select_board_battles
    from vlmscope.runner.results import BoardResult, write_board_result

    request = {
        "command": "visionarena leaderboard",
        "bootstrap": args.bootstrap,
        "min_votes": args.min_votes,
        "languages": args.languages,
    }
    result = BoardResult(
        track=TRACK,
        board=board,
        details=select_board_battles(records),
        source=f"visionarena leaderboard {args.data.name}",
        config_hash=config_hash(request, _input_digest(args.data)),
        started_at=started,
        finished_at=now_iso(),
    )
    folder = write_board_result(args.result_dir, result)
    print(f"wrote result dataset {folder} (track {TRACK})")


def _input_digest(data: Path) -> bytes:
    """What the result's hash covers of the input: the file, or every file of the folder (read
    a block at a time: a Battle download holds gigabytes of images)."""
    files = [data] if data.is_file() else sorted(p for p in data.rglob("*") if p.is_file())
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(data.parent if data.is_file() else data)).encode())
        with path.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    return digest.digest()
