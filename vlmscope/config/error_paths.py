"""Where a config error is, as the user's YAML spells it.

pydantic's location of an error inside a tagged union holds the tag of the member it tried:
`models: [{backend: openai, temperatur: 0}]` is located at `models.0.openai.temperatur`, and a
track's judge at `tracks.0.judge.one.…` or `….judge.panel.…`, paths the file does not have.
`yaml_path` follows the location through the config classes (lists, mappings, optional and
tagged unions) and drops every step that is a union's tag, so a model entry, a judge, a
panel's judges and an arena's contestants are all named by the keys written in the file; a
member told apart by a field the user wrote (a model's `backend`) is named after the path, as
`models.0.temperatur (openai model)`, since the keys a place takes depend on it.
"""

from __future__ import annotations

import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from vlmscope.config.hints import (
    config_class,
    problem_text,
    step_type,
    unannotated,
    union_member,
)


def yaml_path(loc: tuple[int | str, ...], root: type[BaseModel] | Any) -> str:
    """`loc` (an error's location in `root`, a config class or a type such as `ModelConfig`)
    as the dotted path the YAML spells, with the kind of the innermost model entry after it
    where a `backend` chose it ("" for the top level)."""
    current: Any = root
    kept: list[str] = []
    kind = ""
    for part in loc:
        members = _union_members(current)
        member = union_member(members, part) if members else None
        if member is not None:
            current = member
            kind = _kind(member, part)
            continue
        kept.append(str(part))
        current = step_type(current, part) if current is not None else None
    path = ".".join(kept)
    return f"{path} ({kind})" if kind and path else path


def _union_members(annotation: Any) -> tuple[Any, ...]:
    """The members of the union `annotation` is (an optional one's, None aside), or ()."""
    annotation = unannotated(annotation)
    if get_origin(annotation) not in (Union, types.UnionType):
        return ()
    members = tuple(a for a in get_args(annotation) if a is not type(None))
    return _union_members(members[0]) if len(members) == 1 else members


def _kind(member: Any, tag: int | str) -> str:
    """'openai model' for a member chosen by its `backend`; a tag that the shape of the value
    chose (a judge read as one model or as a panel) is nothing the user wrote, so ''."""
    model = config_class(member)
    backend = model.model_fields.get("backend") if model is not None else None
    if backend is not None and get_origin(backend.annotation) is Literal:
        return f"{tag} model" if tag in get_args(backend.annotation) else ""
    return ""


def problems_text(error: ValidationError, root: type[BaseModel] | Any, under: str = "") -> str:
    """Every problem of `error` (validating `root`) as `PATH: message` with its likely fix,
    joined by "; " on one line; `under` is the place `root` sits in the file (a track's
    `tracks.0.options`), or "" for the file's top level. Every config reader reports this way."""
    return "; ".join(
        ": ".join(
            filter(
                None,
                (".".join(filter(None, (under, yaml_path(e["loc"], root)))), problem_text(e, root)),
            )
        )
        for e in error.errors()
    )
