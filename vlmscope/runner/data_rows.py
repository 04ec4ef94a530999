"""A track whose data holds no rows is refused before any model loads.

A data folder (or a Hub dataset) can have the files a track's reader looks for and still hold
no rows: an empty JSON-lines file, a parquet shard with no rows, a ProBench subset none of the
rows belong to. Each reader accepts that (an empty list of rows is not a bad row), and a run
would then load its models, ask nothing and write an empty result as if the track had been
evaluated. Planning checks every track once, the same way, through what the built track holds
(its `rows`; the samples of the run's first model for a track that keeps none), and names the
track, where its data came from and which files it expected there.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized

from vlmscope.config import ConfigError, ModelConfig, TrackConfig
from vlmscope.hub_data import DataOrigin
from vlmscope.tracks.base import Track

_HUB_LAYOUT = "data/train-*.parquet, train.parquet or *.parquet, or one .json/.jsonl file"
_SIMPLEVQA_LAYOUT = "test.parquet, or one .json/.jsonl file"


def row_count(track: Track, models: Sequence[ModelConfig]) -> int:
    """How many rows the built track will ask about (after `--limit` and the subset)."""
    rows = getattr(track, "rows", None)
    if isinstance(rows, Sized):
        return len(rows)
    return len(track.samples(models[0])) if models else 0


def expected_files(config: TrackConfig) -> str:
    """What the track's reader looks for in a data folder, in words."""
    if config.name == "megabench":
        from vlmscope.tracks.megabench.track import SUBSETS

        subset = config.subset or "full"
        parts = SUBSETS.get(subset, (subset,))
        each = [f"{c}/*.parquet, data/{c}/*.parquet, {c}.parquet or {c}.jsonl" for c in parts]
        return f"MEGA-Bench rows of subset {subset!r}: " + "; and ".join(each)
    if config.name == "simplevqa":
        return f"SimpleVQA rows in {_SIMPLEVQA_LAYOUT}"
    if config.name == "probench":
        chosen = "" if config.subset in (None, "all") else f" with chat_type {config.subset!r}"
        return f"ProBench rows{chosen} in {_HUB_LAYOUT}"
    if config.name == "visionarena_bench":
        return f"vision-arena-bench-v0.1 rows in {_HUB_LAYOUT}"
    return f"the rows the {config.name} track reads"


def data_source(config: TrackConfig, origin: DataOrigin | None) -> str:
    """Where the track's rows were read: the Hub repo at its revision (and the folder it was
    fetched to), a local folder, or the shipped sample."""
    if origin is not None and origin.repo is not None:
        return f"Hub dataset {origin.repo}@{origin.revision} (fetched to {origin.folder})"
    if config.data_dir is not None:
        return f"data folder {config.data_dir}"
    return "the shipped sample"


def check_rows(
    track: Track,
    config: TrackConfig,
    origin: DataOrigin | None,
    models: Sequence[ModelConfig],
    where: str,
) -> None:
    """`ConfigError` (at `where`, the config and field) when the track has no rows to ask."""
    if row_count(track, models):
        return
    raise ConfigError(
        f"{where} ({config.name}): {data_source(config, origin)} holds no rows for the "
        f"{config.name} track; expected {expected_files(config)}"
    )
