"""Generated texts for the differential check of `latex_shortcut` against sympy's `parse_latex`.

Short texts mix valid and invalid LaTeX (operators, brackets, commands, math delimiters, stray
characters, whitespace sympy's lexer does not skip); juxtaposition runs (letters, digits,
`d` differentials, the `\\(x\\) \\[y\\]` and `$1$ and` shapes as the metrics hand them to the
parser) come short, just below the recursion limit and at or above it; digit-only texts come
short and past Python's 4,300-digit integer limit. Deterministic for a seed.
"""

from __future__ import annotations

import random

_PIECES = (
    *"abcdxyzABCDXYZ0123456789",
    *" \t\n",
    *"+-*/^_(){}[]|!'=<>.,:;$&%?@#~`\"",
    "\\frac{1}{2}",
    "\\sqrt{x}",
    "\\(",
    "\\)",
    "\\[",
    "\\]",
    "\\pi",
    "\\alpha",
    "\\cdot",
    "\\times",
    "\\left(",
    "\\right)",
    "\\begin{matrix}",
    "\\end{matrix}",
    "\\overline{x}",
    "\\int",
    "\\sum",
    "\\sin",
    "\\log",
    "dx",
    "d x",
    "é",
    "\u00a0",
    "\x0b",
    "1,000",
    "3.14",
)
# unit -> factors it adds to a run (digit units merge into one number however many repeat)
_RUN_UNITS = {
    "x y ": 2,
    "ab ": 2,
    "the answer is ": 11,
    "1 and ": 4,
    "d x ": 1,
    "a1 ": 2,
    "x 01 ": 2,
}
_RUN_UNITS_ONE_FACTOR = {"1 ": 0, "7": 0, "dd\n": 1, "q\t": 1}


def short_text(rng: random.Random) -> str:
    """A short text of random pieces: mostly invalid, sometimes valid LaTeX."""
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 12)))


def plain_text(rng: random.Random) -> str:
    """A short text of letters, digits and whitespace only (the shortcut's alphabet)."""
    alphabet = "abdxyzdD0123456789   \t\n"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30)))


def run_text(rng: random.Random, factors: int) -> str:
    """About `factors` juxtaposed factors of one repeated shape, with a random tail."""
    units = {**_RUN_UNITS, **_RUN_UNITS_ONE_FACTOR}
    unit = rng.choice(sorted(units))
    tail = rng.choice(("", "", " ", ".", "=2", "+1", "\\)", "$", "x", "5"))
    return unit * max(1, factors // max(1, units[unit])) + tail


def digit_text(rng: random.Random, digits: int) -> str:
    """`digits` digits, sometimes spaced like the joined `$1$` formulas."""
    spacer = rng.choice(("", " ", "\n"))
    return spacer.join(rng.choice("0123456789") for _ in range(digits))


def differential_inputs(seed: int, count: int, *, long_runs: int = 0) -> list[str]:
    """`count` texts: short random ones, plain ones and short runs; plus `long_runs` runs of
    1,000-1,600 factors (seconds each in sympy's parser) and long digit texts."""
    rng = random.Random(seed)
    texts: list[str] = []
    while len(texts) < count:
        kind = rng.random()
        if kind < 0.55:
            texts.append(short_text(rng))
        elif kind < 0.85:
            texts.append(plain_text(rng))
        elif kind < 0.97:
            texts.append(run_text(rng, rng.randint(2, 40)))
        else:
            texts.append(digit_text(rng, rng.randint(1, 200)))
    for index in range(long_runs):
        if index % 4 == 3:
            texts.append(digit_text(rng, rng.choice((500, 4301, 5000))))
        else:
            texts.append(run_text(rng, rng.randint(1000, 1600)))
    return texts
