"""Entry point for `python run_eval.py --config X` and `accelerate launch run_eval.py --config X`.

All logic lives in the `vlmscope` package; this file only parses the command line. Input it
cannot use ends as one `error:` line and exit status 2 (`--debug` adds the traceback), printed
once under `accelerate launch`.
"""

from __future__ import annotations

import argparse
import sys

from vlmscope.cli.run import DESCRIPTION, add_arguments, handle
from vlmscope.input_errors import DEBUG_FLAG, DEBUG_HELP, guarded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="run_eval.py", description=DESCRIPTION)
    add_arguments(parser)
    parser.add_argument(DEBUG_FLAG, action="store_true", help=DEBUG_HELP)
    args = parser.parse_args(argv)
    return guarded(lambda: handle(args), debug=args.debug)


if __name__ == "__main__":
    sys.exit(main())
