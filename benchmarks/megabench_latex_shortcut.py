"""sympy's `parse_latex` with and without `latex_shortcut`: identical outcomes, and the speed ratio.

Three parts, each measured in this run:
1. Differential: `--count` generated texts (short valid and invalid LaTeX, juxtaposition runs short,
   near and past the recursion limit, digit-only texts past Python's integer-string limit) through
   our uncached parse (`_parse_or_error`, shortcut first) and through `parse_latex` directly; the
   outcomes (the object, compared by type and structure, or the exception type) must be equal.
   A second, smaller pass lowers the recursion limit so that runs past it are cheap to parse.
2. Slow shapes at `--length` characters, as the metrics hand them to the parser (`\\(x\\) \\[y\\]`
   normalised to `x y`, `$1$ and` joined to digits or stripped to `1 and`, words without
   punctuation): time of ours against the direct parse.
3. A realistic reasoning answer (prose with LaTeX, `--length` characters, no answer marker, so
   the whole answer reaches the parser) per metric: the shortcut does not apply (punctuation
   ends the parse within the first sentence), so the ratio stays near 1.

Measured on a shared 2-core machine, load average 5-9: 5,024 generated texts, shortcut taken on
303, 0 differing outcomes (and 10 of 12 taken at recursion limit 250: the two runs with a
leading-zero number, `x 01`, raise SympifyError in sympy and go to it); at 5,000 characters the shapes
took 10-17 s each directly and under 7 ms with the shortcut (1,500-17,000x); the prose answer
scored the same with and without in 0.01-0.25 s.

    python benchmarks/megabench_latex_shortcut.py [--count 5000] [--long-runs 24] [--length 5000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.megabench.latex_inputs import differential_inputs  # noqa: E402
from vlmscope.metrics.megabench import latex, numeric  # noqa: E402
from vlmscope.metrics.megabench.caches import clear_caches  # noqa: E402
from vlmscope.metrics.megabench.latex_shortcut import known_parse  # noqa: E402

_PROSE = (
    "Let me work through this step by step. First, note that the area is given by "
    "\\(A = \\pi r^2\\), so with \\(r = 3\\) we get\n\\[\nA = 9\\pi \\approx 28.27.\n\\]\n"
    "Next, the ratio $\\frac{a}{b} = \\frac{3}{4}$ is less than one since $3 < 4$. "
    "$$x^2 + 3x - 10 = 0 \\implies (x+5)(x-2) = 0,$$ so $x = 2$ (we discard $x = -5$).\n\n"
)


def _outcome(parse: Callable[[str], Any], text: str) -> tuple[str, Any]:
    try:
        return "value", parse(text)
    except Exception as error:
        return "error", type(error)


def _same(ours: tuple[str, Any], theirs: tuple[str, Any]) -> bool:
    if ours[0] != theirs[0]:
        return False
    if ours[0] == "error":
        return bool(ours[1] is theirs[1])
    return type(ours[1]) is type(theirs[1]) and bool(ours[1] == theirs[1])


def _ours(text: str) -> Any:
    expression, error = latex._parse_or_error.__wrapped__(text)  # type: ignore[attr-defined]
    if error is not None:
        raise error
    return expression


def _direct(text: str) -> Any:
    from sympy.parsing.latex import parse_latex

    return parse_latex(text)


def _timed(parse: Callable[[str], Any], text: str) -> tuple[tuple[str, Any], float]:
    start = time.perf_counter()
    outcome = _outcome(parse, text)
    return outcome, time.perf_counter() - start


def differential(texts: list[str], label: str) -> int:
    """Compare every text's outcomes; print counts and times; return the mismatches."""
    mismatches = shortcut = 0
    ours_s = direct_s = 0.0
    for index, text in enumerate(texts):
        if known_parse(text) is not None:
            shortcut += 1
        ours, ours_t = _timed(_ours, text)
        theirs, direct_t = _timed(_direct, text)
        ours_s += ours_t
        direct_s += direct_t
        if not _same(ours, theirs):
            mismatches += 1
            print(f"  MISMATCH {text[:60]!r} ({len(text)} chars): {ours} vs {theirs}")
        if index % 500 == 499:
            print(f"  {label}: {index + 1}/{len(texts)}", file=sys.stderr, flush=True)
    print(
        f"{label}: {len(texts)} texts, shortcut taken on {shortcut}, {mismatches} mismatches; "
        f"direct {direct_s:.1f} s, ours {ours_s:.1f} s, {direct_s / max(ours_s, 1e-9):.1f}x"
    )
    return mismatches


