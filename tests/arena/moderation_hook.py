"""A moderation hook as an operator would write one (named in a test's arena config)."""

from __future__ import annotations

from collections.abc import Sequence


def refuse_forbidden(text: str, images: Sequence[bytes]) -> str | None:
    return "it contains a forbidden word" if "forbidden" in text.lower() else None
