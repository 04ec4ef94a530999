"""Numbers in a config are taken as written: `true` is not the count 1, `"8"` is not 8.

pydantic's default (lax) mode turns a boolean into 0 or 1 and numeric text into a number, so
`limit: true` ran one row and `batch_size: "8"` passed for 8. Its strict mode would also refuse
a YAML list where a tuple is declared, which configs rely on, so the rule is kept to numbers:
every config model (run configs, track options, the arena's) derives from `AsWritten`, which
refuses a boolean or a string for a field that holds only numbers (int, float, optionally None).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Union

from pydantic import BaseModel, model_validator

_NUMBERS = (int, float)


def holds_only_numbers(annotation: Any) -> bool:
    """Whether a field's type is a number (int or float), possibly optional or annotated."""
    if typing.get_origin(annotation) is Annotated:
        return holds_only_numbers(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (Union, types.UnionType):
        kinds = [a for a in typing.get_args(annotation) if a is not type(None)]
        return bool(kinds) and all(holds_only_numbers(a) for a in kinds)
    return annotation in _NUMBERS


class AsWritten(BaseModel):
    """A model whose numeric fields refuse booleans and text (see the module docstring)."""

    @model_validator(mode="before")
    @classmethod
    def _numbers_as_written(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            for name, given in value.items():
                field = cls.model_fields.get(name) if isinstance(name, str) else None
                if (
                    field is not None
                    and isinstance(given, bool | str)
                    and holds_only_numbers(field.annotation)
                ):
                    raise ValueError(f"{name}: expected a number, got {given!r}")
        return value
