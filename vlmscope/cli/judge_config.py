"""A judge given on the command line: one model config in a YAML file (`--judge`,
`--summarize`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vlmscope.config import ModelConfig


def read_judge_config(path: Path) -> ModelConfig:
    """One model config from a YAML file; an error names the file and the field."""
    from pydantic import TypeAdapter, ValidationError

    from vlmscope.config import ModelConfig
    from vlmscope.config.error_paths import problems_text
    from vlmscope.yaml_files import load_yaml

    raw = load_yaml(path)
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: expected one model config (a mapping with `backend:`)")
    try:
        config: ModelConfig = TypeAdapter(ModelConfig).validate_python(raw)
    except ValidationError as error:
        raise ValueError(f"{path}: {problems_text(error, ModelConfig)}") from error
    return config
