"""`vlmscope ratings`: leaderboards from pairwise battles or from judge-vs-baseline verdicts.

It lives in the top layer, not in `vlmscope.ratings`, because it writes result datasets
(`vlmscope.runner.results`), which sit above the rating code. The rating itself is
`battle_board` / `verdict_board`; this module only reads the input, picks the settings and
writes the board (`--out` as JSON, `--result-dir` as a result dataset the Space reads).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vlmscope.cli.board_output import config_hash, describe, now_iso, write_board_json
from vlmscope.cli.verdict_flags import add_verdict_weight_flags
from vlmscope.ratings.board import RatingBoard, with_skipped_rows
from vlmscope.ratings.row_checks import BadRowError

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
tie / tie (bothbad), a style count, token count or tstamp that is not a finite number) stops the
run with exit status 2 and a message naming the file, the line (the index in a JSON array) and
the field. With --skip-bad-rows such rows are left out and counted by reason under
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
                   the median of a 50-step L-BFGS style fit per round; 5/95 percent interval
Input rows: {uid, model, [baseline], [category], games: [{judgment}, {judgment}],
[model_metadata, baseline_metadata]} where games[0] shows the baseline as Assistant A;
ProBench files {uuid, model, "1": text, "0": text} also load. Row order matters for the
bootstrap; a label-less or conflicting verdict is counted under "unparseable", never a tie.
Category boards are the distinct "category" values of the rows.
example:
  vlmscope ratings verdicts judgments.jsonl --baseline gpt-4o-2024-05-13 --out pb.json \\
      --reference probench
"""

BATTLES_TRACK = "visionarena"
PROBENCH_TRACK = "probench"
VERDICTS_TRACK = "arena-hard"
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
    parser.set_defaults(usage_error=parser.error)


def _add_battles(commands: Any) -> None:
    from vlmscope.ratings.battle_presets import BATTLE_CATEGORIES, BATTLE_REFERENCES, SYSTEMS
    from vlmscope.ratings.filters import BOARD_FILTERS

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
        help="pin MODEL at VALUE (default: none, or the reference's anchor)",
    )
    parser.add_argument("--category", choices=sorted(BOARD_FILTERS), help="rate one board only")
    parser.add_argument("--reference", choices=BATTLE_REFERENCES, help="reproduce a reference")
    parser.set_defaults(func=handle_battles)


def _add_verdicts(commands: Any) -> None:
    from vlmscope.ratings.verdict_presets import ARENA_HARD_V01, VERDICT_REFERENCES

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
    _require_output(args)
    return _run(args, "battles", _rate_battles)


def handle_verdicts(args: argparse.Namespace) -> int:
    _require_output(args)
    return _run(args, "verdicts", _rate_verdicts)


def _require_output(args: argparse.Namespace) -> None:
    """An argparse error (usage, exit 2) when the board would be written nowhere."""
    if args.out is None and args.result_dir is None:
        args.usage_error("one of --out FILE / --result-dir DIR is required")


def _run(
    args: argparse.Namespace, command: str, rate: Callable[[argparse.Namespace], RatedFile]
) -> int:
    """Rate, then write; a bad setting or input is one line on stderr and exit status 2."""
    started_at = now_iso()
    try:
        rated = rate(args)
        input_bytes = args.file.read_bytes() if args.result_dir is not None else b""
    except (ValueError, KeyError, OSError) as error:
        print(f"vlmscope ratings {command}: {_reason(error)}", file=sys.stderr)
        return 2
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
        print(f"vlmscope ratings {command}: {_reason(error)}", file=sys.stderr)
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


def _rate_battles(args: argparse.Namespace) -> RatedFile:
    from vlmscope.ratings.battle_presets import (
        BATTLE_CATEGORIES,
        BattleSettings,
        battle_board,
        select_board_battles,
    )
    from vlmscope.ratings.battles import read_battle_records

    anchor_model, anchor_rating = _parse_anchor(args.anchor)
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
    board = battle_board(
        checked.rows, settings, categories=categories, style_companion=args.style_control
    )
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
    from vlmscope.ratings.battle_presets import board_from_battles
    from vlmscope.ratings.battle_stream import read_board_battles

    streamed = read_board_battles(
        args.file, style=args.style_control, skip_bad_rows=args.skip_bad_rows
    )
    board = board_from_battles(streamed.battles, settings, style_companion=args.style_control)
    return RatedFile(
        board=with_skipped_rows(board, streamed.skipped),
        details=(),
        request=request,
        first_skipped=streamed.first_skipped,
    )


def _rate_verdicts(args: argparse.Namespace) -> RatedFile:
    from vlmscope.ratings.verdict_presets import (
        VerdictSettings,
        select_verdicts,
        verdict_board,
        verdict_categories,
    )
    from vlmscope.ratings.verdict_records import read_verdict_file, verdict_record_to_dict

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


def _parse_anchor(text: str | None) -> tuple[str | None, float | None]:
    if text is None:
        return None, None
    model, sep, value = text.rpartition("=")
    if not sep or not model:
        raise ValueError(f"--anchor: expected MODEL=VALUE, got {text!r}")
    try:
        return model, float(value)
    except ValueError:
        raise ValueError(f"--anchor: {value!r} is not a number") from None


def _reason(error: Exception) -> str:
    """The error as one line; a missing field (KeyError) is named as such."""
    if isinstance(error, BadRowError):
        return f"{error}; --skip-bad-rows leaves such rows out and counts them"
    if isinstance(error, KeyError):
        return f"input lacks the field {error}"
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    return str(error)
