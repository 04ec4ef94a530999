"""Deleting a directory a sandboxed program has written into."""

import contextlib
import os
import shutil
import sys
from typing import Any


def remove_tree(path: str) -> None:
    """Delete `path` even where the program chmod-ed parts of it to 000; never raises."""

    def retry_writable(function: Any, failed_path: str, _error: object) -> None:
        for target in (os.path.dirname(failed_path), failed_path):
            with contextlib.suppress(OSError):
                os.chmod(target, 0o700)
        with contextlib.suppress(OSError):
            function(failed_path)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=retry_writable)
    else:
        shutil.rmtree(path, onerror=retry_writable)
