"""The Space with an Arena tab, served on a free local port, and a page that records every
byte it receives.

`serve_arena` starts `leaderboard_space/app.py` (under the leaderboard tests' network guard)
with `VLMSCOPE_ARENA_CONFIG` pointing at a config over local stub models, and an empty results
folder. `Recorder` keeps the bodies of the page's responses: Playwright's for every response
that finished, and, through an init script, the text of every `fetch` body and EventSource
message as it streams (Chromium keeps no body for a stream, and Gradio streams its results).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.leaderboard.test_browser import serve_space

REPO = Path(__file__).resolve().parents[2]
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


@contextmanager
def serve_arena(config: Path, workdir: Path) -> Iterator[str]:
    with serve_arena_process(config, workdir) as (url, _):
        yield url


@contextmanager
def serve_arena_process(
    config: Path, workdir: Path
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The Space's URL and its process (a test may kill it); the page must have made no outside
    connection when it ends."""
    workdir.mkdir(parents=True, exist_ok=True)
    results = workdir / "results"
    results.mkdir(exist_ok=True)
    settings = {"VLMSCOPE_ARENA_CONFIG": str(config), "VLMSCOPE_RESULTS_DIR": str(results)}
    with serve_space(workdir, settings) as (url, proc, outside):
        yield url, proc
    assert not outside.exists() or not outside.read_text().strip(), outside.read_text()
