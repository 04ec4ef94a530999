"""`--help` of the benchmark scripts states every option's default, so a reader sees what a bare
run measures (and how to make it smaller) without reading the script."""

from __future__ import annotations

import argparse


def show_defaults(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Append `(default: ...)` to every option whose help does not already give it; a list is
    written as it is typed (`1 2 4`). Options without a default (None, False) are left alone."""
    for action in parser._actions:
        default = action.default
        if not action.option_strings or default is None or default is False:
            continue
        if default is argparse.SUPPRESS or "default" in (action.help or "").lower():
            continue
        shown = " ".join(map(str, default)) if isinstance(default, list) else str(default)
        shown = shown.replace("%", "%%")
        action.help = f"{action.help} (default: {shown})" if action.help else f"default: {shown}"
    return parser
