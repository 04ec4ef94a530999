"""Entry point for `python run_eval.py --config X` and `accelerate launch run_eval.py --config X`.

All logic lives in the `vlmscope` package; this file only parses the command line.
"""

from __future__ import annotations

import argparse
import sys

from vlmscope.cli.run import DESCRIPTION, add_arguments, handle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="run_eval.py", description=DESCRIPTION)
    add_arguments(parser)
    return handle(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
