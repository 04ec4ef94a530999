"""How a subcommand reports input it cannot use: one line on stderr, exit status 2."""

from __future__ import annotations

import sys


def fail(command: str, error: Exception) -> int:
    """Print `command: reason` and return 2. A bad row's message already names the file, line
    and field; an unreadable file is named by its path."""
    if isinstance(error, OSError) and error.filename is not None:
        reason = f"{error.filename}: {error.strerror or error}"
    else:
        reason = str(error)
    print(f"{command}: {reason}", file=sys.stderr)
    return 2
