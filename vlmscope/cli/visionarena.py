"""`vlmscope visionarena classify`: VisionArena's category classifiers over a set of prompts.

(`vlmscope visionarena leaderboard` lives in `visionarena_board.py`.)

Reads prompts (a JSONL file, or a VisionArena-Chat folder), asks each category classifier
(`vlmscope.judges.classify`: FastChat's, which made the released labels, or the paper's) through
the one cached `Judge`, writes the labels as dataset
columns and, against reference labels, the paper's Table 5 numbers per category. The judge's
replies are cached in OUT_DIR, so a rerun asks nothing already answered.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlmscope.atomic_files import write_bytes_atomic, write_text_atomic
from vlmscope.cli.classify_inputs import PromptRow, check_references, read_prompt_rows
from vlmscope.cli.failure import fail
from vlmscope.cli.judge_config import read_judge_config
from vlmscope.cli.visionarena_agreement import add_agreement_parser
from vlmscope.cli.visionarena_bench import add_bench_parsers
from vlmscope.cli.visionarena_board import add_leaderboard_parser

if TYPE_CHECKING:
    from vlmscope.judges.call_log import Call
    from vlmscope.judges.classify import ClassifierPrompt, ClassifierScores, Decision
    from vlmscope.judges.client import Judge

# The user-prompt classifiers (`vlmscope.judges.classify.PROMPT_CATEGORIES`), spelled out so
# that building the parser imports nothing.
CATEGORIES = (
    "captioning",
    "ocr",
    "entity_recognition",
    "homework",
    "humor",
    "diagram",
    "creative_writing",
)
_ROWS_AT_ONCE = 64
OUTCOMES = ("yes", "no", "unparseable", "request_failed")

DESCRIPTION = """\
VisionArena (Chou et al., 2024).

  leaderboard  rate human battles into the vision leaderboard: every category and language
               board with style control, tie shares, the minimum-votes rule (Sec. 3-4)
  classify     label prompts with the category classifiers, asked of a judge model: FastChat's,
               which made the released labels (default), or the paper's (Sec. 4.3, App. 12)
  agreement    how far two leaderboards agree, e.g. the bench board against the battles
               board (Table 4)
  build-bench  curate a VisionArena-Bench from chat logs: single-turn, deduplicated, CLIP,
               UMAP, HDBSCAN, uniform across clusters (Sec. 6)
  topics       the topic clusters of conversations, for the Space's Topics page (Sec. 3)
"""

CLASSIFY_EPILOG = """\
DATA is either
  a JSONL file, one conversation a line:
    {"id": ID, "text": PROMPT, "images": [PATH, ...], "categories": {CATEGORY: true|false|null}}
  image paths relative to the file's folder; "categories" (reference labels) is optional; or
  a VisionArena-Chat folder (parquet or JSONL files, as `vlmscope.tracks.visionarena.rows`
  reads them): the first user turn's text, the row's images, its `categories` struct.

--prompt-set fastchat (the default) asks as FastChat's classifiers asked for the labels
VisionArena released (vlmscope/prompts/visionarena_classify_fastchat_*.txt, verbatim): every user
turn joined and wrapped in <user_prompt>...</user_prompt>; captioning, entity_recognition,
creative_writing see that text; ocr, humor that text, then the first image; homework, diagram an
empty text, then the first image. A reply is read as FastChat reads it (<decision>yes</decision>
after newlines are removed); what FastChat read as no answer is unparseable here and also
reported as FastChat scored it (no), in <category>_fastchat.

--prompt-set paper asks with the paper's verbatim prompts (vlmscope/prompts/
visionarena_classify_*.txt): captioning, entity_recognition, creative_writing the first prompt's
text only; homework, diagram the image(s) only; ocr, humor the image(s) then the text. A reply
counts as yes/no when it holds <decision>yes<decision> or <decision>no</decision> (any case,
backticks or [brackets] allowed, see `vlmscope.judges.classify.parse_decision`). The paper's
refusal prompt labels model answers, not prompts, and is not run here.

An unparseable reply's label is null: it is counted, and never guessed.

JUDGE is a YAML file holding one model config (any backend), e.g.
  backend: openai
  name: gemini-1.5-flash
  base_url: https://...
  model: gemini-1.5-flash
  api_key_env: GEMINI_API_KEY

