"""`vlmscope probench agreement`: ProBench's two checks of its judge (paper Sec. 3.4, App. C).

* `labels`: the judge's verdicts against human labels of the same games, as exact 5-level
  agreement and direction agreement side by side (the paper's "79.9% agreement" names neither).
* `boards`: two ProBench boards (other judge, or other baseline) fitted from two verdict files
  and compared by Spearman (the paper's 0.979 / 0.983), Kendall tau and confidence agreement.

The numbers come from `vlmscope.ratings.boards.judge_agreement`; this module reads the files, prints a
short table and writes JSON. Rating modules are imported only when a command runs.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlmscope.cli.agreement_output import boards_table, write_json
from vlmscope.cli.failure import fail
from vlmscope.cli.verdict_flags import add_verdict_weight_flags
from vlmscope.tracks.probench import BASELINE_NAME

if TYPE_CHECKING:
    from vlmscope.ratings.boards.board import RatingBoard
    from vlmscope.ratings.boards.judge_agreement import JudgeHumanAgreement
    from vlmscope.ratings.inputs.verdict_records import VerdictRecord


DESCRIPTION = """\
Check a ProBench judge the two ways the paper does (Sec. 3.4, Appendix C):

  labels  compare judge verdicts with human labels of the same games
  boards  compare the ProBench boards fitted from two verdict files (two judges, or two
          baselines) by Spearman correlation

Verdict files are those `vlmscope ratings verdicts` reads: JSON lines (or a JSON array) of
{uid, model, [baseline], games: [{judgment}, {judgment}]} with games[0] showing the baseline as
Assistant A, or ProBench judgment files {uuid, model, "1": text, "0": text}. A row that cannot be
used stops the command with exit status 2 and a message naming the file, the line and the field.
"""

LABELS_EPILOG = """\
Label file: JSON lines (or a JSON array) of
  {"uid": ID, "model": NAME, "game": "baseline_first" | "model_first", "label": LABEL}
uid (or question_id / uuid) and model name the verdict record; game names the game the human
rated: baseline_first = the baseline shown as Assistant A (games[0], ProBench key "1"),
model_first = the model as A (games[1], ProBench key "0"); "1" and "0" are accepted as game
values too. label is one of A>>B, A>B, A=B, B>A, B>>A in that game's A/B positions. Other fields
are ignored; a second label for one (uid, model, game) is an error.

