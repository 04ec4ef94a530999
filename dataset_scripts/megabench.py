"""MEGA-Bench as a `datasets` builder over the upstream files a user downloaded.

`datasets` 5 no longer runs loading scripts, so the builder class is imported and instantiated:

    from dataset_scripts.megabench import MegaBench
    builder = MegaBench(config_name="core", data_dir="path/to/MEGA-Bench")   # parquet + unzipped data/
    try:
        builder.download_and_prepare()
    except datasets.exceptions.DatasetGenerationError as err:
        if isinstance(err.__cause__, RowError):  # show which row, not only "an error occurred"
            raise err.__cause__ from None
        raise
    ds = builder.as_dataset(split="test")

Rows keep the 15 upstream string columns unchanged (so the official tools still read them) and
add `query_images`: the query's images decoded from the relative paths. Every row is validated by
`vlmscope.tracks.megabench.rows`, so a bad row fails naming its task, row id and field.
`python dataset_scripts/megabench.py DATA_DIR OUT_DIR` exports all four configs as a Hub-style
folder (parquet + dataset card) that `load_dataset(OUT_DIR, "core")` opens.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import datasets

from vlmscope.tracks.megabench.prompt import is_video
from vlmscope.tracks.megabench.rows import CONFIGS, STRING_COLUMNS, RowError, decode_row, read_raw

CITATION = """@article{chen2024megabench,
  title={MEGA-Bench: Scaling Multimodal Evaluation to over 500 Real-World Tasks},
  author={Chen, Jiacheng and others},
  journal={arXiv preprint arXiv:2410.10563},
  year={2024}
}"""
FEATURES = datasets.Features(
    {
        **{c: datasets.Value("string") for c in STRING_COLUMNS},
        "query_images": datasets.List(datasets.Image()),
    }
)


VERSION = datasets.Version("1.0.0")


class MegaBench(datasets.GeneratorBasedBuilder):
    VERSION = VERSION
    BUILDER_CONFIGS = [datasets.BuilderConfig(name=name, version=VERSION) for name in CONFIGS]
    DEFAULT_CONFIG_NAME = "core"

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description="MEGA-Bench: 505 multimodal tasks; one row per query.",
            features=FEATURES,
            citation=CITATION,
            homepage="https://tiger-ai-lab.github.io/MEGA-Bench/",
        )

    def _split_generators(self, dl_manager: Any) -> list[datasets.SplitGenerator]:
        if not self.config.data_dir:
            raise ValueError("data_dir must point to the downloaded MEGA-Bench files")
        root = Path(self.config.data_dir).resolve()
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"root": root})]

    def _generate_examples(self, root: Path):  # type: ignore[no-untyped-def]
        for index, raw in enumerate(read_raw(root, self.config.name)):
            row = decode_row(raw)
            images = []
            for rel in row.query_media:
                path = root / rel
                if is_video(path):
                    continue
                if not path.is_file():
                    raise RowError(
                        f"task {row.task_name!r}, row {row.id}: field 'query_media' names a missing file {rel}"
                    )
                images.append({"bytes": path.read_bytes(), "path": rel})
            yield (
                index,
                {
                    **{c: "" if raw[c] is None else str(raw[c]) for c in STRING_COLUMNS},
                    "query_images": images,
                },
            )


def build(
    data_dir: str | Path, config: str, cache_dir: str | Path | None = None
) -> datasets.Dataset:
    builder = MegaBench(
        config_name=config, data_dir=str(data_dir), cache_dir=str(cache_dir) if cache_dir else None
    )
    try:
        builder.download_and_prepare()
    except datasets.exceptions.DatasetGenerationError as err:
        if isinstance(err.__cause__, RowError):  # show which row, not only "an error occurred"
            raise err.__cause__ from None
        raise
    ds = builder.as_dataset(split="test")
    assert isinstance(ds, datasets.Dataset)
    return ds


def export(data_dir: str | Path, out_dir: str | Path, cache_dir: str | Path | None = None) -> Path:
    from vlmscope.hub_export import export_folder

    configs = {name: build(data_dir, name, cache_dir) for name in CONFIGS}
    return export_folder(
        out_dir,
        configs,
        title="MEGA-Bench (vlmscope export)",
        description=(
            "One row per query in the upstream column layout of TIGER-Lab/MEGA-Bench, with the "
            "query images embedded as `query_images`. Configs: core, open and their single-image "
            f"subsets.\n\n```bibtex\n{CITATION}\n```"
        ),
        default="core",
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "data_dir", help="downloaded MEGA-Bench files (config folders + unzipped data/)"
    )
    parser.add_argument("out_dir", help="where to write the Hub-style folder")
    args = parser.parse_args()
    print(export(args.data_dir, args.out_dir))
