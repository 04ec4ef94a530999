"""The cache keys and config hash of configs that set no per-model prompt, generation or
reasoning option, pinned as they were before those options existed.

A new config field must not change the key of a config that leaves it alone: a user who
upgrades keeps every cached answer and judgment. The digests below were computed before the
options were added; a change to any of them re-asks every model of every existing run.
"""

from __future__ import annotations

from typing import Any

import pytest

from vlmscope.config import parse_config
from vlmscope.messages import GenerationParams, cache_key, user_request
from vlmscope.models.registry import build_backend

_MODELS: dict[str, dict[str, Any]] = {
    "hf": {"backend": "hf", "name": "local", "path": "org/tiny-vlm", "max_new_tokens": 64},
    "openai": {
        "backend": "openai",
        "name": "api",
        "base_url": "http://127.0.0.1:9/v1/",
        "model": "some-model",
        "api_key_env": "SOME_KEY",
    },
    "vllm": {"backend": "vllm", "name": "served", "path": "org/tiny-vlm", "dtype": "bfloat16"},
    "oracle": {"backend": "oracle"},
    "coin": {"backend": "coin", "labels": ["A>B", "B>A"]},
}

KEYS = {
    "hf": "5fbfe717de5f3094c934f455d3ceae4cca5a6f3e4c0033bb0371236e2727c23e",
    "openai": "c9c11518c7efc158623250463afb5eb6e7556d72d85e5c781480a5b9ac532125",
    "vllm": "8994c80dfb614b49785d52940cfc98d4e7a6e533b646403080d007b3c47eadf7",
    "oracle": "516261304aaa25edb2d822efe1824dd6c93cc02faba0307e6579e724fd4543fe",
    "coin": "e040504668eaa2f98ef8b2f46935367817dc5c234099b66f0e742ba4567efcc0",
}
CONFIG_HASH = "a4d84c9db52b87e0"


def _request() -> Any:
    return user_request(
        b"\x89PNG-not-really", "What colour is it?", params=GenerationParams(max_new_tokens=16)
    )


@pytest.mark.parametrize("backend", sorted(_MODELS))
def test_an_unchanged_model_config_keeps_its_cache_key(backend: str) -> None:
    config = parse_config({"models": [_MODELS[backend]], "tracks": [{"name": "colours"}]})
    identity = build_backend(config.models[0]).identity
    assert cache_key(identity, _request()) == KEYS[backend]


def test_an_unchanged_run_config_keeps_its_hash() -> None:
    judged = {"name": "colours", "judge": _MODELS["openai"]}
    config = parse_config({"models": list(_MODELS.values()), "tracks": [judged]})
    assert config.config_hash() == CONFIG_HASH


_OPTIONS: list[dict[str, Any]] = [
    {"system_prompt": "Think first."},
    {"reasoning_tags": "none"},
    {"reasoning_tags": ["<reasoning>", "</reasoning>"]},
    {"generation": {"temperature": 0.6}},
    {"generation": {"top_p": 0.9}},
    {"generation": {"top_k": 20}},
    {"generation": {"stop": ["</answer>"]}},
    {"generation": {"seed": 1}},
    {"generation": {"repetition_penalty": 1.1}},
    {"generation": {"chat_template_kwargs": {"enable_thinking": False}}},
]
_API_OPTIONS: list[dict[str, Any]] = [
    {"token_limit_field": "max_completion_tokens"},
    {"send_temperature": False},
    {"reasoning_effort": "low"},
    {"extra_body": {"service_tier": "flex"}},
]


def _key(model: dict[str, Any]) -> str:
    config = parse_config({"models": [model], "tracks": [{"name": "colours"}]})
    return cache_key(build_backend(config.models[0]).identity, _request())


@pytest.mark.parametrize("backend", ["hf", "openai", "vllm"])
def test_every_option_set_changes_the_key_and_its_default_spelled_out_does_not(
    backend: str,
) -> None:
    options = _OPTIONS + (_API_OPTIONS if backend == "openai" else [])
    keys = {_key({**_MODELS[backend], **option}) for option in options}
    assert len(keys) == len(options) and KEYS[backend] not in keys
    defaults: dict[str, Any] = {"system_prompt": None, "reasoning_tags": "think",
                                "generation": {"temperature": None, "stop": None}}  # fmt: skip
    if backend == "openai":
        defaults.update(token_limit_field="max_tokens", send_temperature=True, extra_body={})
    assert _key({**_MODELS[backend], **defaults}) == KEYS[backend]
