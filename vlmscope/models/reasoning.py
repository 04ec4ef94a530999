"""Keep a model's reasoning trace apart from its answer: one rule for every backend.

Reasoning models write their thinking before the answer. A server with a reasoning parser
returns it in a field of its own (`reasoning_content`, `reasoning`); otherwise it is inline,
between tags such as `<think>` ... `</think>`. Scoring the whole text would score the thinking:
MEGA-Bench's parsers take the last `Answer:`, which may be one the model rejected, and a judge
would read the thinking as part of the answer. So each backend splits its reply here, and a
`Response` carries the answer as `text` and the trace as `reasoning`; every track then sees
only the answer, and the runner keeps and counts the trace.

The split of a text:

* a closing tag: everything before the last one is the trace (an opening tag, if the model
  wrote one, is dropped), everything after it the answer (Qwen's own reading of its output);
* an opening tag and no closing one: the reply ended inside its trace; the answer is empty
  and the reply is `truncated_in_reasoning`;
* neither: the answer is the whole text, unless the prompt itself opened the trace (a chat
  template that ends with `<think>`, as Qwen3-VL-Thinking's does), when the whole text is an
  unfinished trace.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from vlmscope.config import ReasoningPreset
from vlmscope.messages import Response, Usage

Tags = tuple[str, str]

TAG_PRESETS: dict[str, Tags | None] = {
    "think": ("<think>", "</think>"),
    "kimi-vl": ("◁think▷", "◁/think▷"),
    "none": None,
}
"""Each `ReasoningPreset`'s (open, close) tags; None: no inline trace."""


def resolve_tags(setting: ReasoningPreset | tuple[str, str]) -> Tags | None:
    """A config's `reasoning_tags` as (open, close), None for `none`."""
    return TAG_PRESETS[setting] if isinstance(setting, str) else setting


@dataclass(frozen=True)
class Split:
    answer: str
    reasoning: str
    truncated: bool


def split_reasoning(text: str, tags: Tags | None, *, opened: bool = False) -> Split:
    """`text` as answer and trace (module docstring); `opened`: the prompt opened the trace."""
    if tags is None:
        return Split(text, "", False)
    open_tag, close_tag = tags
    close = text.rfind(close_tag)
    start = text.find(open_tag)
    if close >= 0:
        if 0 <= start < close:
            prefix, trace = text[:start], text[start + len(open_tag) : close]
        else:
            prefix, trace = "", text[:close]
        return Split((prefix + text[close + len(close_tag) :]).strip(), trace.strip(), False)
    if start >= 0:
        return Split(text[:start].strip(), text[start + len(open_tag) :].strip(), True)
    if opened:
        return Split("", text.strip(), True)
    return Split(text, "", False)


def prompt_opens_reasoning(prompt: str, tags: Tags | None) -> bool:
    """Whether a chat-template prompt ends inside a trace it opened (the model's first words
    are thinking, with no opening tag of their own)."""
    return tags is not None and prompt.rstrip().endswith(tags[0])


def with_reasoning(
    response: Response,
    tags: Tags | None,
    *,
    opened: bool = False,
    field: str = "",
    ended_by_limit: bool = False,
) -> Response:
    """`response` with its trace split off its text (nothing to do for a failed response).

    `field` is a trace the server returned in a field of its own; any inline trace is added
    after it. A reply that has a trace, no answer and was `ended_by_limit` (an API's
    `finish_reason: length`) is also truncated in its reasoning.
    """
    if not response.ok:
        return response
    split = split_reasoning(response.text, tags, opened=opened)
    reasoning = "\n\n".join(part for part in (field.strip(), split.reasoning) if part)
    thought = bool(reasoning) or response.usage.reasoning_tokens > 0
    truncated = split.truncated or (ended_by_limit and thought and not split.answer)
    if not reasoning and not truncated:
        return response if split.answer == response.text else replace(response, text=split.answer)
    return replace(
        response,
        text=split.answer,
        reasoning=reasoning,
        truncated_in_reasoning=truncated,
        usage=reasoning_usage(response.usage, reasoning, split.answer),
    )


def reasoning_usage(usage: Usage, reasoning: str, answer: str) -> Usage:
    """`usage` with the trace's tokens: the server's count when it gave one; else the share of
    the completion the trace takes by length (all of it when there is no answer), or about four
    characters a token when the completion was not counted either."""
    if usage.reasoning_tokens or not reasoning:
        return usage
    total = usage.completion_tokens
    if total and not answer:
        estimate = total
    elif total:
        estimate = round(total * len(reasoning) / (len(reasoning) + len(answer)))
    else:
        estimate = max(1, round(len(reasoning) / 4))
    return replace(usage, reasoning_tokens=estimate, reasoning_tokens_estimated=True)