Reported side by side (the paper's 79.9% does not say which it is):
  exact agreement      the judge gives the same of the five labels as the human
  direction agreement  they agree on A better (A>>B, A>B) / tie (A=B) / B better (B>A, B>>A)
Both are over the compared labels only. A judge verdict without one of the five labels (no
judgment, no label, conflicting labels, a spelling like A<B) is counted as unparseable and left
out, never scored as a tie or a disagreement; so is a label with no verdict record.
example:
  vlmscope probench agreement labels --verdicts judgments.jsonl --labels human.jsonl --out a.json
"""

BOARDS_EPILOG = """\
Each file is fitted like `vlmscope ratings verdicts --reference probench` (one style-controlled
fit per model, Elo and CI truncated to ints). Models are compared by their board rating with its
95% interval, over the models both boards have. The baseline both boards pin (1114 on each) is
left out unless --keep-pinned: the same fixed value on both sides says nothing about the judges.
Against different baselines (--baseline-y) nothing is pinned on both, so every shared model counts.
example:
  vlmscope probench agreement boards --verdicts gpt4o_judge.jsonl --verdicts-y claude_judge.jsonl
"""


def add_subparser(subparsers: Any) -> None:
    """Add ``probench`` with ``agreement labels`` and ``agreement boards``."""
    parser = _command(
        subparsers,
        "probench",
        "ProBench judge checks: agreement with human labels and between boards",
        DESCRIPTION,
    )
    commands = parser.add_subparsers(dest="probench_command", required=True, metavar="COMMAND")
    agreement = _command(
        commands, "agreement", "judge vs human labels, or board vs board", DESCRIPTION
    )
    checks = agreement.add_subparsers(dest="agreement_command", required=True, metavar="CHECK")
    _add_labels(checks)
    _add_boards(checks)


def _command(
    parent: Any, name: str, summary: str, description: str, epilog: str | None = None
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = parent.add_parser(
        name,
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def _verdicts_flag(parser: argparse.ArgumentParser, flag: str, side: str) -> None:
    parser.add_argument(
        flag,
        required=True,
        nargs="+",
        type=Path,
        metavar="FILE",
        help=f"verdict file(s){side}, read in the order given (row order drives the bootstrap)",
    )


def _baseline_flag(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--baseline",
        default=BASELINE_NAME,
        help=f"the baseline model (Assistant A in games[0]){what}; rows that do not name "
        "their baseline are read as judged against it (default %(default)s)",
    )


def _out_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the result as JSON")


def _add_labels(checks: Any) -> None:
    parser = _command(
        checks,
        "labels",
        "judge verdicts vs human labels of the same games",
        "Agreement of judge verdicts with human labels of the same games.",
        LABELS_EPILOG,
    )
    _verdicts_flag(parser, "--verdicts", "")
    parser.add_argument(
        "--labels", required=True, type=Path, metavar="FILE", help="human label file (see below)"
    )
    _baseline_flag(parser, "")
    _out_flag(parser)
    parser.set_defaults(func=handle_labels)


def _add_boards(checks: Any) -> None:
    parser = _command(
        checks,
        "boards",
        "Spearman / Kendall / confidence agreement between two ProBench boards",
        "Fit a ProBench board from each of two verdict files and compare them.",
        BOARDS_EPILOG,
    )
    _verdicts_flag(parser, "--verdicts", " of board x")
    _verdicts_flag(parser, "--verdicts-y", " of board y")
    _baseline_flag(parser, " of board x, and of board y unless --baseline-y")
    parser.add_argument(
        "--baseline-y", help="the baseline of board y, when it differs (default: --baseline)"
    )
    add_verdict_weight_flags(parser)
    parser.add_argument(
        "--bootstrap",
        "--rounds",
        dest="bootstrap",
        type=int,
        default=100,
        metavar="N",
        help="bootstrap rounds of each board (default 100)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=42,
        help="legacy numpy seed of the bootstrap stream (default 42, ProBench's)",
    )
    parser.add_argument(
        "--keep-pinned",
        action="store_true",
        help="keep the baseline both boards pin at 1114 in the comparison",
    )
    _out_flag(parser)
    parser.set_defaults(func=handle_boards)


def handle_labels(args: argparse.Namespace) -> int:
    """Read, compare, print the table; exit 2 with one line on stderr on a bad input."""
    from vlmscope.ratings.boards.judge_agreement import judge_human_agreement, read_human_labels

    command = "vlmscope probench agreement labels"
    try:
        records = _read_verdicts(args.verdicts, args.baseline)
        labels = read_human_labels(args.labels)
        result = judge_human_agreement(records, labels)
    except (ValueError, OSError) as error:
        return fail(command, error)
    inputs = {"verdicts": [str(p) for p in args.verdicts], "labels": str(args.labels)}
    print(labels_table(result))
    return write_json(args.out, {"command": command, "inputs": inputs, **result.to_json()}, command)


def handle_boards(args: argparse.Namespace) -> int:
    """Fit both boards, compare, print the table; exit 2 on a bad input or setting."""
    from vlmscope.ratings.boards.judge_agreement import board_agreement

    command = "vlmscope probench agreement boards"
    try:
        board_x = _probench_board(args, args.verdicts, args.baseline)
        board_y = _probench_board(args, args.verdicts_y, args.baseline_y or args.baseline)
        result = board_agreement(board_x, board_y, exclude_pinned=not args.keep_pinned)
    except (ValueError, OSError) as error:
        return fail(command, error)
    print(boards_table(result, board_x, board_y))
    payload = {
        "command": command,
        "inputs": {"x": [str(p) for p in args.verdicts], "y": [str(p) for p in args.verdicts_y]},
        **result.to_json(),
        "boards": {"x": board_x.to_json(), "y": board_y.to_json()},
    }
    return write_json(args.out, payload, command)


def _read_verdicts(paths: Sequence[Path], baseline: str) -> list[VerdictRecord]:
    from vlmscope.ratings.inputs.verdict_records import read_verdict_records

    return [record for path in paths for record in read_verdict_records(path, baseline)]


def _probench_board(args: argparse.Namespace, paths: Sequence[Path], baseline: str) -> RatingBoard:
    from vlmscope.ratings.boards.verdict_presets import PROBENCH, VerdictSettings, verdict_board

    settings = VerdictSettings(
        reference=PROBENCH,
        baseline=baseline,
        weight=args.weight,
        first_game_only=args.first_game_only,
        rounds=args.bootstrap,
        seed=args.seed,
    )
    return verdict_board(_read_verdicts(paths, baseline), settings)


def labels_table(result: JudgeHumanAgreement) -> str:
    """The counts, both rates and the confusion table, for a terminal."""
    from vlmscope.judges.verdicts import CANONICAL_LABELS

    reasons = ", ".join(f"{k} {v}" for k, v in result.unparseable_by_reason.items())
    lines = [
        f"judge vs human: {result.labels} labels, {result.compared} compared; left out: "
        f"{result.judge_unparseable} with an unparseable judge verdict"
        + (f" ({reasons})" if reasons else "")
        + f", {result.without_record} without a verdict record",
        f"  exact agreement (same of the 5 labels):           "
        f"{_pct(result.exact_agreement)}  ({result.exact_matches}/{result.compared})",
        f"  direction agreement (A better / tie / B better):  "
        f"{_pct(result.direction_agreement)}  ({result.direction_matches}/{result.compared})",
        "  (the paper's 79.9% names neither reading)",
        "confusion, rows = human label, columns = judge label (A/B as in the rated game):",
        "human\\judge " + "".join(f"{label:>6}" for label in CANONICAL_LABELS),
    ]
    for human in CANONICAL_LABELS:
        row = result.confusion.get(human, {})
        lines.append(f"{human:<11} " + "".join(f"{row.get(j, 0):>6}" for j in CANONICAL_LABELS))
    return "\n".join(lines)


def _pct(value: float) -> str:
    return "   n/a" if math.isnan(value) else f"{100 * value:5.1f}%"
