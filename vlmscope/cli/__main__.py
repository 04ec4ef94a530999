"""`python -m vlmscope.cli`: the same as the `vlmscope` console script."""

import sys

from vlmscope.cli import main

sys.exit(main())
