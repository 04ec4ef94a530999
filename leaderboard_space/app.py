"""vlmscope leaderboard Space: the app shipped in the package, run as a Hub Space runs it.

    VLMSCOPE_RESULTS_DIR=results/demo python leaderboard_space/app.py
    VLMSCOPE_RESULTS_REPO=ORG/vlmscope-results python leaderboard_space/app.py

The app lives in `vlmscope.cli.space` (`vlmscope space RESULTS` serves the same thing from an
installed wheel); this file is what a Space repo's `app_file` names.
"""

from __future__ import annotations

from vlmscope.cli.space.app import build_app, main

__all__ = ["build_app", "main"]

if __name__ == "__main__":
    main()
