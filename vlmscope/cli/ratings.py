"""`vlmscope ratings`: leaderboards from pairwise battles or from judge-vs-baseline verdicts.

It lives in the top layer, not in `vlmscope.ratings`, because it writes result datasets
(`vlmscope.runner.results`), which sit above the rating code. The rating itself is
`battle_board` / `verdict_board`. This module holds the command line (the sub-commands, their
flags and help); `vlmscope.cli.ratings_boards` reads the input, picks the settings and writes
the board (`--out` as JSON, `--result-dir` as a result dataset the Space reads).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from vlmscope.cli.board_inputs import ALLOW_EMPTY_HELP, PER_COMPONENT_HELP
from vlmscope.cli.ratings_boards import (
    BATTLES_TRACK,
    PROBENCH_TRACK,
    VERDICTS_TRACK,
    rate_battles,
    rate_verdicts,
    require_output,
    run_and_write,
)
from vlmscope.cli.verdict_flags import add_verdict_weight_flags

DESCRIPTION = """\
Rate models from pairwise preferences into one rating board:
{"models": {NAME: {"rating", "lower", "upper", "win_rate", "battles", "rank", ...}},
 "style_coefficients": {FEATURE: value} or null, "unparseable": COUNT, "excluded": {...},
 "settings": {...}, "style_control": BOARD or null, "categories": {NAME: BOARD}}.

  battles   human battles (FastChat clean-battle JSONL/JSON/Parquet: model_a, model_b, winner, ...)
  verdicts  judge verdicts against a baseline (two games per prompt, labels like [[A>>B]])

--reference reproduces one upstream implementation call for call (same estimator, random
stream, anchor and interval); without it the same estimators run on a seeded generator.
--style-control keeps the plain fit as the board and nests the style-controlled fit of the same
battles under "style_control" (ProBench is style-controlled itself: no companion).
Write the board with --out FILE (JSON), --result-dir DIR (a result dataset: `summary` holds the
board, `details` the battles or verdicts it was fitted on), or both; one is required.

