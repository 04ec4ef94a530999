"""How a subcommand reports input it cannot use: one `error:` line on stderr, exit status 2
(`vlmscope.input_errors`, the same for every entry point)."""

from __future__ import annotations

from vlmscope.input_errors import report


def fail(command: str, error: BaseException) -> int:
    """Print `error: command: reason` and return 2. A bad row's message already names the file,
    line and field; an unreadable file is named by its path."""
    return report(error, prefix=command)
