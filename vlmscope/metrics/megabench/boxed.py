"""The official `\\boxed{...}` search of MEGA-Bench, in linear time, with the cost the official pays.

The official `boxed_single_numerical_match` takes the first match of
`\\boxed\\{((?:[^{}]+|\\{[^{}]*\\})*)\\}`. Where a `\\boxed{` is never closed (an answer cut off by
the token limit), that pattern backtracks through every way of splitting each brace-free run into
pieces, 2 ** (run length - 1) of them, and walks every part after a run again for each: a cut-off
`\\boxed{` followed by 40 letters takes hours, and so does one followed by 22 letters and a few
thousand `{}`. Only the greedy, longest reading can ever be followed by `}`, so a scan that takes
it finds the same match (or none) at once.

The official code runs this search under a 10 s alarm and, when the alarm fires, scores
`simple_str_match` of the raw response and target instead. The scan therefore also returns how many
tries the failed `\\boxed{` openings cost the official search. A try costs CPython's regex engine
100 to 300 ns (measured on run, group and mixed shapes), so the alarm fires near 2 ** 26 tries:
`OFFICIAL_ALARM_TRIES` sits there, at about 150 ns a try. The alarm is wall-clock time, so upstream
a search within a factor of about two of it ends on either side depending on the machine; that
band cannot be reproduced, and its middle is the best single guess.
"""

from __future__ import annotations

import re
from typing import Any

OFFICIAL_PATTERN = re.compile(r"\\boxed\{((?:[^\{\}]+|\{[^\{\}]*\})*)\}")
OFFICIAL_ALARM_TRIES = 2**26
_OPENING = "\\boxed{"
_RUN = re.compile(r"[^{}]+")
_GROUP = re.compile(r"\{[^{}]*\}")


def _scan(text: str, start: int) -> tuple[int | None, int]:
    """End of the boxed contents opened at `start` (None when never closed) and, for an opening
    never closed, the tries the official backtracking spends on it.

    Every way of splitting the brace-free runs read so far reaches the next part again: a run of
    length L is split 2 ** (L - 1) ways, once per way of reaching it, and a `{...}` group is
    walked once per way of reaching it. So a short run followed by thousands of groups costs as
    much as a long run alone."""
    position = start + len(_OPENING)
    exponent = 0  # log2 of the ways of reaching `position`
    tries = 0
    while True:
        run = _RUN.match(text, position)
        if run is not None:
            tries += 2 ** (exponent + run.end() - run.start() - 1)
            exponent += run.end() - run.start() - 1
            position = run.end()
        group = _GROUP.match(text, position)
        if group is not None:
            tries += 2**exponent
            position = group.end()
            continue
        if text.startswith("}", position):
            return position, tries
        return None, tries


def boxed_search(text: str) -> tuple[str | None, int]:
    """The official pattern's first group in `text` (None when it does not match) and the number of
    tries the official regex spends on the openings that fail before it."""
    tries = 0
    start = text.find(_OPENING)
    while start != -1:
        end, spent = _scan(text, start)
        if end is not None:
            return text[start + len(_OPENING) : end], tries
        tries += spent
        start = text.find(_OPENING, start + 1)
    return None, tries


def boxed_content(text: Any) -> tuple[Any, int]:
    """The official `parse_boxed_content` (the contents, else the text itself) and its tries; a
    non-string raises the official `TypeError`."""
    if not isinstance(text, str):
        OFFICIAL_PATTERN.search(text)
    content, tries = boxed_search(text)
    return (text if content is None else content), tries