Every input row is checked. A row that cannot be used (not JSON or not an object, a model absent,
null, not a string or empty, a model against itself, a winner other than model_a / model_b /
tie / tie (bothbad), a style count, token count or tstamp that is not a finite number, a flag
that is not true or false, a question_id (a verdict's uid for its model and baseline) that an
earlier row already gave) stops the run with exit status 2 and a message naming the file, the
line (the index in a JSON array) and the field. An input with no rows is an error too
(--allow-empty writes a board with no models), and so are battles whose models fall into groups
that never met (--per-component rates each group on its own board). With --skip-bad-rows such rows are left out and counted by reason under
settings.skipped ({"bad_winner": 1, "not_json": 1, ...}), printed, and stored with the board.
A fit that cannot happen (NaN inputs, a style feature that never varies, an optimiser that did
not move from its start) is an error too (exit 2), never a board with every model at 1000.
"""

BATTLES_EPILOG = """\
references:
  fastchat         FastChat report_elo_analysis_results (bt): anonymous battles in tstamp order,
                   compute_bt + compute_bootstrap_bt (or style control), mixtral-8x7b-instruct-v0.1
                   at 1114 when present; with --system elo: compute_elo + compute_bootstrap_elo
                   after np.random.seed(42)
  arena-hard-v0.1  compute_mle_elo (gpt-4-0314 = 1000 unless --anchor) + get_bootstrap_result
categories: {categories}
  a category whose battles are missing (or whose field the records lack) is skipped and listed
  under settings.skipped_categories
examples:
  vlmscope ratings battles battles.jsonl --out board.json --reference fastchat --style-control
  vlmscope ratings battles battles.jsonl --reference fastchat --style-control --result-dir DIR
  vlmscope ratings battles battles.jsonl --out ocr.json --category ocr --bootstrap 1000 --seed 7
"""

VERDICTS_EPILOG = """\
references (default arena-hard-v0.1):
  arena-hard-v0.1  all models in one Bradley-Terry fit; baseline = 1000 (1114 for the
                   style-controlled fit); 2.5/97.5 percentiles of 100 bootstrap rounds (seed 42)
  probench         ProBench show_result: one style-controlled fit per model (style control
                   always on, so no companion), Elo and CI truncated to ints, win rate from the
                   int score
  arena-hard-v2    win rates: mean of per-model bootstrap means, or for the style-controlled fit
                   the median of a 50-step L-BFGS style fit per round; 5/95 percent interval;
                   it takes the metadata counts by position (token_len, header_count,
                   list_count, bold_count), as upstream does: answers whose keys come in
                   another order, or under other names, are counted in settings.notes (one
                   note per order, naming the first) and printed; a layout upstream stops on
                   (other than 4 keys, 2 or 4 for the baseline) is an error naming the answer
Input rows: {uid, model, [baseline], [category], games: [{judgment}, {judgment}],
[model_metadata, baseline_metadata]} where games[0] shows the baseline as Assistant A;
ProBench files {uuid, model, "1": text, "0": text} also load. Row order matters for the
bootstrap; a label-less or conflicting verdict is counted under "unparseable", never a tie.
Category boards are the distinct "category" values of the rows.
example:
  vlmscope ratings verdicts judgments.jsonl --baseline gpt-4o-2024-05-13 --out pb.json \\
      --reference probench
"""


def add_subparser(subparsers: Any) -> None:
    """Add ``ratings`` with the ``battles`` and ``verdicts`` sub-commands."""
    parser = subparsers.add_parser(
        "ratings",
        help="Bradley-Terry / Elo leaderboards with bootstrap CIs",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="ratings_command", required=True, metavar="SOURCE")
    _add_battles(commands)
    _add_verdicts(commands)


def _common(parser: argparse.ArgumentParser, track_help: str) -> None:
    parser.add_argument(
        "file", type=Path, help="input JSON-lines file (or a JSON array, or a Parquet file)"
    )
    parser.add_argument("--out", type=Path, metavar="FILE", help="write the board as JSON here")
    parser.add_argument(
        "--result-dir",
        type=Path,
        metavar="DIR",
        help="write the board as a result dataset here (summary + details); "
        "computes every category board unless --categories or --category says otherwise",
    )
    parser.add_argument("--track", help=f"track name of the result dataset ({track_help})")
    parser.add_argument(
        "--categories",
        metavar="all|NAME,NAME",
        help="category boards to add to the board: 'all' or a comma list "
        "(default: none with --out alone, all with --result-dir)",
    )
    parser.add_argument(
        "--style-control",
        action="store_true",
        help="also fit with control for answer length and markdown (headers, lists, bold), "
        "nested under style_control",
    )
    parser.add_argument(
        "--bootstrap", type=int, default=100, metavar="N", help="bootstrap rounds (default 100)"
    )
    parser.add_argument(
        "--skip-bad-rows",
        action="store_true",
        help="leave out input rows that cannot be used and count them by reason under "
        "settings.skipped (default: stop at the first one, exit 2, naming file, line and field)",
    )
    parser.add_argument("--allow-empty", action="store_true", help=ALLOW_EMPTY_HELP)
    parser.set_defaults(usage_error=parser.error, per_component=False)


def _add_battles(commands: Any) -> None:
    from vlmscope.ratings.boards.names import BATTLE_CATEGORIES, BATTLE_REFERENCES, SYSTEMS
    from vlmscope.ratings.inputs.filters import BOARD_FILTERS

    parser = commands.add_parser(
        "battles",
        help="rate pairwise battles",
        epilog=BATTLES_EPILOG.format(categories=", ".join(BATTLE_CATEGORIES)),
        description="Rate models from pairwise battles (VisionArena / Chatbot Arena style).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(parser, f"default {BATTLES_TRACK}")
    parser.add_argument(
        "--system",
        choices=SYSTEMS,
        default="bt",
        help="bt: Bradley-Terry MLE (default); elo: online Elo in time order",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="generator seed when no --reference is given (default 0)",
    )
    parser.add_argument(
        "--anchor",
        metavar="MODEL=VALUE",
        help="pin MODEL at VALUE, a finite rating; MODEL must have battles on the board "
        "(default: none, or the reference's anchor when that model is there)",
    )
    parser.add_argument("--category", choices=sorted(BOARD_FILTERS), help="rate one board only")
    parser.add_argument("--reference", choices=BATTLE_REFERENCES, help="reproduce a reference")
    parser.add_argument("--per-component", action="store_true", help=PER_COMPONENT_HELP)
    parser.set_defaults(func=handle_battles)


def _add_verdicts(commands: Any) -> None:
    from vlmscope.ratings.boards.names import ARENA_HARD_V01, VERDICT_REFERENCES

    parser = commands.add_parser(
        "verdicts",
        help="rate judge verdicts against a baseline",
        epilog=VERDICTS_EPILOG,
        description="Rate models from pairwise judge verdicts against one baseline model.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(
        parser,
        f"default {PROBENCH_TRACK} with --reference probench, else {VERDICTS_TRACK}",
    )
    parser.add_argument(
        "--baseline", required=True, help="the baseline model (Assistant A in game 1)"
    )
    add_verdict_weight_flags(parser)
    parser.add_argument(
        "--seed",
        type=int,
        default=42,
        help="legacy numpy seed of the bootstrap stream (default 42, the references')",
    )
    parser.add_argument("--category", help="only records whose category equals this")
    parser.add_argument(
        "--reference",
        choices=VERDICT_REFERENCES,
        default=ARENA_HARD_V01,
        help="which reference scorer to reproduce (default %(default)s)",
    )
    parser.set_defaults(func=handle_verdicts)


def handle_battles(args: argparse.Namespace) -> int:
    require_output(args)
    return run_and_write(args, "battles", rate_battles)


def handle_verdicts(args: argparse.Namespace) -> int:
    require_output(args)
    return run_and_write(args, "verdicts", rate_verdicts)
