"""Run configuration as typed data.

A YAML file and the command line both end up here; pydantic rejects a bad value with the path of
the field that holds it (e.g. `models.0.batch_size: Input should be greater than 0`), so a typo
fails before a model is loaded rather than an hour into a run. Numbers are taken as written, never
converted (`vlmscope.typed_values`): `true` is not the count 1, `"8"` is not 8; a name is never
empty; a key given twice in
the file is an error naming both lines (`vlmscope.yaml_files`), not a silent choice of the last.

Every name is imported from here; the modules hold one part each:
- `fields`: the strict base of every config class, and `Name`;
- `options`: a model's prompt, decoding, reasoning and API options (mixins of the backends');
- `models`: one config per backend, `ModelConfig`, the image budget;
- `judges`: a track's judge, one model or a panel;
- `run`: the track and run configs, the config hash, loading a file and its errors.
"""

from vlmscope.config.fields import Name
from vlmscope.config.judges import JudgeConfig, JudgePanelConfig, judge_models
from vlmscope.config.models import (
    CoinModelConfig,
    HFModelConfig,
    ImageBudget,
    ModelConfig,
    OpenAIModelConfig,
    OracleModelConfig,
    TinyArch,
    VLLMModelConfig,
)
from vlmscope.config.options import (
    GenerationOptions,
    ReasoningPreset,
    option_fields,
    set_options,
)
from vlmscope.config.run import (
    ConfigError,
    HubDataConfig,
    RunConfig,
    TrackConfig,
    folder_name,
    judge_hashes,
    load_config,
    parse_config,
)

__all__ = [
    "CoinModelConfig",
    "ConfigError",
    "GenerationOptions",
    "HFModelConfig",
    "HubDataConfig",
    "ImageBudget",
    "JudgeConfig",
    "JudgePanelConfig",
    "ModelConfig",
    "Name",
    "OpenAIModelConfig",
    "OracleModelConfig",
    "ReasoningPreset",
    "RunConfig",
    "TinyArch",
    "TrackConfig",
    "VLLMModelConfig",
    "folder_name",
    "judge_hashes",
    "judge_models",
    "load_config",
    "option_fields",
    "parse_config",
    "set_options",
]
