"""The operator's moderation hook: a function named `module:function` in the arena config.

It is called with each prompt before any model sees it, as `hook(text, images)` (`images` the
encoded bytes of the message's images), and returns None to let it through or the reason to
refuse it, which the user is shown. The arena ships no classifier; an operator plugs in theirs
(a keyword list, a moderation API client). The hook runs in a worker thread, so it may block.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

Moderation = Callable[[str, Sequence[bytes]], "str | None"]


def allow_all(text: str, images: Sequence[bytes]) -> str | None:
    """The hook when none is configured."""
    return None


def load_hook(spec: str | None) -> Moderation:
    """The function `spec` names; ValueError naming it if it cannot be imported or called."""
    if spec is None:
        return allow_all
    module_name, _, function_name = spec.partition(":")
    try:
        hook = getattr(importlib.import_module(module_name), function_name)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"moderation: cannot load {spec!r}: {err}") from err
    if not callable(hook):
        raise ValueError(f"moderation: {spec!r} is not a function")
    return hook
