"""LaTeX expression metrics of MEGA-Bench (official semantics, quirks included).

Both sides are normalised (`\\bar` -> `\\overline`, macron letters, Greek letters, math delimiters
except `$`), parsed with sympy's `parse_latex` and compared with sympy's `equals`; a parse failure
falls back to `simple_str_match` of the normalised strings. Parsed expressions and comparison
results are cached per string (sympy objects are immutable), which is what makes large runs fast;
a cached parse failure is re-raised as a fresh exception of the same type. Texts whose outcome is
certain without the parser (long runs of juxtaposed letters and digits, see `latex_shortcut`) skip
its quadratic time. The official 15 s alarm cannot be reproduced and is not emulated.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from vlmscope.metrics.megabench.caches import cached
from vlmscope.metrics.megabench.latex_shortcut import known_parse
from vlmscope.metrics.megabench.string_match import simple_str_match

_GREEK_NAMES = (  # noqa: SIM905 - a word list reads better than 48 quoted strings
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "sigma tau upsilon phi chi psi omega Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota "
    "Kappa Lambda Mu Nu Xi Omicron Pi Rho Sigma Tau Upsilon Phi Chi Psi Omega"
).split()
_GREEK = dict(zip("αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ", _GREEK_NAMES, strict=True))
_MACRON = "\u0304"
_OVERLINE_SUBSCRIPT = re.compile(r"\\overline\{([^}]*)\}_([^{}\\ ]*)")
_ENVIRONMENT = re.compile(r"\\(begin|end)\{.*?\}(?:\[[^\[\]]*\])?")
_LATEX_INLINE_FORMULA = re.compile(r"(\$[^$]*\$)")


def _macrons_to_overline(text: str) -> str:
    result: list[str] = []
    for char in text:
        if char.isalpha():
            decomposed = unicodedata.normalize("NFD", char)
            if len(decomposed) > 1 and decomposed[1] == _MACRON:
                result.append(f"\\overline{{{decomposed[0]}}}")
            else:
                result.append(char)
        elif char != _MACRON:
            result.append(char)
        else:
            result[-1] = f"\\overline{{{result[-1]}}}"
    return "".join(result)


def normalize_latex(text: str) -> str:
    """The official normalisation (see module docstring); `$` delimiters are *not* removed."""
    text = text.replace("\\bar", "\\overline")
    text = _macrons_to_overline(text)
    text = _OVERLINE_SUBSCRIPT.sub(r"\\overline{\1_\2}", text)
    text = re.sub(r"[α-ωΑ-Ω]", lambda match: "\\" + _GREEK[match.group()] + " ", text)
    text = _ENVIRONMENT.sub("", text)
    return re.sub(r"\\\[|\\\]", "", re.sub(r"\\\(|\\\)", "", text))


@cached
def _parse_or_error(text: str) -> tuple[Any, BaseException | None]:
    from sympy.parsing.latex import parse_latex

    known = known_parse(text)
    if known is not None:
        return known
    try:
        return parse_latex(text), None
    except Exception as error:
        return None, error.with_traceback(None)


def _fresh(error: BaseException) -> BaseException:
    try:
        return type(error)(*error.args)
    except Exception:
        return error


def parse_latex_cached(text: str) -> Any:
    """sympy's `parse_latex(text)`, memoised; raises what it raised."""
    expression, error = _parse_or_error(text)
    if error is not None:
        raise _fresh(error)
    return expression


def _recoverable_errors() -> tuple[type[BaseException], ...]:
    from sympy.core.sympify import SympifyError
    from sympy.parsing.latex.errors import LaTeXParsingError

    return (LaTeXParsingError, SympifyError, TypeError, NotImplementedError)


@cached
def _latex_equal(response: str, target: str) -> int | None:
    """1/0 from sympy, or None where the official code falls back to string matching."""
    try:
        return 1 if parse_latex_cached(response).equals(parse_latex_cached(target)) else 0
    except _recoverable_errors():
        return None


def latex_expr_equality(response: Any, target: Any) -> int:
    """1 iff sympy finds the two normalised LaTeX expressions equal."""
    if not isinstance(response, str) or not isinstance(target, str):
        return 0
    response, target = normalize_latex(response), normalize_latex(target)
    verdict = _latex_equal(response, target)
    return simple_str_match(response, target) if verdict is None else verdict


def _split_text_and_formulas(text: str) -> tuple[list[str], list[str]]:
    plain: list[str] = []
    formulas: list[str] = []
    for part in _LATEX_INLINE_FORMULA.split(text):
        if part.startswith("$") and part.endswith("$"):
            formulas.append(part)
        else:
            plain.append(part.strip())
    return plain, formulas


def _join_formulas(formulas: list[str]) -> str:
    return " ".join(formula[1:-1].strip().replace(",", "") for formula in formulas)


def text_with_latex_expr_equality(response: Any, target: Any) -> int:
    """Text outside `$...$` must match (commas dropped) and the formulas, joined by spaces, must be
    equal as one LaTeX expression (QUIRK: the join multiplies them)."""
    if not isinstance(response, str) or not isinstance(target, str):
        return 0
    response_text, response_formulas = _split_text_and_formulas(response)
    target_text, target_formulas = _split_text_and_formulas(target)
    text_match = simple_str_match(
        "".join(response_text).replace(",", ""), "".join(target_text).replace(",", "")
    )
    formula_match = latex_expr_equality(
        _join_formulas(response_formulas), _join_formulas(target_formulas)
    )
    return 1 if text_match and formula_match else 0
