"""The Space with an Arena tab, served on a free local port, and a page that records every
byte it receives.

`serve_arena` starts `leaderboard_space/app.py` (under the leaderboard tests' network guard)
with `VLMSCOPE_ARENA_CONFIG` pointing at a config over local stub models, and an empty results
folder. `Recorder` keeps the bodies of the page's responses: Playwright's for every response
that finished, and, through an init script, the text of every `fetch` body and EventSource
message as it streams (Chromium keeps no body for a stream, and Gradio streams its results).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.request import urlopen

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]  # fmt: skip
ARTIFACTS = REPO / "test-artifacts" / "arena"

# Every fetch body (streamed or not) and every EventSource message, as text, in `__received`.
CAPTURE_JS = """
(() => {
  window.__received = [];
  const keep = (url) => { const entry = {url: String(url), text: ''};
                          window.__received.push(entry); return entry; };
  const originalFetch = window.fetch;
  window.fetch = async (...args) => {
    const response = await originalFetch(...args);
    try {
      const entry = keep(response.url);
      const reader = response.clone().body.getReader();
      const decoder = new TextDecoder();
      (async () => { for (;;) { const {done, value} = await reader.read(); if (done) break;
                                entry.text += decoder.decode(value, {stream: true}); } })();
    } catch (e) {}
    return response;
  };
  const OriginalSource = window.EventSource;
  if (OriginalSource) {
    window.EventSource = function (url, options) {
      const source = new OriginalSource(url, options);
      const entry = keep(url);
      source.addEventListener('message', (e) => { entry.text += e.data + '\\n'; });
      return source;
    };
    window.EventSource.prototype = OriginalSource.prototype;
  }
})();
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve_arena(config: Path, workdir: Path) -> Iterator[str]:
    with serve_arena_process(config, workdir) as (url, _):
        yield url


@contextmanager
def serve_arena_process(
    config: Path, workdir: Path
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The Space's URL and its process (a test may kill it)."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    results = workdir / "results"
    results.mkdir(exist_ok=True)
    env = {**os.environ, "VLMSCOPE_ARENA_CONFIG": str(config), "VLMSCOPE_RESULTS_DIR": str(results),
           "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(REPO)}  # fmt: skip
    env.pop("VLMSCOPE_RESULTS_REPO", None)
    log = (workdir / "app.log").open("w")
    guard = REPO / "tests" / "leaderboard" / "netguard.py"
    app = REPO / "leaderboard_space" / "app.py"
    proc = subprocess.Popen(
        [sys.executable, str(guard), str(workdir / "outside.log"), str(app)],
        env=env, stdout=log, stderr=log, cwd=REPO,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while True:
        try:
            with urlopen(url, timeout=2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"the Space did not start: {(workdir / 'app.log').read_text()[-3000:]}")
            time.sleep(0.3)
    try:
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()
        outside = workdir / "outside.log"
        assert not outside.exists() or not outside.read_text().strip(), outside.read_text()
