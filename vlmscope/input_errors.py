"""How every entry point ends on input it cannot use: one `error:` line, exit status 2.

Every `vlmscope` command, `run_eval.py` and each dataset module's `main` runs through `guarded`.
An error in what the user gave (a bad row, a config field, a file that does not read, a path
that does not exist, a folder where a file belongs, a locked output folder) is printed as one
line naming the file, the row or line and the field, as the error itself says them, and the
process exits with status 2: no traceback, since there is nothing in our code to look at. Any
other exception is a bug of ours and keeps its traceback. `--debug` prints the traceback of an
input error as well (for a report, or to see where the input was read).

What counts as an input error:
- a `ValueError` (each reader's row errors, `ConfigError`, a file that is not UTF-8 or not
  parquet, ...) and an `OSError` (a missing file, a directory where a file belongs, a full
  disk); an `OSError` is named by its file;
- an error marked `InputError` (a locked output folder, a damaged cache, a missing system
  dependency);
- a `datasets` generation error caused by one of these: its cause is the message.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable

from vlmscope.launch_output import print_once

EXIT_BAD_INPUT = 2
DEBUG_FLAG = "--debug"
DEBUG_HELP = "on an input error, print the traceback too (it is one `error:` line without)"


class InputError(Exception):
    """Marks an error class (beside its own base) as a problem with the user's input or
    setting, reported as one line rather than as a bug."""


def input_cause(error: BaseException) -> BaseException | None:
    """The input error `error` stands for (itself, or the cause a wrapper such as `datasets`'
    `DatasetGenerationError` carries), or None when it is a bug of ours."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ValueError | OSError | InputError):
            return current
        if type(current).__name__ != "DatasetGenerationError":
            return None
        current = current.__cause__ or current.__context__
    return None


def describe(error: BaseException) -> str:
    """The error as the text after `error: `: an `OSError` by its file and reason, any other by
    its own message (which names the file, row and field)."""
    if isinstance(error, OSError) and error.filename is not None:
        reason = error.strerror or str(error)
        other = f" -> {error.filename2}" if error.filename2 is not None else ""
        return f"{error.filename}{other}: {reason}"
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text ({error})"
    text = str(error).strip()
    return text or type(error).__name__


def report(error: BaseException, *, prefix: str = "", debug: bool = False) -> int:
    """Print `error: [prefix: ]reason` (and with `debug` the traceback first) on stderr, once
    per job: under a multi-process launch, by the first process that ends on it
    (`vlmscope.launch_output`). Returns 2."""
    lead = f"{prefix}: " if prefix else ""
    text = f"error: {lead}{describe(error)}"
    if debug:
        text = "".join(traceback.format_exception(error)) + text
    print_once(text)
    return EXIT_BAD_INPUT


def guarded(main: Callable[[], int], *, prefix: str = "", debug: bool = False) -> int:
    """`main()`, with an input error reported by `report` (exit status 2); a bug propagates."""
    try:
        return main()
    except BaseException as error:  # noqa: BLE001 - sorted below: input errors end here
        cause = input_cause(error)
        if cause is None:
            raise
        return report(cause, prefix=prefix, debug=debug)


def take_debug_flag(argv: list[str]) -> tuple[list[str], bool]:
    """`argv` without `--debug`, and whether it was there (it may stand anywhere)."""
    kept = [arg for arg in argv if arg != DEBUG_FLAG]
    return kept, len(kept) != len(argv)
