"""Run the Space with a Python audit hook that logs every non-loopback DNS lookup or connect.

    python netguard.py LOGFILE APP_PATH

The browser test starts the app through this, so "starts offline with no outside requests" is
checked on the server too, not only in the page.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

LOCAL = ("127.", "::1", "localhost", "0.0.0.0")


def _is_local(host: Any) -> bool:
    return not isinstance(host, str) or host in ("", "::") or host.startswith(LOCAL)


def main(log: str, app: str) -> None:
    def hook(event: str, args: tuple[Any, ...]) -> None:
        host = None
        if event == "socket.getaddrinfo":
            host = args[0]
        elif event == "socket.connect" and isinstance(args[1], tuple) and args[1]:
            host = args[1][0]
        if host is not None and not _is_local(host):
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(f"{event} {host}\n")

    sys.addaudithook(hook)
    sys.path.insert(0, str(Path(app).resolve().parent))  # as `python app.py` would
    sys.argv = [app]
    runpy.run_path(app, run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
