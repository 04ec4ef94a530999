"""Texts whose sympy `parse_latex` outcome is certain without running its ANTLR parser.

sympy's ANTLR grammar reads juxtaposed factors (`a b c`, `x y`, `1 and 1`) as one product, and
its full-context prediction looks ahead to the end of the run at every factor: the parse is
quadratic in the run's length (a 20,000-character answer of such text takes 10-70 s), so a long
reasoning answer with no answer marker can spend a minute here. Two shapes of such text have an
outcome known in linear time, the same object or the same exception type as the parser's:

- Only digits and whitespace: the grammar's `number` rule takes every digit (whitespace is
  skipped), and sympy converts it with `sympy.Number` of the digits: the same call is made here,
  so whatever it returns or raises is the parser's outcome.
- Only ASCII letters, digits and whitespace, at least as many factors as the recursion limit, no
  digit run longer than Python's smallest integer-string limit or with a leading zero (`x 01`
  raises `SympifyError` at that factor, before the recursion is deep): every factor is one `postfix` of
  one `unary` (no operator, bracket, `_`, `^` or quote exists to build anything else), and sympy
  converts that list by recursing once per factor (`convert_postfix_list`), with nothing that can
  raise on these factors before it: it certainly ends in `RecursionError` (which the LaTeX metric
  lets through, as the official one does, and the numeric one swallows). Below the limit the
  outcome depends on how deep the caller already is, so the real parser runs.

Factors are counted as sympy's lexer makes tokens: a digit run (across whitespace) is one
number, `d` followed by whitespace and a letter is one `DIFFERENTIAL`, any other letter one
`LETTER`. Anything else, including any other character, runs the real parser.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Any

_LETTERS_DIGITS_SPACE = re.compile(r"[A-Za-z0-9 \t\r\n]*")
_DIGITS_SPACE = re.compile(r"[0-9 \t\r\n]*")
_FACTOR = re.compile(r"d[ \t\r\n]*[A-Za-z]|[A-Za-z]|[0-9](?:[ \t\r\n]*[0-9])*")
_SPACE = re.compile(r"[ \t\r\n]+")
_SAFE_DIGITS = 640  # the smallest limit `sys.set_int_max_str_digits` accepts


@functools.cache
def _antlr_parser_available() -> bool:
    """The check sympy's parser makes before parsing (it raises ImportError otherwise)."""
    from importlib.metadata import PackageNotFoundError, version

    from sympy.parsing.latex import _parse_latex_antlr

    try:
        runtime = version("antlr4-python3-runtime")
    except PackageNotFoundError:
        return False
    return _parse_latex_antlr.MathErrorListener is not None and runtime.startswith("4.11")


def _number_converts(digits: str) -> bool:
    """Whether `sympy.Number(digits)` certainly returns: no leading zero before another digit
    (`01` is no Python literal, so sympy raises at that factor, before the recursion is deep) and
    no more digits than any integer-string limit allows."""
    return len(digits) <= _SAFE_DIGITS and (digits[0] != "0" or len(digits) == 1)


def _certainly_too_deep(text: str) -> bool:
    limit = sys.getrecursionlimit()
    if len(text) < limit:  # each factor takes at least one character
        return False
    factors = 0
    for match in _FACTOR.finditer(text):
        if match.group()[0].isdigit() and not _number_converts(_SPACE.sub("", match.group())):
            return False
        factors += 1
    return factors >= limit


def known_parse(text: str) -> tuple[Any, BaseException | None] | None:
    """(expression, None) or (None, error) exactly as `parse_latex(text)` would end, or None
    where only running the parser can tell (see module docstring)."""
    stripped = text.strip()
    if not stripped or not _LETTERS_DIGITS_SPACE.fullmatch(stripped):
        return None
    if not _antlr_parser_available():
        return None
    if _DIGITS_SPACE.fullmatch(stripped):
        import sympy

        try:
            return sympy.Number(_SPACE.sub("", stripped)), None
        except Exception as error:
            return None, error.with_traceback(None)
    if _certainly_too_deep(stripped):
        return None, RecursionError("maximum recursion depth exceeded")
    return None
