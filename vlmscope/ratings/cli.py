"""`vlmscope ratings`: leaderboards from pairwise battles or from judge-vs-baseline verdicts."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

DESCRIPTION = """\
Rate models from pairwise preferences and write one JSON file:
{"models": {NAME: {"rating", "lower", "upper", "win_rate", "battles", ...}},
 "style_coefficients": {FEATURE: value} or null, "unparseable": COUNT, "settings": {...}}.

  battles   human battles (FastChat clean-battle JSONL/JSON: model_a, model_b, winner, ...)
  verdicts  judge verdicts against a baseline (two games per prompt, labels like [[A>>B]])

--reference reproduces one upstream implementation call for call (same estimator, random
stream, anchor and interval); without it the same estimators run on a seeded generator.
"""

BATTLES_EPILOG = """\
references:
  fastchat         FastChat report_elo_analysis_results (bt): anonymous battles in tstamp order,
                   compute_bt + compute_bootstrap_bt (or style control), mixtral-8x7b-instruct-v0.1
                   at 1114 when present; with --system elo: compute_elo + compute_bootstrap_elo
                   after np.random.seed(42)
  arena-hard-v0.1  compute_mle_elo (gpt-4-0314 = 1000 unless --anchor) + get_bootstrap_result
examples:
  vlmscope ratings battles battles.jsonl --out board.json --reference fastchat --style-control
  vlmscope ratings battles battles.jsonl --out ocr.json --category ocr --bootstrap 1000 --seed 7
"""

VERDICTS_EPILOG = """\
references (default arena-hard-v0.1):
  arena-hard-v0.1  all models in one Bradley-Terry fit; baseline = 1000 (1114 with
                   --style-control); 2.5/97.5 percentiles of 100 bootstrap rounds (seed 42)
  probench         ProBench show_result: one style-controlled fit per model (style control
                   always on), Elo and CI truncated to ints, win rate from the int score
  arena-hard-v2    win rates: mean of per-model bootstrap means, or with --style-control the
                   median of a 50-step L-BFGS style fit per round; 5/95 percent interval
Input rows: {uid, model, [baseline], [category], games: [{judgment}, {judgment}],
[model_metadata, baseline_metadata]} where games[0] shows the baseline as Assistant A;
ProBench files {uuid, model, "1": text, "0": text} also load. Row order matters for the
bootstrap; a label-less or conflicting verdict is counted under "unparseable", never a tie.
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


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", type=Path, help="input JSON-lines file (or a JSON array)")
    parser.add_argument("--out", required=True, type=Path, help="where to write the ratings JSON")
    parser.add_argument(
        "--style-control",
        action="store_true",
        help="control for answer length and markdown (headers, lists, bold)",
    )
    parser.add_argument(
        "--bootstrap", type=int, default=100, metavar="N", help="bootstrap rounds (default 100)"
    )


def _add_battles(commands: Any) -> None:
    from vlmscope.ratings.battle_presets import BATTLE_REFERENCES, SYSTEMS
    from vlmscope.ratings.filters import BOARD_FILTERS

    parser = commands.add_parser(
        "battles",
        help="rate pairwise battles",
        epilog=BATTLES_EPILOG,
        description="Rate models from pairwise battles (VisionArena / Chatbot Arena style).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(parser)
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
    _common(parser)
    parser.add_argument(
        "--baseline", required=True, help="the baseline model (Assistant A in game 1)"
    )
    parser.add_argument(
        "--weight", type=int, default=3, help="rows per strong verdict such as [[A>>B]] (default 3)"
    )
    parser.add_argument(
        "--first-game-only",
        action="store_true",
        help="use only the game that shows the baseline as Assistant A",
    )
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


def handle_battles(args: argparse.Namespace) -> int:
    from vlmscope.ratings.battle_presets import BattleSettings, rate_battles
    from vlmscope.ratings.battles import load_records

    try:
        anchor_model, anchor_rating = _parse_anchor(args.anchor)
        settings = BattleSettings(
            reference=args.reference,
            system=args.system,
            style_control=args.style_control,
            rounds=args.bootstrap,
            seed=args.seed,
            anchor_model=anchor_model,
            anchor_rating=anchor_rating,
            category=args.category,
        )
        result = rate_battles(load_records(args.file), settings)
    except (ValueError, KeyError) as error:
        print(f"vlmscope ratings battles: {error}", file=sys.stderr)
        return 2
    return _write(args.out, result)


def handle_verdicts(args: argparse.Namespace) -> int:
    from vlmscope.ratings.verdict_presets import VerdictSettings, score_verdicts
    from vlmscope.ratings.verdict_records import read_verdict_records

    try:
        settings = VerdictSettings(
            reference=args.reference,
            baseline=args.baseline,
            style_control=args.style_control,
            weight=args.weight,
            first_game_only=args.first_game_only,
            rounds=args.bootstrap,
            seed=args.seed,
            category=args.category,
        )
        result = score_verdicts(read_verdict_records(args.file, args.baseline), settings)
    except (ValueError, KeyError) as error:
        print(f"vlmscope ratings verdicts: {error}", file=sys.stderr)
        return 2
    return _write(args.out, result)


def _write(path: Path, result: dict[str, Any]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    names = list(result["models"])
    shown = ", ".join(f"{name} {result['models'][name]['rating']:.1f}" for name in names[:5])
    more = ", ..." if len(names) > 5 else ""
    print(f"wrote {path}: {len(names)} models ({shown}{more}); unparseable {result['unparseable']}")
    return 0
