"""The body a model config asks for, the refusals it may meet, and the reasoning in a reply."""

from __future__ import annotations

import json
from typing import Any

import pytest

from vlmscope.config import ConfigError, OpenAIModelConfig, parse_config
from vlmscope.messages import GenerationParams, Usage, user_request
from vlmscope.models.openai_payload import BadBody, Completion, chat_body, parse_reply
from vlmscope.models.openai_request import refusal_hint, request_body

REQUEST = user_request(
    "What is shown?", system="Track text.", params=GenerationParams(max_new_tokens=900)
)


def config(**fields: Any) -> OpenAIModelConfig:
    base = {"backend": "openai", "name": "m", "base_url": "http://x/v1", "model": "the-model"}
    return OpenAIModelConfig.model_validate({**base, **fields})


def test_a_config_without_options_sends_the_plain_body_in_the_same_order() -> None:
    body = request_body(REQUEST, config(max_new_tokens=64))
    assert json.dumps(body) == json.dumps(chat_body(REQUEST, "the-model", 64))


def test_a_reasoning_api_body() -> None:
    body = request_body(
        REQUEST,
        config(
            token_limit_field="max_completion_tokens",
            send_temperature=False,
            reasoning_effort="high",
            system_prompt="Model text.",
            extra_body={"service_tier": "flex"},
        ),
    )
    assert list(body) == ["model", "messages", "max_completion_tokens", "reasoning_effort",
                          "service_tier"]  # fmt: skip
    assert body["max_completion_tokens"] == 900
    assert body["messages"][0] == {"role": "system", "content": "Model text.\n\nTrack text."}


def test_generation_options_override_the_track_and_reach_the_server() -> None:
    generation = {
        "temperature": 0.6, "top_p": 0.95, "top_k": 20, "stop": ["<|end|>"], "seed": 7,
        "repetition_penalty": 1.05, "chat_template_kwargs": {"enable_thinking": False},
    }  # fmt: skip
    body = request_body(REQUEST, config(generation=generation))
    assert {k: body[k] for k in generation} == generation
    assert request_body(REQUEST, config())["temperature"] == 0.0  # the track's


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"extra_body": {"max_tokens": 5}}, "'max_tokens' is written by the backend; set "
         "max_new_tokens and token_limit_field"),
        ({"extra_body": {"top_p": 0.5}}, "set generation.top_p"),
        ({"token_limit_field": "max_output_tokens"}, "token_limit_field"),
        ({"reasoning_effort": "Very High"}, "reasoning_effort"),
        ({"generation": {"top_p": 1.5}}, "generation.top_p"),
        ({"generation": {"stop": []}}, "generation.stop"),
        ({"generation": {"tempreature": 1}}, "generation.tempreature"),
    ],
)  # fmt: skip
def test_bad_options_name_their_field(fields: dict[str, Any], message: str) -> None:
    model = {"backend": "openai", "name": "m", "base_url": "http://x/v1", "model": "m", **fields}
    with pytest.raises(ConfigError) as err:
        parse_config({"models": [model], "tracks": [{"name": "colours"}]})
    assert "models.0" in str(err.value) and message in str(err.value)


def _openai_error(param: str, message: str) -> str:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error",
                                 "param": param, "code": "unsupported_parameter"}})  # fmt: skip


SENT = dict.fromkeys(["model", "messages", "max_tokens", "temperature", "top_k", "service_tier"])


@pytest.mark.parametrize(
    ("status", "reply", "hint"),
    [
        (400, _openai_error("max_tokens", "Unsupported parameter: 'max_tokens' is not supported "
         "with this model. Use 'max_completion_tokens' instead."),
         "'max_tokens': set `token_limit_field: max_completion_tokens`"),
        (400, _openai_error("temperature", "Unsupported value: 'temperature' does not support 0 "
         "with this model."), "'temperature': set `send_temperature: false`"),
        (400, "Unrecognized request argument supplied: top_k", "remove `generation.top_k`"),
        (422, '{"detail": "extra inputs are not permitted: service_tier"}',
         "remove `extra_body.service_tier`"),
        (400, _openai_error("messages", "bad image"), None),  # not a field a config sets
        (400, '{"error": "max_tokens must be at least 1"}', None),  # no refusal word
        (500, _openai_error("max_tokens", "unsupported"), None),
    ],
)  # fmt: skip
def test_refusal_hints_name_the_config_field(status: int, reply: str, hint: str | None) -> None:
    found = refusal_hint(status, reply, SENT)
    assert found == hint if hint is None else hint in (found or "")


def _reply(message: dict[str, Any], usage: dict[str, Any] | None = None, finish: str = "stop"):
    body = {"choices": [{"message": message, "finish_reason": finish}], "usage": usage or {}}
    return json.dumps(body).encode()


def test_a_reply_keeps_its_reasoning_field_and_reasoning_tokens() -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 50,
             "completion_tokens_details": {"reasoning_tokens": 42}}  # fmt: skip
    reply = parse_reply(_reply({"content": "B", "reasoning_content": "Answer: A? no"}, usage))
    assert reply == Completion("B", "Answer: A? no", Usage(5, 50, 42), False)
    assert parse_reply(_reply({"content": "B", "reasoning": "hm"})).reasoning == "hm"


def test_a_reply_that_spent_its_limit_thinking_has_empty_text() -> None:
    reply = parse_reply(_reply({"content": None, "reasoning_content": "hm"}, finish="length"))
    assert reply == Completion("", "hm", Usage(), True)
    with pytest.raises(BadBody):  # no content and no trace: still not an answer
        parse_reply(_reply({"content": None}))
