"""`datasets` builders for VisionArena: `VisionArenaChat`, `VisionArenaBattle`, `VisionArenaBench`.

Upstream: `lmarena-ai/VisionArena-Chat`, `lmarena-ai/VisionArena-Battle` and
`lmarena-ai/vision-arena-bench-v0.1`, each one config `default`, split `train`. Rows keep the
upstream columns and nesting: conversations as a list of turns, each a list of {role, content}
messages (the other accepted input shape, {user, assistant} pairs, is written this way),
`images` a list of `Image`, `categories` a struct of booleans, a flag the input did not label
null (never false). The Battle dataset also keeps the columns the leaderboard reads beyond the
upstream ones: `anony` and `dedup_tag` (null where the input has none), so a leaderboard of the
export is the leaderboard of the input. Reading and validation live in
`vlmscope.tracks.visionarena.rows`, the rules a battle is rated by in
`vlmscope.tracks.visionarena.battle_votes`; a bad row stops the build with its
`VisionArenaDataError`, as it stops the leaderboard.

    python -m vlmscope.datasets.visionarena {chat,battle,bench} --out OUT [--data-dir DIR]

writes a Hub-style folder that `load_dataset(OUT)` opens (default data: the shipped samples).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import datasets

from vlmscope.datasets.building import (
    NamedRowErrors,
    check_name,
    export_main,
    prepare_split,
    refuse_empty,
)
from vlmscope.datasets.data_fingerprint import FilesFingerprint
from vlmscope.datasets.export_command import add_export_arguments
from vlmscope.datasets.hub_arguments import data_dir_from_args
from vlmscope.hub_export import export_folder
from vlmscope.tracks.visionarena.conversations import CATEGORY_FLAGS, Turn
from vlmscope.tracks.visionarena.row_files import SPLIT
from vlmscope.tracks.visionarena.rows import (
    SAMPLE_DIR,
    VisionArenaDataError,
    conv_metadata,
    read_battle_rows,
    read_bench_rows,
    read_chat_rows,
)

_S = datasets.Value("string")
_B = datasets.Value("bool")
_I = datasets.Value("int64")
_MESSAGES = datasets.List(datasets.List({"role": _S, "content": _S}))
_CATEGORIES = {name: _B for name in CATEGORY_FLAGS}
_IMAGES = datasets.List(datasets.Image())
_CITATION = """@article{chou2024visionarena,
  title={VisionArena: 230K Real World User-VLM Conversations with Preference Labels},
  author={Chou, Christopher and Dunlap, Lisa and others},
  journal={arXiv preprint arXiv:2412.08687},
  year={2024}
}"""


def _side(suffix: str) -> dict[str, Any]:
    return {
        f"sum_assistant_{suffix}_tokens": _I,
        f"context_{suffix}_tokens": _I,
        f"header_count_{suffix}": {f"h{k}": _I for k in range(1, 7)},
        f"list_count_{suffix}": {"ordered": _I, "unordered": _I},
        f"bold_count_{suffix}": {"**": _I, "__": _I},
    }


CHAT_FEATURES = datasets.Features(
    {
        "images": _IMAGES,
        "conversation_id": _S,
        "model": _S,
        "num_turns": _I,
        "conversation": _MESSAGES,
        "translated_conversation": _MESSAGES,
        "language": _S,
        "user_id": _I,
        "tstamp": datasets.Value("float64"),
        "is_preset": _B,
        "preset_dataset": _S,
        "categories": _CATEGORIES,
    }
)
BATTLE_FEATURES = datasets.Features(
    {
        "question_id": _S,
        "model_a": _S,
        "model_b": _S,
        "winner": _S,
        "judge": _S,
        "conversation_a": _MESSAGES,
        "conversation_b": _MESSAGES,
        "num_turns": _I,
        "language": _S,
        "categories": _CATEGORIES,
        "images": _IMAGES,
        "tstamp": datasets.Value("float64"),
        "is_preset": _B,
        "conv_metadata": {"sum_user_tokens": _I, "turns": _I, **_side("a"), **_side("b")},
        "anony": _B,
        "dedup_tag": {"high_freq": _B, "sampled": _B},
    }
)
BENCH_FEATURES = datasets.Features(
    {"question_id": _S, "turns": _MESSAGES, "images": _IMAGES, "category": _S}
)
_VERSION = datasets.Version("1.1.0")  # 1.1: anony, dedup_tag, unlabelled flags null


def messages(turns: Sequence[Turn] | None) -> list[list[dict[str, str]]] | None:
    """Messages grouped by user turn: [[user, assistant], ...] (upstream nesting)."""
    if turns is None:
        return None
    grouped: list[list[dict[str, str]]] = []
    for turn in turns:
        if turn.role == "user":
            grouped.append([])
        grouped[-1].append({"role": turn.role, "content": turn.text})
    return grouped


def _labels(labels: Mapping[str, bool | None]) -> dict[str, bool | None]:
    """Every flag of the `categories` struct: the row's label, null where it gave none."""
    return {name: labels.get(name) for name in CATEGORY_FLAGS}


