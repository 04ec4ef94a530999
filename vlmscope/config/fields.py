"""What every config class shares: unknown keys rejected, values taken as written, frozen; and
the `Name` type that model and track names use."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, ConfigDict

from vlmscope.typed_values import AsWritten


class _Strict(AsWritten):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _named(value: str) -> str:
    if not value.strip():
        raise ValueError(f"a name is needed, got {value!r}")
    return value


Name = Annotated[str, AfterValidator(_named)]
"""A model's or track's name: any text but empty or blank (it names result folders and rows)."""
