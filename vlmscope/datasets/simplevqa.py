"""`datasets` builder for SimpleVQA (m-a-p/SimpleVQA), configs `default` and `atomic`.

Loading scripts are gone from `datasets`; `build` instantiates the builder class `SimpleVQA`:

    from vlmscope.datasets.simplevqa import build
    ds = build("atomic", "path/to/SimpleVQA")  # or data_dir None: the sample

`data_dir` holds the upstream `test.parquet` (or the JSON + `simpleVQA_datasets/` layout). Row
reading and validation live in `vlmscope.tracks.simplevqa`; this module only adapts them, so a
bad row (a repeated data_id, an image path leaving the data folder, ...) stops the build with the
track's own `SimpleVQADataError`.
Export to a Hub-style folder that `load_dataset(folder, "atomic")` opens:

    python -m vlmscope.datasets.simplevqa --out OUT_DIR [--data-dir DIR]

(`python -m dataset_scripts.simplevqa` in the repository is the same command.)
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import datasets

from vlmscope.datasets import simplevqa_features
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
from vlmscope.tracks.simplevqa.rows import SAMPLE_DIR, SimpleVQADataError, read_rows

_CITATION = """@article{cheng2025simplevqa,
  title={SimpleVQA: Multimodal Factuality Evaluation for Multimodal Large Language Models},
  author={Cheng, Xianfu and others},
  journal={arXiv preprint arXiv:2502.13059},
  year={2025}
}"""


class SimpleVQA(FilesFingerprint, NamedRowErrors, datasets.GeneratorBasedBuilder):
    VERSION = datasets.Version("1.0.0")
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="default", version=VERSION, description="questions as published"
        ),
        datasets.BuilderConfig(
            name="atomic", version=VERSION, description="atomic questions and facts"
        ),
    ]
    DEFAULT_CONFIG_NAME = "default"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description="SimpleVQA: factual visual questions in Chinese and English.",
            features=simplevqa_features.FEATURES[self.config.name],
            citation=_CITATION,
            license="apache-2.0",
        )

    def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
        data_dir = Path(self.config.data_dir) if self.config.data_dir else SAMPLE_DIR
        return [
            datasets.SplitGenerator(
                name=datasets.Split.TEST, gen_kwargs={"data_dir": str(data_dir)}
            )
        ]

    def _generate_examples(self, data_dir: str) -> Iterator[tuple[int, dict[str, Any]]]:
        yield from simplevqa_features.examples(read_rows(data_dir), self.config.name)


def build(
    config: str,
    data_dir: str | Path | None = None,
    cache_dir: str | None = None,
    **prepare: Any,
) -> datasets.Dataset:
    """One config's test split; a bad row raises its `SimpleVQADataError`."""
    check_name("SimpleVQA config", config, simplevqa_features.CONFIGS)
    builder = SimpleVQA(
        config_name=config, data_dir=str(data_dir) if data_dir else None, cache_dir=cache_dir
    )
    return prepare_split(builder, SimpleVQADataError, **prepare)


def export(
    out_dir: str | Path,
    data_dir: str | Path | None = None,
    cache_dir: str | None = None,
    *,
    allow_empty: bool = False,
) -> Path:
    """Build both configs and write them as one Hub-style folder (parquet + card); an input
    with no rows is a ValueError unless `allow_empty`."""
    built = {
        name: build(name, data_dir, cache_dir, download_mode="force_redownload")
        for name in simplevqa_features.CONFIGS
    }
    refuse_empty(built, data_dir, allow_empty)
    return export_folder(
        out_dir,
        built,
        title="SimpleVQA",
        description=(
            "Factual visual questions (Chinese and English) graded Correct / Incorrect / Not attempted.\n"
            "`default`: the upstream columns with decoded images; `atomic`: the atomic questions.\n\n"
            f"```bibtex\n{_CITATION}\n```"
        ),
        default="default",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vlmscope.datasets.simplevqa",
        description="Export SimpleVQA to a Hub-style parquet folder: one folder per config "
        f"({', '.join(simplevqa_features.CONFIGS)}), split test, and a README card listing "
        "them, so that `datasets.load_dataset(OUT, 'default')` opens it.",
        epilog="Example: python -m vlmscope.datasets.simplevqa --out simplevqa_hub "
        "--data-dir ~/SimpleVQA (a download of m-a-p/SimpleVQA: test.parquet).",
    )
    add_export_arguments(
        parser, "m-a-p/SimpleVQA's test.parquet (or JSON lines and an image folder)"
    )
    add_hub_arguments(parser, "simplevqa")
    return export_main(
        parser,
        argv,
        lambda a: export(
            a.out, data_dir_from_args("simplevqa", a), a.cache_dir, allow_empty=a.allow_empty
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
