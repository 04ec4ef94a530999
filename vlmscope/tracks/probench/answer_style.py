"""An answer's style metadata (length and markdown counts), as ProBench's scorer measures it.

The official answer script stores a `conv_metadata` per answer, but the scorer
(`show_result.py`) does not read it: it measures both sides again, and those are the numbers
style control fits. The judged model's turns: `token_len` (tiktoken's `gpt-3.5-turbo` encoding,
cl100k_base) on the turns stripped and joined with spaces, the markdown counts (code blocks
removed first) on the turns as they are, unstripped, joined with spaces. The baseline's
reference answers: both on the turns joined with spaces. Spaces, not newlines, so a header
opening a later turn is not at a line start and does not count. The encoding is a download
that an offline machine does not have, so the default here counts whitespace-separated words,
the same way for both sides (style control compares the two sides, so one unit for both
matters more than which unit); `cl100k_base` is there for a machine that has tiktoken and its
cached encoding. The summary says which was used.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Literal

from vlmscope.judges.markdown import answer_style_counts

TokenCounter = Literal["words", "cl100k_base"]


def model_answer_style(turns: Sequence[str], counter: TokenCounter) -> dict[str, Any]:
    """The judged model's answers: tokens of the turns stripped, markdown of the turns as they
    are (a trailing `# ` or `- ` is a header or list item only unstripped), joined with spaces."""
    return _style(" ".join(turn.strip() for turn in turns), " ".join(turns), counter)


def baseline_answer_style(turns: Sequence[str], counter: TokenCounter) -> dict[str, Any]:
    """The baseline's answers (the rows' `gpt` turns): joined with spaces, unstripped."""
    text = " ".join(turns)
    return _style(text, text, counter)


def _style(tokens_of: str, markdown_of: str, counter: TokenCounter) -> dict[str, Any]:
    """`{token_len, header_count, list_count, bold_count}`, in the scorer's key order."""
    return {"token_len": count_tokens(tokens_of, counter), **answer_style_counts(markdown_of)}


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
