"""A dry run of a reasoning API with no earlier replies says that its reasoning is output too:
at the default 256 output tokens the estimate read as a fraction of what such a model costs,
and nothing said so."""

from __future__ import annotations

from vlmscope.config import OpenAIModelConfig
from vlmscope.runner.token_estimate import assumed_output

API = {"backend": "openai", "name": "m", "base_url": "http://127.0.0.1:9/v1", "model": "m"}


def test_a_reasoning_api_is_told_its_reasoning_counts() -> None:
    said = assumed_output(
        OpenAIModelConfig.model_validate({**API, "reasoning_effort": "medium"}), 256
    )
    assert said.startswith("assumed 256 (--output-tokens)")
    assert "reasoning_effort: medium" in said and "give --output-tokens" in said


def test_a_model_that_does_not_reason_reads_as_before() -> None:
    said = assumed_output(OpenAIModelConfig.model_validate(API), 256)
    assert said == "assumed 256 (--output-tokens), at most each request's limit"
