"""The lines of a JSON-lines text, split where JSON-lines files end their lines: at ``\\n`` only.

``str.splitlines`` also splits at U+2028, U+2029, U+0085 and a few control characters, which
JSON allows unescaped inside a string (``json.dumps(..., ensure_ascii=False)`` writes them
as they are), so it would cut such a record in two. Reading a file line by line
(``for line in handle``) does not have this problem; reading it whole and splitting does.
"""

from __future__ import annotations

from collections.abc import Iterator


def json_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line) of every line that is not blank."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, line
