"""`vlmscope visionarena build-bench` and `topics`: a VisionArena-Bench and the topic map, curated
from chat logs as the paper did (Sec. 6 and Sec. 3), by `vlmscope.tracks.visionarena.
bench_curation`. The options and outputs are in the two commands' --help; the shared
curation options are added by `add_curation_options`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vlmscope.cli.failure import fail

if TYPE_CHECKING:
    from vlmscope.tracks.visionarena.bench_curation import Curated, CurationParams, Embedder

BUILD = "vlmscope visionarena build-bench"
TOPICS = "vlmscope visionarena topics"
CLIP = "openai/clip-vit-base-patch32"  # `clip_embedder.DEFAULT_MODEL`, without importing it

DATA_HELP = (
    "a VisionArena-Chat folder: a download of lmarena-ai/VisionArena-Chat (data/train-*.parquet), "
    "the shipped sample (vlmscope/samples/visionarena/chat), or the live arena's conversations "
    "(`vlmscope arena export CONFIG OUT --dataset chat`)"
)
BUILD_DESCRIPTION = """\
Curate a VisionArena-Bench from chat logs, as the VisionArena paper built its 500 prompts
(Sec. 6): keep single-turn conversations in the chosen languages that have an image; drop exact
duplicates (same text, same image bytes) and near duplicates (MinHash Jaccard of the text's
character 5-grams >= --text-jaccard AND every image's pHash within --max-image-distance bits);
embed image and text with a CLIP model and average them; reduce with UMAP and cluster with
HDBSCAN (BERTopic's defaults); sample uniformly across the clusters, seeded.

DIR is a vision-arena-bench-v0.1 folder that `VisionArenaBench(data_dir=DIR)` and the bench
track (`data_dir: DIR` in a run config) read unchanged:
  data/train-00000-of-00001.parquet  question_id (the source conversation), turns, images,
                                     category (empty), cluster
  README.md                          the card: source, date range, counts, every parameter
  curation/settings.json             every parameter and library version
  curation/clusters.jsonl            the cluster table: size, share, c-TF-IDF keywords,
                                     example prompts, prompts sampled
  curation/decisions.jsonl           what became of each conversation read (kept, multi_turn,
                                     language, no_image, empty_prompt, exact_duplicate,
                                     near_duplicate, with the one it repeats)
The same data, options and libraries write the same bytes.

Needs the bench extra: pip install 'vlmscope[bench]'.
"""
BUILD_EPILOG = """\
examples:
  vlmscope make-tiny-model .cache/tiny-clip --arch clip     # offline stand-in for a real CLIP
  vlmscope visionarena build-bench vlmscope/samples/visionarena/chat --size 500 \\
      --out runs/bench-from-sample --model .cache/tiny-clip
  vlmscope arena export configs/arena_demo.yaml runs/arena-chat --dataset chat --format parquet
  vlmscope visionarena build-bench runs/arena-chat --out runs/fresh-bench --source "live arena"
"""
TOPICS_DESCRIPTION = """\
The topic clusters of a set of conversations (the paper's Sec. 3, Fig. 3 and Fig. 11): the
first prompt of each conversation in the chosen languages (any number of turns, with or
without an image), embedded with CLIP (image and text averaged), reduced with UMAP, clustered
with HDBSCAN; each cluster's size, share, c-TF-IDF keywords (BERTopic's definition) and typical
prompts, and with --summarize a one-line summary from a judge model (cached beside DIR). The paper
clustered a random 50K English conversations: --max-prompts 50000.

DIR is a folder the Space's Topics page shows when it lies in the results location:
  clusters/   the cluster table        points/   the 2-D map (--map-points of the prompts)
  topics.json every parameter          README.md the card (`load_dataset(DIR, "clusters")`)

Needs the bench extra: pip install 'vlmscope[bench]'.
"""


def add_bench_parsers(commands: Any) -> None:
    """Add `build-bench` and `topics` to the `visionarena` commands."""
    build: argparse.ArgumentParser = commands.add_parser(
        "build-bench",
        help="curate a VisionArena-Bench from chat logs (paper Sec. 6)",
        description=BUILD_DESCRIPTION,
        epilog=BUILD_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    build.add_argument("data", type=Path, metavar="CHAT_DATA", help=DATA_HELP)
    build.add_argument("--out", required=True, type=Path, metavar="DIR", help="bench folder")
    build.add_argument("--size", type=int, default=500, help="prompts to sample (default 500)")
    build.add_argument("--overwrite", action="store_true", help="replace a non-empty DIR")
    build.add_argument(
        "--text-jaccard",
        type=float,
        default=0.8,
        help="near duplicates: least MinHash Jaccard of the texts (default 0.8)",
    )
    build.add_argument(
        "--max-image-distance",
        type=int,
        default=8,
        help="near duplicates: most differing pHash bits per image, of 64 (default 8)",
    )
    add_curation_options(build, examples=3)
    build.set_defaults(func=handle_build_bench)

    topics: argparse.ArgumentParser = commands.add_parser(
        "topics",
        help="the topic clusters of conversations (paper Sec. 3, Fig. 3 and 11)",
        description=TOPICS_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    topics.add_argument("data", type=Path, metavar="CHAT_DATA", help=DATA_HELP)
    topics.add_argument("--out", required=True, type=Path, metavar="DIR", help="topic folder")
    topics.add_argument(
        "--max-prompts", type=int, metavar="N", help="cluster a seeded random N (default: all)"
    )
    topics.add_argument(
        "--map-points",
        type=int,
        default=5000,
        metavar="N",
        help="prompts on the 2-D map, a seeded random subset (default 5000)",
    )
    topics.add_argument(
        "--summarize",
        type=Path,
        metavar="JUDGE",
        help="YAML of one model config: summarise each cluster in one line (replies cached in "
        "DIR.summaries.sqlite beside DIR)",
    )
    add_curation_options(topics, examples=5)
    topics.set_defaults(func=handle_topics)


def add_curation_options(parser: argparse.ArgumentParser, *, examples: int) -> None:
    """The options both commands share: data selection, embedding, UMAP, HDBSCAN."""
    parser.add_argument("--seed", type=int, default=0, help="seeds UMAP and sampling (default 0)")
    parser.add_argument(
        "--languages",
        nargs="+",
        default=["English"],
        metavar="LANGUAGE",
        help="languages to keep, as VisionArena names them (default English; a row without "
        "one is detected as the live arena detects it)",
    )
    parser.add_argument(
        "--all-languages", action="store_true", help="keep every language (overrides --languages)"
    )
    parser.add_argument(
        "--model",
        default=CLIP,
        help=f"CLIP-family checkpoint, Hub name or folder (default {CLIP}, the paper's)",
    )
    parser.add_argument("--batch-size", type=int, default=32, help="embedding batch (default 32)")
    parser.add_argument(
        "--embeddings",
        type=Path,
        metavar="FILE",
        help="keep the embeddings in FILE (.npz) and reuse those already there",
    )
    parser.add_argument("--n-neighbors", type=int, default=15, help="UMAP (default 15)")
    parser.add_argument("--n-components", type=int, default=5, help="UMAP (default 5)")
    parser.add_argument("--min-dist", type=float, default=0.0, help="UMAP (default 0.0)")
    parser.add_argument(
        "--min-cluster-size", type=int, default=10, help="HDBSCAN (default 10, BERTopic's)"
    )
    parser.add_argument(
        "--min-samples", type=int, help="HDBSCAN (default: the minimum cluster size)"
    )
    parser.add_argument(
        "--examples", type=int, default=examples, help=f"example prompts per cluster ({examples})"
    )
    parser.add_argument(
        "--source", help="the data's name in the card (default: CHAT_DATA's folder name)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def curation_params(args: argparse.Namespace, *, size: int | None) -> CurationParams:
    """The parameters the command line gives; ValueError naming the option of a bad one."""
    from vlmscope.tracks.visionarena.bench_candidates import CandidateRules
    from vlmscope.tracks.visionarena.bench_clusters import ClusterParams
    from vlmscope.tracks.visionarena.bench_curation import CurationParams
    from vlmscope.tracks.visionarena.bench_duplicates import DuplicateRules
    from vlmscope.tracks.visionarena.topic_keywords import KeywordParams

    building = size is not None
    for option, value, least in (
        ("--size", size, 0),
        ("--batch-size", args.batch_size, 1),
        ("--n-neighbors", args.n_neighbors, 2),
        ("--n-components", args.n_components, 1),
        ("--min-cluster-size", args.min_cluster_size, 2),
        ("--min-samples", args.min_samples, 1),
        ("--examples", args.examples, 0),
        ("--max-prompts", getattr(args, "max_prompts", None), 1),
    ):
        if value is not None and value < least:
            raise ValueError(f"{option} must be >= {least}, got {value}")
    languages = () if args.all_languages else tuple(args.languages)
    english = languages == ("English",)
    duplicates = (
        DuplicateRules(text_jaccard=args.text_jaccard, max_image_distance=args.max_image_distance)
        if building
        else None
    )
    if duplicates is not None and not 0 < duplicates.text_jaccard <= 1:
        raise ValueError(f"--text-jaccard must be in (0, 1], got {duplicates.text_jaccard}")
    return CurationParams(
        size=size,
        seed=args.seed,
        rules=CandidateRules(languages, single_turn=building, require_image=building),
        duplicates=duplicates,
        clusters=ClusterParams(
            n_neighbors=args.n_neighbors,
            n_components=args.n_components,
            min_dist=args.min_dist,
            min_cluster_size=args.min_cluster_size,
            min_samples=args.min_samples,
            seed=args.seed,
        ),
        keywords=KeywordParams(english=english),
        examples=args.examples,
        max_prompts=getattr(args, "max_prompts", None),
    )


def run_curation(
    args: argparse.Namespace, command: str, params: CurationParams
) -> tuple[Curated, Embedder]:
    """Read the chats, embed with the chosen model (through the --embeddings file), curate."""
    from vlmscope.arena.language import prompt_language
    from vlmscope.models.clip_embedder import ClipEmbedder
    from vlmscope.tracks.visionarena.bench_curation import curate
    from vlmscope.tracks.visionarena.bench_embeddings import CachedEmbedder
    from vlmscope.tracks.visionarena.rows import read_chat_rows

    def stage(name: str) -> None:
        if not args.quiet:
            print(f"{command}: {name}", file=sys.stderr, flush=True)

    stage(f"reading {args.data}")
    rows = read_chat_rows(args.data)
    embedder: Embedder = ClipEmbedder(
        args.model, batch_size=args.batch_size, progress=not args.quiet
    )
    if args.embeddings is not None:
        embedder = CachedEmbedder(embedder, args.embeddings)
    curated = curate(rows, params, embedder, detect=prompt_language, stage=stage)
    return curated, embedder


def handle_build_bench(args: argparse.Namespace) -> int:
    from vlmscope.cli.visionarena_bench_output import bench_report
    from vlmscope.tracks.visionarena.bench_extras import MissingExtra, require_bench_extra
    from vlmscope.tracks.visionarena.row_files import VisionArenaDataError

    try:
        require_bench_extra(BUILD)
        params = curation_params(args, size=args.size)
        curated, _ = run_curation(args, BUILD, params)
        if not curated.bench:  # refused before DIR is touched: an empty bench no track reads
            read = ", ".join(f"{k} {v}" for k, v in sorted(curated.counts().items()))
            raise ValueError(
                f"{args.data}: no conversation qualifies for the bench "
                f"({read or 'none read'}); nothing written to {args.out}"
            )
        from vlmscope.datasets.visionarena_bench_files import write_bench

        out = write_bench(
            args.out, curated, source=args.source or args.data.name, overwrite=args.overwrite
        )
    except (MissingExtra, VisionArenaDataError, ValueError, OSError) as error:
        return fail(BUILD, error)
    print(bench_report(curated, out))
    return 0


def handle_topics(args: argparse.Namespace) -> int:
    from vlmscope.cli.visionarena_bench_output import topics_report, write_topic_folder
    from vlmscope.tracks.visionarena.bench_extras import MissingExtra, require_bench_extra
    from vlmscope.tracks.visionarena.row_files import VisionArenaDataError

    try:
        require_bench_extra(TOPICS)
        if args.map_points < 0:
            raise ValueError(f"--map-points must be >= 0, got {args.map_points}")
        judge = None
        if args.summarize is not None:
            from vlmscope.cli.judge_config import read_judge_config

            judge = read_judge_config(args.summarize)
        params = curation_params(args, size=None)
        curated, _ = run_curation(args, TOPICS, params)
        written = write_topic_folder(args, curated, judge)
    except (MissingExtra, VisionArenaDataError, ValueError, OSError) as error:
        return fail(TOPICS, error)
    print(topics_report(curated, written))
    return 0
