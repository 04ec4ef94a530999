"""A track's `options:` rejected by its typed options class, said as a config error says it.

A track validates its options in its constructor, where pydantic's own report is several lines
("1 validation error for MegaBenchOptions", the input, a URL) that name neither the config path
of the bad key nor what it should have been. `options_problem` gives the same one line a run
config's own fields get (`vlmscope.config.hints`): `tracks.0.options.cott: unknown key; did you
mean 'cot'?`.
"""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

from vlmscope.config.error_paths import problems_text
from vlmscope.tracks.base import TrackOptions


def options_problem(error: ValidationError, source: str, field: str) -> str | None:
    """Every problem of `error` as `field.options.KEY: message`, joined by "; " after
    `source: ` (once, as a run config's own errors are), or None when the error is not about a
    track's options class."""
    options = _options_class(error.title)
    if options is None:
        return None
    return f"{source}: {problems_text(error, options, f'{field}.options')}"


def _options_class(title: str) -> type[BaseModel] | None:
    """The loaded `TrackOptions` class named `title` (a track's, a plugin's), if any."""
    pending: list[type[TrackOptions]] = [TrackOptions]
    while pending:
        cls = pending.pop()
        if cls.__name__ == title:
            return cls
        pending.extend(cls.__subclasses__())
    return None
