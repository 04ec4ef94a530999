"""`python -m vlmscope`: the same command as the `vlmscope` console script."""

import sys

from vlmscope.cli import main

sys.exit(main())
