"""`python -m vlmscope` is the `vlmscope` command."""

import subprocess
import sys


def test_python_dash_m_vlmscope_is_the_command():
    done = subprocess.run(
        [sys.executable, "-m", "vlmscope", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "usage: vlmscope" in done.stdout
    for command in ("run", "ratings", "megabench", "cache"):
        assert f"    {command}" in done.stdout