def _images(images: Sequence[bytes], name: str) -> list[dict[str, Any]]:
    return [{"bytes": data, "path": f"{name}-{k}.png"} for k, data in enumerate(images)]


class _Builder(FilesFingerprint, NamedRowErrors, datasets.GeneratorBasedBuilder):
    VERSION = _VERSION
    SAMPLE = "chat"
    FEATURES = CHAT_FEATURES
    DESCRIPTION = ""
    HOMEPAGE = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # one cache entry per dataset: the three builders share this module's name
        kwargs.setdefault("dataset_name", f"visionarena_{self.SAMPLE}")
        super().__init__(*args, **kwargs)

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=self.DESCRIPTION,
            features=self.FEATURES,
            citation=_CITATION,
            homepage=self.HOMEPAGE,
        )

    def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
        data_dir = Path(self.config.data_dir) if self.config.data_dir else SAMPLE_DIR / self.SAMPLE
        return [
            datasets.SplitGenerator(
                name=datasets.Split.TRAIN, gen_kwargs={"data_dir": str(data_dir)}
            )
        ]


class VisionArenaChat(_Builder):
    SAMPLE = "chat"
    FEATURES = CHAT_FEATURES
    DESCRIPTION = "VisionArena-Chat: user conversations with 45 VLMs on Chatbot Arena."
    HOMEPAGE = "https://huggingface.co/datasets/lmarena-ai/VisionArena-Chat"

    def _generate_examples(self, data_dir: str) -> Iterator[tuple[str, dict[str, Any]]]:
        for row in read_chat_rows(data_dir):
            yield (
                row.conversation_id,
                {
                    "images": _images(row.images, row.conversation_id),
                    "conversation_id": row.conversation_id,
                    "model": row.model,
                    "num_turns": row.num_turns,
                    "conversation": messages(row.conversation),
                    "translated_conversation": messages(row.translated_conversation),
                    "language": row.language,
                    "user_id": row.user_id,
                    "tstamp": row.tstamp,
                    "is_preset": row.is_preset,
                    "preset_dataset": row.preset_dataset,
                    "categories": _labels(row.category_labels),
                },
            )


class VisionArenaBattle(_Builder):
    SAMPLE = "battle"
    FEATURES = BATTLE_FEATURES
    DESCRIPTION = "VisionArena-Battle: anonymous pairwise votes between VLMs on Chatbot Arena."
    HOMEPAGE = "https://huggingface.co/datasets/lmarena-ai/VisionArena-Battle"

    def _generate_examples(self, data_dir: str) -> Iterator[tuple[str, dict[str, Any]]]:
        keys = set(BATTLE_FEATURES["conv_metadata"])
        for row in read_battle_rows(data_dir):
            meta = {k: v for k, v in conv_metadata(row).items() if k in keys}
            yield (
                row.question_id,
                {
                    "question_id": row.question_id,
                    "model_a": row.model_a,
                    "model_b": row.model_b,
                    "winner": row.winner,
                    "judge": row.judge,
                    "conversation_a": messages(row.conversation_a),
                    "conversation_b": messages(row.conversation_b),
                    "num_turns": row.turn,
                    "language": row.language,
                    "categories": _labels(row.categories),
                    "images": _images(row.images, row.question_id),
                    "tstamp": row.tstamp,
                    "is_preset": row.is_preset,
                    "conv_metadata": meta,
                    "anony": row.anony,
                    "dedup_tag": None if row.dedup_tag is None else dict(row.dedup_tag),
                },
            )


