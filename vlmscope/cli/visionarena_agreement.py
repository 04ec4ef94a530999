"""`vlmscope visionarena agreement`: how far two leaderboards agree (VisionArena Table 4).

The paper compares VisionArena-Bench's board with the arena's human board by confidence
agreement, Spearman and Kendall tau on their shared models; here the same numbers plus
separability, pairwise accuracy and the Brier score, between any two boards: a battles board
(`visionarena leaderboard`), a bench board (a run's `_boards/visionarena_bench/`), or a
published leaderboard typed in as a table. The numbers come from
`vlmscope.ratings.boards.judge_agreement.board_agreement`; this module reads, prints and writes.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from vlmscope.cli.agreement_output import boards_table, write_json
from vlmscope.cli.failure import fail

COMMAND = "vlmscope visionarena agreement"
DESCRIPTION = """\
Compare two leaderboards on the models they share (VisionArena paper, Table 4): Spearman and
Kendall tau of the scores, confidence agreement and separability of the 95% intervals, and
how well X predicts Y's order of each pair (pairwise accuracy, Brier score). Y is the
reference order: put the human board there.
"""
EPILOG = """\
A board is any of:
  a result folder    --result-dir of `visionarena leaderboard` / `ratings battles`, or a
                     run's OUTPUT_DIR/_boards/<track>/ (e.g. the VisionArena-Bench board)
  a board JSON       --out of those commands
  a table            .csv, .jsonl or a .json array: model, rating (or score / elo /
                     arena_score), and optionally both lower and upper (the 95% interval);
                     without intervals a table separates no pair
A model both boards pin (the same anchor) is left out unless --keep-pinned. The Brier score
reads X's ratings on the Elo scale (400 points per factor of ten in the odds), as every board
vlmscope writes is; give --scale-x for a table on another scale.
examples:
  vlmscope visionarena agreement results/run/_boards/visionarena_bench results/arena_board
  vlmscope visionarena agreement bench.json arena.csv --category-y captioning --out agree.json
"""


def add_agreement_parser(commands: Any) -> None:
    parser: argparse.ArgumentParser = commands.add_parser(
        "agreement",
        help="agreement between two leaderboards (Spearman, Kendall, confidence, Brier)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for side in ("x", "y"):
        parser.add_argument(side, type=Path, metavar=side.upper(), help=f"board {side.upper()}")
    for side in ("x", "y"):
        upper = side.upper()
        parser.add_argument(
            f"--category-{side}",
            metavar="CATEGORY",
            help=f"compare {upper}'s board of this category (default its full board)",
        )
        parser.add_argument(
            f"--style-control-{side}",
            action="store_true",
            help=f"compare {upper}'s style-controlled fit",
        )
    parser.add_argument(
        "--scale-x",
        type=float,
        default=400.0,
        metavar="POINTS",
        help="X's points per factor of ten in the odds, for the Brier score (default 400)",
    )
    parser.add_argument(
        "--keep-pinned", action="store_true", help="keep a model both boards pin (the anchor)"
    )
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the result as JSON")
    parser.set_defaults(func=handle_agreement)


def handle_agreement(args: argparse.Namespace) -> int:
    """Read both boards, compare them, print the table; exit 2 on a bad input."""
    from vlmscope.cli.board_files import read_board, select_view
    from vlmscope.ratings.boards.judge_agreement import board_agreement

    try:
        board_x = select_view(
            read_board(args.x), args.x, category=args.category_x, style_control=args.style_control_x
        )
        board_y = select_view(
            read_board(args.y), args.y, category=args.category_y, style_control=args.style_control_y
        )
        result = board_agreement(
            board_x, board_y, exclude_pinned=not args.keep_pinned, scale_x=args.scale_x
        )
    except (ValueError, OSError) as error:
        return fail(COMMAND, error)
    print(boards_table(result, board_x, board_y))
    views = {
        side: {
            "board": str(getattr(args, side)),
            "category": getattr(args, f"category_{side}"),
            "style_control": getattr(args, f"style_control_{side}"),
        }
        for side in ("x", "y")
    }
    payload = {"command": COMMAND, "inputs": views, "scale_x": args.scale_x, **result.to_json()}
    return write_json(args.out, payload, COMMAND)
