"""Answer parsing exactly as the official MEGA-Bench evaluator does it, quirks included.

Parsers (chosen by a task's `response_parse_function`):
- `answer_string`: keep the text after the *last* "Answer:" marker, unwrap a code block, cut single-line
  answers at the first blank line, turn bracketed JSON/Python into its Python repr, unquote a string
  literal. QUIRKS kept for parity: `**Answer:** x` and `*Answer:* x` give "" (the lazy capture ends at
  the next `*`), upper-case `ANSWER:` is not a marker.
- `ascii_answer_string` / `verbatim_answer_string`: the same skeleton without whitespace skipping after
  "Answer:" (so `Answer: 66.5` keeps its leading space in verbatim mode) and without the blank-line cut.
- `json`: the shared JSON extractor (`extract_json`) plus one level of string-literal unquoting per value.
- `dummy`: the stripped response.

`python_literal` is the one place where text from data or responses is read as a Python literal
(`ast.literal_eval`); every metric goes through it and catches exactly what the official code catches.
The extractor keeps the official recursive pattern (the third-party `regex` module, which supports
`(?R)` and a time limit). `json_repair` was evaluated for the extractor and rejected: it repairs
inputs that the official extractor rejects (unquoted words, unclosed brackets), which changes scores.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from typing import Any

import regex

from vlmscope.literals import python_literal
from vlmscope.metrics.megabench.caches import cached

SINGLE_FIELD_PARSE_TYPES = ("answer_string", "ascii_answer_string", "verbatim_answer_string")

_EXTRACTOR_TIMEOUT_S = 0.1
_JSON_CANDIDATE = r"(\{(?:[^{}]|(?R))*\}|\[(?:[^{}]|(?R))*\])"
_DOUBLE_QUOTED = r'"(?:\\.|[^"\\])*"'
_LONE_SINGLE_QUOTE = re.compile(r"(?<!\w)\'|\'(?!\w)")
_ANSWER_AT_LINE_START = re.compile(r"^(?:\*\*Answer:|Answer:)\s*(.+)", re.MULTILINE)
_ANSWER_MARKER = re.compile(r"\*\*?Answer:\s*(.*?)\*\*?|\bAnswer:\s*(.*)", re.DOTALL)
_ANSWER_MARKER_RAW = re.compile(r"\*\*?Answer:(.*?)\*\*?|\bAnswer:(.*)", re.DOTALL)
_SHORT_ANSWER_START = re.compile(
    r"^(?:(?:[a-zA-Z0-9_-]+)(?:,\s*[a-zA-Z0-9_-]+)*|(?:[a-zA-Z0-9_-]+)\.|\((?:[a-zA-Z0-9_-]+)\)$)"
)


def literal_as_string(text: Any) -> Any:
    """Drop one level of string quotes: `"'tree'"` -> `"tree"`; anything else is returned unchanged."""
    if isinstance(text, str):
        return _str_literal_as_string(text)
    return _literal_as_string(text)


@cached
def _str_literal_as_string(text: str) -> str:
    """`literal_as_string` of a string, memoised: every ground truth and parsed field goes
    through it, the same few texts again and again, and each reading compiles the text."""
    value: str = _literal_as_string(text)
    return value


def _literal_as_string(text: Any) -> Any:
    try:
        value = python_literal(text)
    except (ValueError, SyntaxError):
        return text
    except MemoryError:
        return ""
    return value if isinstance(value, str) else text


def extract_code_block(
    text: str, code_type: str | None = None, *, raw: bool = False, keep_whitespace: bool = False
) -> tuple[str, bool]:
    """Content of the first fenced code block and whether one was found.

    `raw` is the official ascii-art mode (content returned unstripped); `keep_whitespace` is the
    verbatim variant of it.
    """
    if code_type:
        pattern = rf"```{code_type}\s*\n*(.*?)\s*```"
    elif raw:
        if not text.strip() or len(text) > 10000:
            text = text.rstrip()
        if keep_whitespace:
            pattern = r"```\w*(?:\s*\n+)?(.*?)(?:\n+\s*)?```"
        else:
            pattern = r"```\w*(?:\s*\n+)?(.*?)\s*```"
    else:
        pattern = r"```\w*\s*\n*(.*?)\s*```"
    match = re.search(pattern, text, flags=re.DOTALL)
    if not match:
        return text, False
    return (match.group(1), True) if raw else (match.group(1).strip(), True)


def _answer_from_first_label_line(text: str) -> str:
    match = _ANSWER_AT_LINE_START.search(text)
    return match.group(1).strip() if match else text.strip()


def _expand_nested_json_strings(candidate: str) -> str:
    candidate = candidate.replace('\\"', "__DOUBLE_QUOTE__").replace("\\'", "__SINGLE_QUOTE__")
    for literal in regex.findall(_DOUBLE_QUOTED, candidate):
        inner = literal[1:-1].replace("__DOUBLE_QUOTE__", '"').replace("__SINGLE_QUOTE__", "'")
        try:
            nested = json.loads(inner)
        except json.JSONDecodeError:
            continue
        if isinstance(nested, (dict, list)):
            candidate = candidate.replace(literal, json.dumps(nested))
    return candidate.replace("__DOUBLE_QUOTE__", '\\"').replace("__SINGLE_QUOTE__", "\\'")


def _decode_candidate(candidate: str) -> list[Any]:
    """Every successful decoding of one candidate, in the official order."""
    decoded: list[Any] = []
    candidate = _expand_nested_json_strings(candidate)
    try:
        decoded.append(json.loads(candidate))
    except json.JSONDecodeError:
        with contextlib.suppress(json.JSONDecodeError):
            decoded.append(json.loads(_LONE_SINGLE_QUOTE.sub('"', candidate)))
    try:
        decoded.append(python_literal(candidate))
        return decoded
    except (SyntaxError, ValueError):
        pass
    candidate = candidate.replace('\\"', '\\\\"').replace("\\'", "\\\\'")
    with contextlib.suppress(SyntaxError, ValueError):
        decoded.append(python_literal(candidate))
    return decoded


def extract_json(text: str) -> Any:
    """The shared JSON extractor: the last decodable `{...}`/`[...]` in the text.

    Only the first line starting with `Answer:`/`**Answer:` is searched when there is one (QUIRK: a
    multi-line JSON after the label is cut to its first line and fails). Nothing decodable gives `[]`
    when the text starts with "[" and `{}` otherwise.
    """
    body = _answer_from_first_label_line(text)
    body, _ = extract_code_block(body, "json")
    empty: Any = [] if body.startswith("[") else {}
    try:
        candidates = regex.findall(_JSON_CANDIDATE, body, timeout=_EXTRACTOR_TIMEOUT_S)
    except TimeoutError:
        return empty
    decoded: list[Any] = []
    for candidate in candidates:
        decoded.extend(_decode_candidate(candidate))
    return decoded[-1] if decoded else empty


def _text_after_answer_marker(text: str, *, raw: bool, keep_whitespace: bool) -> str:
    text = text.replace("answer:", "Answer:")
    last = text.rfind("Answer:")
    if last != -1:
        text = text[:last].replace("Answer:", "") + text[last:]
    match = (_ANSWER_MARKER_RAW if raw else _ANSWER_MARKER).search(text)
    if match:
        text = match.group(1) or match.group(2) or ""
    if not raw:
        return text.strip()
    text = re.sub(r"^\s*$(\n^\s*$)+", "", text, flags=re.MULTILINE)
    text = re.sub(r"(\n\s*)+$", "", text) if keep_whitespace else text.rstrip()
    return re.sub(r"^(\s*\n)+", "", text)


def _first_line_is_followed_by_blank(text: str) -> bool:
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.strip():
            return index + 1 < len(lines) and lines[index + 1].strip() == ""
    return True


def _cut_to_first_paragraph(text: str) -> str:
    """Keep only the first paragraph when it looks like a short answer followed by a blank line."""
    first_paragraph = text.split("\n\n")[0].strip()
    if (
        _SHORT_ANSWER_START.search(first_paragraph)
        and first_paragraph
        and _first_line_is_followed_by_blank(text)
    ):
        return first_paragraph
    return text


def _parse_single_answer(
    response: str | None, *, raw: bool, keep_whitespace: bool, is_single_line_ans: bool
) -> str:
    content = _text_after_answer_marker(response or "", raw=raw, keep_whitespace=keep_whitespace)
    content, is_code = extract_code_block(content, raw=raw, keep_whitespace=keep_whitespace)
    if not is_code and is_single_line_ans and not raw:
        content = _cut_to_first_paragraph(content)
    if content.startswith("{") or content.startswith("["):
        parsed = extract_json(content)
        if (parsed == {} and "{}" not in content) or (parsed == [] and "[]" not in content):
            return content
        return repr(parsed)
    value = literal_as_string(content)
    return value if isinstance(value, str) else content


def parse_answer_string(response: str | None, *, is_single_line_ans: bool) -> str:
    """The `answer_string` parser (single answer field)."""
    return _parse_single_answer(
        response, raw=False, keep_whitespace=False, is_single_line_ans=is_single_line_ans
    )


def parse_ascii_answer_string(response: str | None, *, is_single_line_ans: bool = False) -> str:
    """The `ascii_answer_string` parser: whitespace inside the answer is significant."""
    return _parse_single_answer(
        response, raw=True, keep_whitespace=False, is_single_line_ans=is_single_line_ans
    )


def parse_verbatim_answer_string(response: str | None, *, is_single_line_ans: bool = False) -> str:
    """The `verbatim_answer_string` parser: like ascii, but leading/trailing spaces survive."""
    return _parse_single_answer(
        response, raw=True, keep_whitespace=True, is_single_line_ans=is_single_line_ans
    )


def parse_json_response(response: str) -> Any:
    """The `json` parser: extractor result, with each top-level dict value unquoted once."""
    parsed = extract_json(response)
    if isinstance(parsed, dict):
        for key, value in parsed.items():
            parsed[key] = literal_as_string(value)
    return parsed


def parse_dummy(response: str) -> str:
    """The `dummy` parser: the whole response, stripped."""
    return response.strip()


def parse_response(
    parse_type: str,
    response: str | None,
    *,
    answer_key: str | None = None,
    is_single_line_ans: bool = False,
) -> Any:
    """Dispatch on the task's parse type.

    Single-field parsers return `{answer_key: text}` like the official ones; `json` returns whatever
    the extractor found (the caller handles a failed parse); `dummy` returns the stripped string.
    """
    single_field: dict[str, Callable[..., str]] = {
        "answer_string": parse_answer_string,
        "ascii_answer_string": parse_ascii_answer_string,
        "verbatim_answer_string": parse_verbatim_answer_string,
    }
    if parse_type in single_field:
        if answer_key is None:
            raise ValueError(f"parse type {parse_type!r} needs the answer field name")
        text = single_field[parse_type](response, is_single_line_ans=is_single_line_ans)
        return {answer_key: text}
    if parse_type == "dummy":
        return parse_dummy(response if response is not None else "")
    if response is None:
        response = ""
    return parse_json_response(response)
