"""MEGA-Bench as a `datasets` builder over the upstream files a user downloaded.

`datasets` 5 no longer runs loading scripts; `build` instantiates the builder class `MegaBench`:

    from vlmscope.datasets.megabench import build
    ds = build("core")                              # the sample shipped with the package
    ds = build("core", "path/to/MEGA-Bench")        # parquet + unzipped data/; a bad row raises RowError

Rows keep the 15 upstream string columns unchanged (so the official tools still read them) and
add `query_images`: the query's images decoded from the relative paths. Rows are read by the
track's own reader (`vlmscope.tracks.megabench.rows.checked_rows`), so a bad row (a repeated id, a
task missing from `all_task_meta.json`, an unknown metric, a null answer, a media path leaving
the data folder) stops the build naming its task, row id and field, as it stops the track.
`python -m vlmscope.datasets.megabench --out OUT_DIR [--data-dir DATA_DIR]` (or `--repo
TIGER-Lab/MEGA-Bench --revision <commit>`, which downloads and unpacks `data.zip` once; `python
dataset_scripts/megabench.py` in the repository) exports all four configs as a Hub-style folder
(parquet + dataset card) that `load_dataset(OUT_DIR, "core")` opens; without `--data-dir` or
`--repo` it reads the shipped sample.
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
from vlmscope.datasets.megabench_images import query_image
from vlmscope.tracks.media_paths import inside_data_dir
from vlmscope.tracks.megabench.keywords import task_meta_for
from vlmscope.tracks.megabench.prompt import is_video
from vlmscope.tracks.megabench.rows import CONFIGS, STRING_COLUMNS, RowError, checked_rows
from vlmscope.tracks.shipped_samples import sample_dir

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


class MegaBench(FilesFingerprint, NamedRowErrors, datasets.GeneratorBasedBuilder):
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
        # no data_dir: the sample shipped with the package
        root = Path(self.config.data_dir or sample_dir("megabench")).resolve()
        return [datasets.SplitGenerator(name=datasets.Split.TEST, gen_kwargs={"root": root})]

    def _generate_examples(self, root: Path) -> Iterator[tuple[int, dict[str, Any]]]:
        rows = checked_rows(root, [self.config.name], task_meta=task_meta_for(root))
        for index, (raw, row) in enumerate(rows):
            images = []
            for rel in row.query_media:
                path = inside_data_dir(
                    root, rel, row=row.where, field="query_media", error=RowError
                )
                if is_video(path):
                    continue
                if not path.is_file():
                    raise RowError(f"{row.where}: field 'query_media' names a missing file {rel}")
                # decoded here as a run decodes it: a corrupt file would otherwise fail at
                # read time, unnamed
                images.append(query_image(path, rel, row.where))
            yield (
                index,
                {
                    **{c: "" if raw[c] is None else str(raw[c]) for c in STRING_COLUMNS},
                    "query_images": images,
                },
            )


def build(
    config: str = "core", data_dir: str | Path | None = None, cache_dir: str | Path | None = None
) -> datasets.Dataset:
    """One config from the upstream files in `data_dir` (None: the shipped sample). The
    arguments come in the order of every track's `build`: config, data folder, cache."""
    check_name("MEGA-Bench config", config, CONFIGS)
    builder = MegaBench(
        config_name=config,
        data_dir=str(data_dir or sample_dir("megabench")),
        cache_dir=str(cache_dir) if cache_dir else None,
    )
    return prepare_split(builder, RowError)


def export(
    data_dir: str | Path | None,
    out_dir: str | Path,
    cache_dir: str | Path | None = None,
    *,
    allow_empty: bool = False,
) -> Path:
    """Build every config and write them as one Hub-style folder; an input with no rows is a
    ValueError unless `allow_empty`."""
    from vlmscope.hub_export import export_folder

    configs = {name: build(name, data_dir, cache_dir) for name in CONFIGS}
    refuse_empty(configs, data_dir, allow_empty)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vlmscope.datasets.megabench",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_export_arguments(
        parser, "the config folders and the unzipped data/ of TIGER-Lab/MEGA-Bench"
    )
    add_hub_arguments(parser, "megabench")
    return export_main(
        parser,
        argv,
        lambda a: export(
            data_dir_from_args("megabench", a), a.out, a.cache_dir, allow_empty=a.allow_empty
        ),
    )


if __name__ == "__main__":
    raise SystemExit(main())
