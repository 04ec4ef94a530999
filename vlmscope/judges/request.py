"""The one way a judge request is built, for every track.

A judge request is the track's system prompt (if any), earlier turns of the same exchange (a
follow-up after an unreadable reply), then one user turn of images and text, decoded with the
track's `JudgeSettings`. Building it in one place keeps the cache key of a judgment the same
whichever track asks, and the limits in the one place the settings name.
"""

from __future__ import annotations

from collections.abc import Sequence

from vlmscope.judges.settings import JudgeSettings
from vlmscope.messages import Part, Request, TextPart, Turn


def judge_request(
    settings: JudgeSettings,
    parts: Sequence[str | Part],
    *,
    system: str | None = None,
    history: Sequence[Turn] = (),
    system_parts: bool = False,
) -> Request:
    """`parts` (strings become text parts) as the last user turn, after `history`;
    `system_parts`: the system text is sent as one text part (`Request.system_parts`)."""
    content = tuple(TextPart(p) if isinstance(p, str) else p for p in parts)
    return Request(
        turns=(*history, Turn("user", content)),
        system=system,
        params=settings.params(),
        system_parts=system_parts,
    )