class VisionArenaBench(_Builder):
    SAMPLE = "bench"
    FEATURES = BENCH_FEATURES
    DESCRIPTION = "vision-arena-bench-v0.1: 500 curated VisionArena prompts for VLM-as-a-judge."
    HOMEPAGE = "https://huggingface.co/datasets/lmarena-ai/vision-arena-bench-v0.1"

    def _generate_examples(self, data_dir: str) -> Iterator[tuple[str, dict[str, Any]]]:
        for row in read_bench_rows(data_dir):
            yield (
                row.question_id,
                {
                    "question_id": row.question_id,
                    "turns": [[{"role": "user", "content": row.question}]],
                    "images": _images(row.images, row.question_id),
                    "category": row.category,
                },
            )


BUILDERS: dict[str, type[_Builder]] = {
    "chat": VisionArenaChat,
    "battle": VisionArenaBattle,
    "bench": VisionArenaBench,
}


def build(
    dataset: str,
    data_dir: str | Path | None = None,
    cache_dir: str | None = None,
    **prepare: Any,
) -> datasets.Dataset:
    """One dataset's train split; a bad row raises its `VisionArenaDataError`."""
    check_name("VisionArena dataset", dataset, tuple(BUILDERS))
    builder = BUILDERS[dataset](data_dir=str(data_dir) if data_dir else None, cache_dir=cache_dir)
    return prepare_split(builder, VisionArenaDataError, SPLIT, **prepare)


def export(
    dataset: str,
    out_dir: str | Path,
    data_dir: str | Path | None = None,
    cache_dir: str | None = None,
    *,
    allow_empty: bool = False,
) -> Path:
    """Build `dataset` (chat, battle or bench) and write it as a Hub-style folder, config
    `default`, that `load_dataset(out_dir)` opens; an input with no rows is a ValueError
    unless `allow_empty`."""
    built = build(dataset, data_dir, cache_dir, download_mode="force_redownload")
    refuse_empty({"default": built}, data_dir, allow_empty)
    builder = BUILDERS[dataset]
    return export_folder(
        out_dir,
        {"default": built},
        title=builder.HOMEPAGE.rsplit("/", 1)[-1],
        description=f"{builder.DESCRIPTION}\n\n```bibtex\n{_CITATION}\n```",
        split=SPLIT,
        default="default",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vlmscope.datasets.visionarena",
        description="Export one VisionArena dataset (chat: VisionArena-Chat, battle: "
        "VisionArena-Battle, bench: vision-arena-bench-v0.1) to a Hub-style parquet folder, "
        f"config default, split {SPLIT}, that `datasets.load_dataset(OUT)` opens.",
        epilog="Example: python -m vlmscope.datasets.visionarena battle --out battle_hub "
        "--data-dir ~/VisionArena-Battle (a download: data/train-*.parquet).",
    )
    parser.add_argument("dataset", choices=sorted(BUILDERS), help="which dataset to export")
    add_export_arguments(
        parser,
        "data/train-*.parquet, train.parquet or *.parquet, or one .json/.jsonl file with an "
        "images/ folder",
    )
    parser.add_argument(
        "--repo",
        help="a Hub dataset repo to read instead of a local folder (upstream: "
        "lmarena-ai/VisionArena-Chat, lmarena-ai/VisionArena-Battle, "
        "lmarena-ai/vision-arena-bench-v0.1); downloaded into the Hugging Face cache, checked",
    )
    parser.add_argument(
        "--revision", default="main", help="commit (pins the data), branch or tag of --repo"
    )
    return export_main(
        parser,
        argv,
        lambda a: export(
            a.dataset,
            a.out,
            data_dir_from_args(f"visionarena_{a.dataset}", a),
            a.cache_dir,
            allow_empty=a.allow_empty,
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
