"""What a config error suggests: the key or value the user most likely meant.

A misspelt key (`temperatur`), backend (`openia`) or choice (`bfloat`) is the commonest config
mistake, and pydantic's own words for it ("Extra inputs are not permitted") name neither what
would have been accepted nor the likely fix. `problem_text` rewrites those errors as "unknown
key; did you mean 'temperature'?" (or lists the keys the place takes when nothing is close),
and leaves every other error's message as it is. The keys a place takes are read from the
config classes themselves, following the error's location through lists, mappings and tagged
unions, so a new field is suggested without being listed here.
"""

from __future__ import annotations

import difflib
import re
import types
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, Tag
from pydantic_core import ErrorDetails


def closest(word: str, choices: Sequence[str]) -> str | None:
    """The choice `word` most likely misspells, or None when none is close."""
    return _closest_spelling(word, {choice: choice for choice in choices})


def _closest_spelling(word: str, spelled: Mapping[str, str]) -> str | None:
    """The suggestion (a key of `spelled`) whose spelling (its value) is nearest `word`, letter
    case aside, or None when none is close; on a tie the shorter suggestion. Every hint of this
    module is chosen here, so a misspelling is judged alike wherever it is made."""
    scored = [
        (difflib.SequenceMatcher(None, word.lower(), leaf.lower()).ratio(), -len(key), key)
        for key, leaf in spelled.items()
    ]
    if not scored:
        return None
    ratio, _, best = max(scored)
    return best if ratio >= 0.6 else None


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """'; did you mean 'x'?' for a close choice, else ''."""
    best = closest(word, choices)
    return f"; did you mean {best!r}?" if best is not None else ""


def problem_text(error: ErrorDetails, root: type[BaseModel] | Any) -> str:
    """The message of one validation error of `root`, with a suggestion where one is clear."""
    message = error["msg"].removeprefix("Value error, ")
    kind, loc, ctx = error["type"], tuple(error["loc"]), error.get("ctx") or {}
    if kind == "extra_forbidden" and loc and isinstance(loc[-1], str):
        keys = keys_at(root, loc[:-1])
        if not keys:
            return "unknown key"
        best = _closest_key(loc[-1], keys, root, loc[:-1])
        if best is not None:
            return f"unknown key; did you mean {best!r}?"
        return f"unknown key; this place takes {', '.join(keys)}"
    if kind == "union_tag_invalid" and isinstance(ctx.get("tag"), str):
        tags = re.findall(r"'([^']*)'", str(ctx.get("expected_tags", "")))
        return message + did_you_mean(ctx["tag"], tags)
    if kind in ("literal_error", "enum") and isinstance(error.get("input"), str):
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return message + did_you_mean(error["input"], choices)
    return message


def _closest_key(
    word: str, keys: list[str], root: type[BaseModel], place: tuple[int | str, ...]
) -> str | None:
    """The key `word` most likely meant: one of this place's `keys`, or a key one level down
    written as `outer.inner` (`temperature` given beside `generation`, where it belongs)."""
    spelled = {key: key for key in keys}
    for key in keys:
        for inner in keys_at(root, (*place, key)):
            spelled.setdefault(f"{key}.{inner}", inner)
    return _closest_spelling(word, spelled)


def keys_at(root: type[BaseModel] | Any, loc: tuple[int | str, ...]) -> list[str]:
    """The keys the mapping at `loc` takes (empty when `loc` does not lead to a config class)."""
    current: Any = root
    for part in loc:
        current = step_type(current, part)
        if current is None:
            return []
    model = config_class(current)
    return list(model.model_fields) if model is not None else []


def step_type(annotation: Any, part: int | str) -> Any:
    """The type one location step below `annotation` (None when the step cannot be followed)."""
    annotation = unannotated(annotation)
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        member = union_member(get_args(annotation), part)
        if member is not None:
            return member
        single = [a for a in get_args(annotation) if a is not type(None)]
        return step_type(single[0], part) if len(single) == 1 else None
    if origin is list and isinstance(part, int):
        return get_args(annotation)[0]
    if origin is dict and isinstance(part, str):
        return get_args(annotation)[1]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        field = annotation.model_fields.get(str(part))
        return field.annotation if field is not None else None
    return None


def union_member(members: tuple[Any, ...], tag: int | str) -> Any:
    """The member of a tagged union that `tag` names: by its `Tag`, or by a `Literal` field that
    tells the members apart (a config's `backend`)."""
    for member in members:
        if get_origin(member) is Annotated and Tag(tag=str(tag)) in get_args(member)[1:]:
            return get_args(member)[0]
        model = config_class(member)
        if model is not None and any(
            get_origin(f.annotation) is Literal and tag in get_args(f.annotation)
            for f in model.model_fields.values()
        ):
            return model
    return None


def unannotated(annotation: Any) -> Any:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def config_class(annotation: Any) -> type[BaseModel] | None:
    annotation = unannotated(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None