Writes to OUT_DIR:
  labels.jsonl / labels.parquet  one row per conversation: id, one bool|null column per
                                 category, <category>_reply with the judge's raw reply and,
                                 with the fastchat set, <category>_fastchat (FastChat's score)
  summary.json                   counts (yes, no, unparseable, request_failed) per category,
                                 judge, the prompt set and versions, and with --reference-labels
                                 the per-category precision, recall, F1, agreement, support
  cache.sqlite                   the judge's replies: a rerun asks nothing again
example:
  vlmscope visionarena classify prompts.jsonl --judge flash.yaml --out runs/categories \\
      --categories ocr humor --reference-labels
"""


def add_subparser(subparsers: Any) -> None:
    """Add ``visionarena`` with ``leaderboard``, ``classify``, ``agreement``, ``build-bench``
    and ``topics``."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "visionarena",
        help="VisionArena: the battle leaderboard, the category classifiers, bench curation",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="visionarena_command", required=True, metavar="COMMAND")
    add_leaderboard_parser(commands)  # in the description's order
    classify: argparse.ArgumentParser = commands.add_parser(
        "classify",
        help="label prompts with the category classifiers (FastChat's or the paper's)",
        description="Label prompts with VisionArena's category classifiers, asked of a judge.",
        epilog=CLASSIFY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    classify.add_argument("data", type=Path, metavar="DATA", help="JSONL file or Chat folder")
    classify.add_argument(
        "--judge", required=True, type=Path, metavar="JUDGE", help="YAML of one model config"
    )
    classify.add_argument(
        "--out", required=True, type=Path, metavar="OUT_DIR", help="folder for labels and cache"
    )
    classify.add_argument(
        "--categories",
        nargs="+",
        choices=CATEGORIES,
        default=list(CATEGORIES),
        metavar="CATEGORY",
        help=f"classifiers to run (default all: {', '.join(CATEGORIES)})",
    )
    classify.add_argument(
        "--limit", type=int, metavar="N", help="only the first N conversations of DATA"
    )
    classify.add_argument(
        "--prompt-set",
        choices=("fastchat", "paper"),
        default="fastchat",
        help="fastchat (default): FastChat's classifier prompts and messages, which made the "
        "labels VisionArena released; paper: the prompts printed in the paper's Appendix 12",
    )
    classify.add_argument(
        "--reference-labels",
        action="store_true",
        help="compare with the reference labels of DATA (`categories`); every row must have them",
    )
    classify.set_defaults(func=handle_classify)
    add_agreement_parser(commands)
    add_bench_parsers(commands)


def handle_classify(args: argparse.Namespace) -> int:
    """Read, classify, write; exit 2 with one line on stderr on a bad input."""
    command = "vlmscope visionarena classify"
    if args.limit is not None and args.limit < 0:
        return fail(command, ValueError(f"--limit must be >= 0, got {args.limit}"))
    try:
        config = read_judge_config(args.judge)
        rows = read_prompt_rows(args.data, limit=args.limit)
        if args.reference_labels:
            check_references(rows, args.categories)
    except (ValueError, OSError) as error:
        return fail(command, error)

    from vlmscope.cache import ResponseCache
    from vlmscope.judges.classify import CLASSIFIER_SETTINGS, load_classifier_prompts
    from vlmscope.judges.client import Judge
    from vlmscope.models.registry import build_backend

    prompts = load_classifier_prompts(args.categories, args.prompt_set)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        cache = ResponseCache(args.out / "cache.sqlite")
    except OSError as error:
        return fail(command, error)
    from vlmscope.judges.call_log import CLASSIFY, collecting

    judge = Judge(build_backend(config), cache, phase=CLASSIFY)
    try:
        with collecting() as calls:  # every classifier call, for the ledger
            decisions = asyncio.run(_classify_rows(judge, prompts, rows))
    finally:
        cache.close()

    counts = {c: outcome_counts([d[c] for d in decisions]) for c in args.categories}
    summary: dict[str, Any] = {
        "command": command,
        "data": str(args.data),
        "rows": len(rows),
        "judge": judge.describe(CLASSIFIER_SETTINGS),
        "prompt_set": args.prompt_set,
        "prompts": {
            c: {"name": p.name, "version": p.version, "inputs": p.inputs}
            for c, p in prompts.items()
        },  # fmt: skip
        "counts": counts,
        "judge_calls": {"asked": judge.counts["asked"], "cached": judge.counts["cached"]},
        "ledger": classify_ledger(calls),
    }
    scores: dict[str, ClassifierScores] | None = None
    if args.reference_labels:
        from vlmscope.judges.classify import classifier_agreement

        predicted = [{c: d[c].label for c in args.categories} for d in decisions]
        reference = [dict(row.reference or {}) for row in rows]
        scores = classifier_agreement(predicted, reference, args.categories)
        summary["agreement"] = {c: s.to_json() for c, s in scores.items()}
    try:
        write_labels(args.out, rows, decisions, args.categories)
        write_text_atomic(args.out / "summary.json", json.dumps(summary, indent=2) + "\n")
    except OSError as error:
        return fail(command, error)
    print(counts_table(counts, len(rows), summary["judge_calls"]))
    if scores is not None:
        print(scores_table(scores))
    print(f"wrote {args.out / 'labels.jsonl'}, labels.parquet and summary.json")
    return 0


def classify_ledger(calls: Sequence[Call]) -> dict[str, Any]:
    """The classifier calls added up (requests, tokens, seconds), as a run's ledger adds up its
    phases; no prices: the command takes no pricing file."""
    from vlmscope.runner.ledger import tally
    from vlmscope.runner.pricing import Pricer

    found = tally(calls, Pricer({})).to_json()
    return {key: value for key, value in found.items() if not key.endswith("_usd")}


async def _classify_rows(
    judge: Judge, prompts: Mapping[str, ClassifierPrompt], rows: Sequence[PromptRow]
) -> list[dict[str, Decision]]:
    """Every row, a window of rows at a time (the judge bounds requests in flight)."""
    from tqdm.auto import tqdm

    from vlmscope.judges.classify import classify

    out: list[dict[str, Decision]] = []
    with tqdm(total=len(rows), desc="classify", unit="row", file=sys.stderr) as bar:
        for start in range(0, len(rows), _ROWS_AT_ONCE):
            window = rows[start : start + _ROWS_AT_ONCE]

            async def one(row: PromptRow) -> dict[str, Decision]:
                turns = row.user_turns or (row.text,)
                result = await classify(judge, prompts, row.text, row.images, user_turns=turns)
                bar.update(1)
                return result

            out.extend(await asyncio.gather(*(one(r) for r in window)))
    return out


def outcome_counts(decisions: Sequence[Decision]) -> dict[str, int]:
    """How many decisions ended each way, every outcome named (zeros included)."""
    found: Counter[str] = Counter(d.outcome for d in decisions)
    return {outcome: found[outcome] for outcome in OUTCOMES}


def label_records(
    rows: Sequence[PromptRow],
    decisions: Sequence[Mapping[str, Decision]],
    categories: Sequence[str],
) -> list[dict[str, Any]]:
    """One flat record per row: id, `<category>` bool|null, `<category>_reply` raw text; and
    for a classifier that reasoned, `<category>_reasoning` (its trace) and
    `<category>_reasoning_tokens` (every row has them then, empty where it did not)."""
    reasoned = reasoned_categories(decisions, categories)
    records = []
    for row, labels in zip(rows, decisions, strict=True):
        record: dict[str, Any] = {"id": row.id}
        record.update({c: labels[c].label for c in categories})
        record.update({f"{c}_reply": labels[c].reply for c in categories})
        fastchat = {c: labels[c].fastchat_label for c in categories}
        if any(value is not None for value in fastchat.values()):  # the fastchat prompt set
            record.update({f"{c}_fastchat": value for c, value in fastchat.items()})
        for c in reasoned:
            record[f"{c}_reasoning"] = str(labels[c].reasoning.get("reasoning", ""))
            record[f"{c}_reasoning_tokens"] = int(labels[c].reasoning.get("reasoning_tokens", 0))
        records.append(record)
    return records


def reasoned_categories(
    decisions: Sequence[Mapping[str, Decision]], categories: Sequence[str]
) -> list[str]:
    """The categories whose classifier reasoned on some row."""
    return [c for c in categories if any(d[c].reasoning for d in decisions)]


def write_labels(
    out: Path,
    rows: Sequence[PromptRow],
    decisions: Sequence[Mapping[str, Decision]],
    categories: Sequence[str],
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = label_records(rows, decisions, categories)
    first = records[0] if records else {}
    lines = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    write_text_atomic(out / "labels.jsonl", lines)
    reasoned = reasoned_categories(decisions, categories)
    schema = pa.schema(
        [("id", pa.string())]
        + [(c, pa.bool_()) for c in categories]
        + [(f"{c}_reply", pa.string()) for c in categories]
        + [(f"{c}_fastchat", pa.bool_()) for c in categories if f"{c}_fastchat" in first]
        + [(f"{c}_{kind}", type_) for c in reasoned
           for kind, type_ in (("reasoning", pa.string()), ("reasoning_tokens", pa.int64()))]
    )  # fmt: skip
    buffer = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(records, schema=schema), buffer)
    write_bytes_atomic(out / "labels.parquet", buffer.getvalue().to_pybytes())


def counts_table(
    counts: Mapping[str, Mapping[str, int]], rows: int, calls: Mapping[str, int]
) -> str:
    width = max(len("category"), *(len(c) for c in counts))
    lines = [
        f"{rows} conversations; judge calls: {calls['asked']} asked, {calls['cached']} cached",
        f"{'category':<{width}}" + "".join(f"{o:>16}" for o in OUTCOMES),
    ]
    for category, by_outcome in counts.items():
        lines.append(
            f"{category:<{width}}" + "".join(f"{by_outcome.get(o, 0):>16}" for o in OUTCOMES)
        )
    return "\n".join(lines)


def scores_table(scores: Mapping[str, ClassifierScores]) -> str:
    columns = ("precision", "recall", "f1", "agreement")
    width = max(len("category"), *(len(c) for c in scores))
    lines = [
        "against the reference labels (unparseable labels left out, counted):",
        f"{'category':<{width}}"
        + "".join(f"{c:>11}" for c in columns)
        + f"{'support':>9}{'compared':>10}{'unparseable':>13}",
    ]
    for category, s in scores.items():
        values = (s.precision, s.recall, s.f1, s.agreement)
        lines.append(
            f"{category:<{width}}"
            + "".join(f"{'n/a' if math.isnan(v) else f'{v:.3f}':>11}" for v in values)
            + f"{s.support:>9}{s.compared:>10}{s.unparseable:>13}"
        )
    return "\n".join(lines)
