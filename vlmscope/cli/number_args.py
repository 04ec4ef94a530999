"""Command-line numbers that must be above zero, refused by the flag that gave them.

A flag's value goes into the run config; checked only there, a bad one would be reported as a
field of the config file (`configs/demo.yaml: limit: ...`), which the user never wrote. Checked
here, argparse names the flag: `argument --limit: expected a whole number above 0, got '0'`.
"""

from __future__ import annotations

import argparse
import math


def whole_above_zero(text: str) -> int:
    """An argparse type: a whole number > 0."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, got {text!r}")
    return value


def amount_above_zero(text: str) -> float:
    """An argparse type: a finite number > 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value
