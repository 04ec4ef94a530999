"""The run and its tracks as typed data, the hash of what changes their results, and reading a
YAML file (with command-line overrides) into them.

A value that cannot be used is a `ConfigError` naming the file and the field's path as the YAML
spells it (`models.0.batch_size (hf model): Input should be greater than 0`), pydantic's tags
for which backend or kind of judge was read left out (`vlmscope.config.error_paths`), every bad
field on the one line; a key given twice is an error naming both lines
(`vlmscope.yaml_files`).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from vlmscope.config.error_paths import problems_text
from vlmscope.config.fields import Name, _Strict
from vlmscope.config.judges import JudgeConfig, JudgePanelConfig
from vlmscope.config.models import ModelConfig
from vlmscope.config.options import option_fields, set_options
from vlmscope.yaml_files import load_yaml


class HubDataConfig(_Strict):
    """A dataset repo on the Hugging Face Hub at a revision (a commit pins it; a branch or tag
    is resolved to its commit when the run starts, and the summary records which)."""

    repo: str = Field(
        pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$", description="e.g. TIGER-Lab/MEGA-Bench"
    )
    revision: str = Field(default="main", min_length=1, description="commit, branch or tag")


class TrackConfig(_Strict):
    """One track to run. Its name is checked against the track registry, and `options` by the
    track's own typed options class, when the run is planned (`vlmscope.runner.plan`)."""

    name: Name
    data: HubDataConfig | None = Field(
        default=None, description="the upstream files from the Hub (instead of `data_dir`)"
    )
    data_dir: str | None = Field(
        default=None, description="upstream files; default: the shipped sample"
    )
    subset: str | None = Field(default=None, description="builder config, e.g. MEGA-Bench `core`")
    judge: JudgeConfig | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_data_source(self) -> TrackConfig:
        if self.data is not None and self.data_dir is not None:
            raise ValueError("give `data` (a Hub repo) or `data_dir` (a local folder), not both")
        return self


class RunConfig(_Strict):
    output_dir: str = "results"
    cache_path: str | None = Field(default=None, description="default: OUTPUT_DIR/cache.sqlite")
    limit: int | None = Field(
        default=None,
        gt=0,
        description="the first N rows of each track; MEGA-Bench: the first N queries of every "
        "task, so every task is still scored",
    )
    models: list[ModelConfig] = Field(min_length=1)
    tracks: list[TrackConfig] = Field(min_length=1)
    push_to_hub: str | None = None
    note: str | None = Field(
        default=None, description="printed after the run's table: what the numbers mean"
    )
    allow_missing_dependencies: bool = Field(
        default=False,
        description="run even when a track's system dependency is missing (summaries say so)",
    )
    pricing: str | None = Field(
        default=None,
        description="YAML of prices per million tokens per model (configs/pricing_example.yaml): "
        "the ledger's costs, the dry run's estimate, the budget",
    )
    budget_usd: float | None = Field(
        default=None,
        gt=0,
        description="stop before the next request would take the run's spending past this",
    )

    @model_validator(mode="after")
    def _one_folder_each(self) -> RunConfig:
        """Each (model, track) result has its own folder: two models (or tracks) whose names
        map to the same folder would overwrite each other's results, so such a config is
        rejected here, naming both entries."""
        for kind, names in (
            ("models", [m.name for m in self.models]),
            ("tracks", [t.name for t in self.tracks]),
        ):
            first: dict[str, int] = {}
            for index, name in enumerate(names):
                folder = folder_name(name)
                if folder in first:
                    other = first[folder]
                    raise ValueError(
                        f"{kind}.{index}.name: {name!r} would share the result folder {folder!r} "
                        f"with {kind}.{other}.name {names[other]!r}; give them distinct names"
                    )
                first[folder] = index
        return self

    @property
    def cache_file(self) -> Path:
        return Path(self.cache_path) if self.cache_path else Path(self.output_dir) / "cache.sqlite"

    def config_hash(self) -> str:
        """Hash of everything that changes results (not where they are written)."""
        payload = self.model_dump(
            exclude={
                "output_dir",
                "cache_path",
                "push_to_hub",
                "allow_missing_dependencies",
                "note",
                "pricing",
                "budget_usd",
            }
        )
        payload["models"] = [_hashed(m) for m in self.models]
        for track, dumped in zip(self.tracks, payload["tracks"], strict=True):
            if isinstance(track.judge, JudgePanelConfig):
                dumped["judge"] = {**dumped["judge"], "judges": judge_hashes(track.judge)}
            elif track.judge is not None:
                dumped["judge"] = _hashed(track.judge)
            if track.data is None:  # keeps the hash of configs written before `data`
                dumped.pop("data", None)
        text = json.dumps(payload, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _hashed(model: BaseModel) -> dict[str, Any]:
    """A model config as the config hash sees it: its options only where set (`set_options`)."""
    return {**model.model_dump(exclude=set(option_fields())), **set_options(model)}


def judge_hashes(panel: JudgePanelConfig) -> list[dict[str, Any]]:
    return [_hashed(j) for j in panel.judges]


def folder_name(name: str) -> str:
    """A model or track name as one path component (no separators, no dot-only names, never a
    leading "_" or ".", which result folders of the run itself use)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"


class ConfigError(ValueError):
    """A config file or override that cannot be used; the message names the file and field."""


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> RunConfig:
    """Read a YAML run config and apply command-line overrides (already parsed)."""
    path = Path(path)
    raw = load_yaml(path, ConfigError) or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    raw.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return parse_config(raw, source=str(path))


def parse_config(raw: dict[str, Any], *, source: str = "<config>") -> RunConfig:
    try:
        return RunConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(f"{source}: {problems_text(err, RunConfig)}") from err
