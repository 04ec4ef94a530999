"""Each benchmark's upstream Hub repo, and what of it a run reads.

A track config's `data: {repo, revision}` (or a dataset command's `--repo/--revision`) names a
dataset repo at a revision; this table says which of its files the builders read and which
archives are unpacked beside them (MEGA-Bench ships its media as `data.zip`). The download,
checks and unpacking are `vlmscope.hub_data`'s; what comes back is a plain folder in the
upstream layout, read exactly as a local `data_dir` would be. The dataset commands'
`--repo/--revision` options are `vlmscope.datasets.hub_arguments`'.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vlmscope.config import TrackConfig
from vlmscope.hub_data import DataOrigin, fetch_dataset, local_origin


@dataclass(frozen=True)
class HubLayout:
    repo: str
    """The upstream dataset repo (what the documentation names; a config may name a mirror)."""
    patterns: tuple[str, ...] | None = None
    """Files to download (`fnmatch` patterns, `*` spans folders); None: every file."""
    unpack: tuple[str, ...] = ()
    """Archives unpacked into the folder (their members land beside the other files)."""


LAYOUTS = {
    "megabench": HubLayout(
        "TIGER-Lab/MEGA-Bench", ("*.parquet", "*.jsonl", "*.json", "data.zip"), ("data.zip",)
    ),
    "simplevqa": HubLayout("m-a-p/SimpleVQA"),
    "probench": HubLayout("HelloKKMe/ProBench"),
    "visionarena_chat": HubLayout("lmarena-ai/VisionArena-Chat"),
    "visionarena_battle": HubLayout("lmarena-ai/VisionArena-Battle"),
    "visionarena_bench": HubLayout("lmarena-ai/vision-arena-bench-v0.1"),
}


def fetch(dataset: str, repo: str, revision: str) -> DataOrigin:
    """`repo` at `revision`, laid out as `dataset`'s builder reads it (see `LAYOUTS`)."""
    layout = LAYOUTS.get(dataset, HubLayout(repo))
    return fetch_dataset(repo, revision, patterns=layout.patterns, unpack=layout.unpack)


def resolve_track_data(config: TrackConfig) -> tuple[TrackConfig, DataOrigin | None]:
    """The track config with a Hub `data` turned into the local folder it was fetched to, and
    where the data came from (None: the shipped sample, which the package version pins)."""
    if config.data is not None:
        origin = fetch(config.name, config.data.repo, config.data.revision)
        return config.model_copy(update={"data_dir": str(origin.folder), "data": None}), origin
    if config.data_dir is not None:
        return config, local_origin(Path(config.data_dir))
    return config, None
