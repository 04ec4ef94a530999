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

from pydantic import BaseModel, ModelWrapValidatorHandler, ValidationError, model_validator
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError

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

    @model_validator(mode="wrap")
    @classmethod
    def _numbers_as_written(cls, value: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        """Each number so written is an error at its own field, reported with every other
        error of the model (a misspelt key beside it), not alone as the only one found."""
        bad = _written_numbers(cls, value)
        if not bad:
            return handler(value)
        errors = [
            InitErrorDetails(
                type=PydanticCustomError(
                    "number_as_written", "expected a number, got {given}", {"given": repr(given)}
                ),
                loc=(name,),
                input=given,
            )
            for name, given in bad.items()
        ]
        try:
            handler(value)
        except ValidationError as err:
            errors += [_again(e) for e in err.errors() if not (e["loc"] and e["loc"][0] in bad)]
        raise ValidationError.from_exception_data(cls.__name__, errors)


def _written_numbers(model: type[BaseModel], value: Any) -> dict[str, Any]:
    """The fields of `model` that hold only numbers but are given a boolean or text."""
    if not isinstance(value, Mapping):
        return {}
    return {
        name: given
        for name, given in value.items()
        if isinstance(name, str)
        and name in model.model_fields
        and isinstance(given, bool | str)
        and holds_only_numbers(model.model_fields[name].annotation)
    }


def _again(error: ErrorDetails) -> InitErrorDetails:
    """One error of a failed validation, to be raised again beside others: its kind, message
    and context kept, since the config's hints read them."""
    return InitErrorDetails(
        type=PydanticCustomError(error["type"], error["msg"], error.get("ctx")),
        loc=error["loc"],
        input=error["input"],
    )