def low_limit_texts() -> list[str]:
    """Runs of 300-400 factors: past a recursion limit of 250, cheap enough to parse often."""
    units = ("x y ", "a1 ", "1 and ", "d x ", "ab ", "x 01 ")
    return [
        unit * (count // 2 if unit != "d x " else count) for unit in units for count in (300, 401)
    ]


def shapes(length: int) -> None:
    """The slow shapes at `length` characters, as the metrics hand them to the parser."""
    raw = {
        "\\(x\\) \\[y\\] (normalised)": latex.normalize_latex("\\(x\\) \\[y\\] " * length),
        "$1$ and (joined formulas)": " ".join(["1"] * length),
        "$1$ and (numeric, $ removed)": "1 and " * length,
        "words without punctuation": "the answer is " * length,
    }
    for name, text in raw.items():
        text = text[:length]
        theirs, direct_t = _timed(_direct, text)
        ours, ours_t = _timed(_ours, text)
        verdict = "same" if _same(ours, theirs) else "DIFFERENT"
        print(
            f"{name:32s} {len(text)} chars: direct {direct_t:6.2f} s, ours {ours_t:7.4f} s, "
            f"{direct_t / max(ours_t, 1e-9):8.0f}x, {verdict} ({theirs[0]})"
        )


def realistic(length: int) -> None:
    """A long prose answer with no marker, per metric: our metric with and without shortcut."""
    answer = (_PROSE * (length // len(_PROSE) + 1))[:length] + "\n\nSo the result is $\\boxed{2}$."
    metrics: dict[str, tuple[Callable[[Any, Any], Any], str]] = {
        "latex_expr_equality": (latex.latex_expr_equality, "\\frac{3}{4}"),
        "text_with_latex_expr_equality": (latex.text_with_latex_expr_equality, "$x = 2$"),
        "general_single_numerical_match": (numeric.general_single_numerical_match, "2"),
    }
    for name, (metric, target) in metrics.items():
        clear_caches()
        metric(answer, target)  # the parser's prediction caches warm up for both timings alike
        clear_caches()
        start = time.perf_counter()
        score = metric(answer, target)
        ours_t = time.perf_counter() - start
        clear_caches()
        original = latex.known_parse
        latex.known_parse = lambda text: None  # type: ignore[assignment]
        try:
            start = time.perf_counter()
            direct_score = metric(answer, target)
            direct_t = time.perf_counter() - start
        finally:
            latex.known_parse = original  # type: ignore[assignment]
        print(
            f"{name:31s} {len(answer)}-char answer: without {direct_t:5.2f} s, with {ours_t:5.2f} s, "
            f"{direct_t / max(ours_t, 1e-9):4.1f}x, scores {direct_score} / {score}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=5000, help="generated texts (default 5000)")
    parser.add_argument(
        "--long-runs", type=int, default=24, help="runs past the recursion limit (seconds each)"
    )
    parser.add_argument("--length", type=int, default=5000, help="characters of the long shapes")
    parser.add_argument("--seed", type=int, default=40)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; recursion limit {sys.getrecursionlimit()}")
    _direct("1")
    mismatches = differential(
        differential_inputs(args.seed, args.count, long_runs=args.long_runs), "generated"
    )
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(250)
    try:
        mismatches += differential(low_limit_texts(), "recursion limit 250")
    finally:
        sys.setrecursionlimit(limit)
    shapes(args.length)
    realistic(args.length)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
