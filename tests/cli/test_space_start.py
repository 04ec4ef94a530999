"""`vlmscope space` says where it serves and how to stop, and not Gradio's advice to set
`share=True` in `launch()`, code the user does not own."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

import gradio as gr
import pytest

from vlmscope.cli import main


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_space_prints_its_address_and_serves_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    pages: list[int] = []

    def serve_once(app: gr.Blocks) -> None:  # in place of waiting for Ctrl-C
        printed = capfd.readouterr().out
        assert printed.startswith("serving the leaderboard at http://127.0.0.1:")
        url = printed.split(" at ", 1)[1].split()[0]
        with urllib.request.urlopen(url, timeout=30) as page:
            pages.append(page.status)
        app.close()

    monkeypatch.setattr(gr.Blocks, "block_thread", serve_once)
    port = free_port()
    (tmp_path / "results").mkdir()
    assert main(["space", str(tmp_path / "results"), "--port", str(port)]) == 0
    assert pages == [200]
    both = "".join(capfd.readouterr())
    assert "share=True" not in both and "Running on local URL" not in both
