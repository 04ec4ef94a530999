"""Python literals in data: the one place vlmscope turns literal text into Python values.

Upstream MEGA-Bench and SimpleVQA store lists and dicts as Python literals (single quotes, not
JSON), and MEGA-Bench's scorer reads model answers the same way. `ast.literal_eval` accepts only
literals, never code, so nothing in a dataset or a model answer is ever executed.
"""

from __future__ import annotations

import ast
from typing import Any


def python_literal(text: Any) -> Any:
    """Read `text` as a Python literal; raises what `ast.literal_eval` raises (ValueError,
    SyntaxError, MemoryError, RecursionError), so callers can mirror the official handling."""
    return ast.literal_eval(text)
