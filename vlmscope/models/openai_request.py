"""The chat-completions body a model config asks for, and what to change when a server refuses it.

Servers differ: reasoning APIs (OpenAI's o-series and GPT-5 family) take the token limit only as
`max_completion_tokens` and refuse any temperature but their own; vLLM and SGLang take sampling
options the OpenAI API does not (`top_k`, `repetition_penalty`, `chat_template_kwargs`). So the
body holds `openai_payload`'s four fields by default, and each option a config sets adds or
renames one; `extra_body` adds server-specific fields last.

A server that refuses a field answers 400 and says which; `refusal_hint` turns that into the
config field to change. The backend does not retry with the body changed: a changed body is a
different request, and its answers would be cached under the config that did not ask for it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from vlmscope.config import OpenAIModelConfig
from vlmscope.messages import Request
from vlmscope.models.openai_payload import chat_body
from vlmscope.models.prompting import temperature, with_system_prompt

_SAMPLING = ("top_p", "top_k", "stop", "seed", "repetition_penalty")
_REFUSAL_WORDS = re.compile(
    r"unsupported|not supported|unrecognized|unknown|not permitted|extra (inputs|fields)",
    re.IGNORECASE,
)


def request_body(request: Request, config: OpenAIModelConfig) -> dict[str, Any]:
    """The JSON body for `request` under `config`; exactly `chat_body`'s for a config that sets
    no option, field order included."""
    base = chat_body(
        with_system_prompt(request, config.system_prompt), config.model, config.max_new_tokens
    )
    body: dict[str, Any] = {"model": base["model"], "messages": base["messages"]}
    body[config.token_limit_field] = base["max_tokens"]
    if config.send_temperature:
        body["temperature"] = temperature(request, config.generation)
    options = config.generation
    for name in _SAMPLING:
        value = getattr(options, name)
        if value is not None:
            body[name] = value
    if options.chat_template_kwargs:
        body["chat_template_kwargs"] = dict(options.chat_template_kwargs)
    if config.reasoning_effort is not None:
        body["reasoning_effort"] = config.reasoning_effort
    body.update(config.extra_body)
    return body


def refusal_hint(status: int, reply: str, sent: Mapping[str, Any]) -> str | None:
    """For a 400 (or 422) reply that names a field of the body `sent` as unsupported: which
    config field to change. None for any other reply."""
    if status not in (400, 422):
        return None
    field = _refused_field(reply, [name for name in sent if name not in ("model", "messages")])
    if field is None:
        return None
    return f"the server refuses the body field {field!r}: {_CHANGE.get(field, _extra(field))}"


def _refused_field(reply: str, candidates: list[str]) -> str | None:
    """The field the reply's `error.param` names, else one it quotes beside a refusal word."""
    try:
        error = json.loads(reply).get("error")
    except (ValueError, AttributeError):
        error = None
    param = error.get("param") if isinstance(error, dict) else None
    if isinstance(param, str) and param in candidates:
        return param
    if not _REFUSAL_WORDS.search(reply):
        return None
    return next((c for c in candidates if re.search(rf"\b{re.escape(c)}\b", reply)), None)


def _extra(field: str) -> str:
    return f"remove `extra_body.{field}` (or the option that sends it) from this model's config"


_CHANGE = {
    "max_tokens": "set `token_limit_field: max_completion_tokens` in this model's config",
    "max_completion_tokens": "set `token_limit_field: max_tokens` in this model's config",
    "temperature": "set `send_temperature: false` in this model's config (and no "
    "`generation.temperature`)",
    "reasoning_effort": "remove `reasoning_effort` from this model's config",
    "chat_template_kwargs": "remove `generation.chat_template_kwargs` from this model's config",
    **{name: f"remove `generation.{name}` from this model's config" for name in _SAMPLING},
}
