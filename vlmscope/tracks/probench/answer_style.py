"""An answer's style metadata (length and markdown counts), as ProBench records it.

The official answer script stores, per answer, `token_len` (tiktoken's `gpt-3.5-turbo` encoding,
cl100k_base, on the turns' outputs stripped and joined with newlines) and the markdown counts
after code blocks are removed; its scorer measures the baseline on the reference answers joined
with spaces. The encoding is a download that an offline machine does not have, so the default
here counts whitespace-separated words, the same way for both sides (style control compares
the two sides, so one unit for both matters more than which unit); `cl100k_base` is there for a
machine that has tiktoken and its cached encoding. The summary says which was used.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

from vlmscope.judges.markdown import answer_style_counts

TokenCounter = Literal["words", "cl100k_base"]


def model_answer_style(turns: Sequence[str], counter: TokenCounter) -> dict[str, Any]:
    """The judged model's answers: each turn stripped, joined with newlines (the answer script)."""
    return _style("\n".join(turn.strip() for turn in turns), counter)


def baseline_answer_style(turns: Sequence[str], counter: TokenCounter) -> dict[str, Any]:
    """The baseline's answers (the rows' `gpt` turns): joined with spaces (the scorer)."""
    return _style(" ".join(turns), counter)


def _style(text: str, counter: TokenCounter) -> dict[str, Any]:
    """`{token_len, header_count, list_count, bold_count}` of one text."""
    return {"token_len": count_tokens(text, counter), **answer_style_counts(text)}


def count_tokens(text: str, counter: TokenCounter) -> int:
    if counter == "words":
        return len(text.split())
    return len(_cl100k().encode(text, disallowed_special=()))


@lru_cache(maxsize=1)
def _cl100k() -> Any:
    try:
        import tiktoken
    except ImportError as err:
        raise RuntimeError(
            "options.token_counter: cl100k_base needs tiktoken (pip install tiktoken)"
        ) from err
    return tiktoken.get_encoding("cl100k_base")
