"""`datasets` builder for ProBench (HelloKKMe/ProBench), split `train`, one config per track.

Configs: `all` (every row, the default), `singleround`, `multi-round`, `multi-linguistic`.
Loading scripts are gone from `datasets`; `build` instantiates the builder class `ProBench`:

    from vlmscope.datasets.probench import build
    ds = build("multi-round", "path/to/ProBench")  # or data_dir None: the shipped sample

`data_dir` holds the Hub's `data/train-*.parquet` (or a JSON/JSONL file + `images/` folder).
Rows keep the upstream columns and nesting: `uuid`, `chat_type`, `conversations` (a list of
{from, value}, `<|img|>` placeholders kept), `image` (an `Image`), the `challenge` and
`category` structs ("" where a multi-round or multi-linguistic row has none) and `language`.
Row reading and validation live in `vlmscope.tracks.probench.rows`; this module only adapts them,
so a bad row (a repeated uuid, turns out of order, an image path leaving the data folder, ...)
stops the build with the track's own `ProBenchDataError`.
Export to a Hub-style folder that `load_dataset(folder, "multi-round")` opens:

    python -m vlmscope.datasets.probench --out OUT_DIR [--data-dir DIR]

(`python -m dataset_scripts.probench` in the repository is the same command.)
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
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
from vlmscope.datasets.hub_arguments import add_hub_arguments, data_dir_from_args
from vlmscope.hub_export import export_folder
from vlmscope.tracks.probench.row_files import SPLIT
from vlmscope.tracks.probench.rows import (
    CATEGORY_FIELDS,
    CHALLENGE_AXES,
    CHAT_TYPES,
    SAMPLE_DIR,
    ProBenchDataError,
    read_rows_and_turns,
)

CONFIGS: tuple[str, ...] = ("all", *CHAT_TYPES)
_CITATION = """@article{yang2025probench,
  title={ProBench: Judging Multimodal Foundation Models on Open-ended Multi-domain Expert Tasks},
  author={Yang, Yan and others},
  journal={arXiv preprint arXiv:2503.06885},
  year={2025}
}"""
_S = datasets.Value("string")
#: The upstream columns, nested as on the Hub.
FEATURES = datasets.Features(
    {
        "uuid": _S,
        "chat_type": _S,
        "conversations": datasets.List({"from": _S, "value": _S}),
        "image": datasets.Image(),
        "challenge": {axis: _S for axis in CHALLENGE_AXES},
        "category": {name: _S for name in CATEGORY_FIELDS},
        "language": _S,
    }
)
_DESCRIPTIONS = {
    "all": "every row of the three tracks",
    "singleround": "single-round expert queries (task field, image category, challenge labels)",
    "multi-round": "multi-round conversations, 2 to 13 human turns",
    "multi-linguistic": "single-round queries in languages other than English",
}


VERSION = datasets.Version("1.0.0")


class ProBench(FilesFingerprint, NamedRowErrors, datasets.GeneratorBasedBuilder):
    VERSION = VERSION
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(name=name, version=VERSION, description=_DESCRIPTIONS[name])
        for name in CONFIGS
    ]
    DEFAULT_CONFIG_NAME = "all"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description="ProBench: open-ended expert multimodal queries, judged against "
            "gpt-4o-2024-05-13's answers.",
            features=FEATURES,
            citation=_CITATION,
            homepage="https://yan98.github.io/ProBench/",
        )

    def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
        data_dir = Path(self.config.data_dir) if self.config.data_dir else SAMPLE_DIR
        return [
            datasets.SplitGenerator(
                name=datasets.Split.TRAIN, gen_kwargs={"data_dir": str(data_dir)}
            )
        ]

    def _generate_examples(self, data_dir: str) -> Iterator[tuple[str, dict[str, Any]]]:
        chat_type = None if self.config.name == "all" else self.config.name
        for row, turns in read_rows_and_turns(data_dir, chat_type):
            yield (
                row.uuid,
                {
                    "uuid": row.uuid,
                    "chat_type": row.chat_type,
                    "conversations": [{"from": who, "value": text} for who, text in turns],
                    "image": {
                        "bytes": row.image,
                        "path": f"{row.uuid}.{row.image_format.lower()}",
                    },
                    "challenge": dict(row.challenge),
                    "category": {
                        "image_category": row.image_category,
                        "question_category": row.question_category,
                    },
                    "language": row.language,
                },
            )


def build(
    config: str,
    data_dir: str | Path | None = None,
    cache_dir: str | None = None,
    **prepare: Any,
) -> datasets.Dataset:
    """One config's train split; a bad row raises its `ProBenchDataError`."""
    check_name("ProBench config", config, CONFIGS)
    builder = ProBench(
        config_name=config, data_dir=str(data_dir) if data_dir else None, cache_dir=cache_dir
    )
    return prepare_split(builder, ProBenchDataError, SPLIT, **prepare)


def export(
    out_dir: str | Path,
    data_dir: str | Path | None = None,
    cache_dir: str | None = None,
    *,
    allow_empty: bool = False,
) -> Path:
    """Build every config and write them as one Hub-style folder (parquet + card); an input
    with no rows is a ValueError unless `allow_empty`."""
    built = {
        name: build(name, data_dir, cache_dir, download_mode="force_redownload") for name in CONFIGS
    }
    refuse_empty(built, data_dir, allow_empty)
    return export_folder(
        out_dir,
        built,
        title="ProBench",
        description=(
            "Open-ended expert queries on images in three tracks (single-round, multi-round, "
            "multi-linguistic); a judge compares a model's answers with the baseline's "
            "(`gpt-4o-2024-05-13`, the `gpt` turns).\n"
            "`all`: every row; `singleround`, `multi-round`, `multi-linguistic`: one track each. "
            "Columns as upstream: uuid, chat_type, conversations, image, challenge, category, "
            f"language.\n\n```bibtex\n{_CITATION}\n```"
        ),
        split=SPLIT,
        default="all",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vlmscope.datasets.probench",
        description="Export ProBench to a Hub-style parquet folder: one folder per config "
        f"({', '.join(CONFIGS)}), split {SPLIT}, and a README card listing them, so that "
        "`datasets.load_dataset(OUT, 'multi-round')` opens it.",
        epilog="Example: python -m vlmscope.datasets.probench --out probench_hub "
        "--data-dir ~/ProBench (a download of HelloKKMe/ProBench: data/train-*.parquet).",
    )
    add_export_arguments(
        parser,
        "data/train-*.parquet, train.parquet or *.parquet, or one .json/.jsonl file with an "
        "images/ folder",
    )
    add_hub_arguments(parser, "probench")
    return export_main(
        parser,
        argv,
        lambda a: export(
            a.out, data_dir_from_args("probench", a), a.cache_dir, allow_empty=a.allow_empty
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
