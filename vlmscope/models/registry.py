"""Build a backend from its config; heavy imports (torch, transformers) happen only when used."""

from __future__ import annotations

from collections.abc import Mapping

from vlmscope.config import (
    CoinModelConfig,
    HFModelConfig,
    ModelConfig,
    OpenAIModelConfig,
    OracleModelConfig,
    VLLMModelConfig,
)
from vlmscope.models.base import Backend


def build_backend(
    config: ModelConfig,
    *,
    device: str | None = None,
    references: Mapping[str, str] | None = None,
) -> Backend:
    """`device` places a local model on this process's accelerator when the config names none;
    `references` (request hash -> reference answer) is what the oracle answers, and only it."""
    if isinstance(config, OracleModelConfig):
        from vlmscope.models.oracle import OracleBackend

        return OracleBackend(config.name, references)
    if isinstance(config, CoinModelConfig):
        from vlmscope.models.coin import CoinBackend

        return CoinBackend(config)
    if isinstance(config, OpenAIModelConfig):
        from vlmscope.models.openai_compat import OpenAIBackend

        return OpenAIBackend(config)
    if isinstance(config, HFModelConfig):
        from vlmscope.models.hf import HFBackend
        from vlmscope.models.tiny import ensure_tiny_model

        if config.tiny_arch is not None:
            ensure_tiny_model(config.path, config.tiny_arch)
        if config.device_map is None and device is not None:
            config = config.model_copy(update={"device_map": device})
        return HFBackend(config)
    if isinstance(config, VLLMModelConfig):  # vLLM places itself: `device` is not used
        from vlmscope.models.vllm_backend import VLLMBackend

        return VLLMBackend(config)
    raise TypeError(f"no backend for {type(config).__name__}")


def commit_every(config: ModelConfig) -> int:
    """How many requests the runner hands a backend in one `generate` call.

    A local model gets one batch, so every batch is committed before the next is sent (vLLM
    schedules its `batch_size` requests itself, and they are committed when it returns). An API
    backend gets many: it keeps `concurrency` requests in flight across the whole call and hands
    answers back (to be committed) as they arrive, so one slow request does not stall the rest.
    """
    if isinstance(config, HFModelConfig | VLLMModelConfig):
        return config.batch_size
    if isinstance(config, OpenAIModelConfig):
        return max(1024, config.concurrency * 16)
    return 256
