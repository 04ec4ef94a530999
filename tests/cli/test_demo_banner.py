"""`vlmscope demo`'s first line says which tracks it runs: all of them, or those `--tracks` named."""

from __future__ import annotations

import argparse

import pytest

from vlmscope.cli import demo, main


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ([], "the shipped demo.yaml, every track, results in results/demo/"),
        (["--tracks", "simplevqa"], "the shipped demo.yaml, tracks simplevqa, results in"),
        (["--output-dir", "elsewhere"], "every track, results in elsewhere/"),
    ],
)
def test_the_demo_names_what_it_runs(
    extra: list[str],
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ran: list[argparse.Namespace] = []

    def no_run(args: argparse.Namespace) -> int:
        ran.append(args)
        return 0

    monkeypatch.setattr(demo, "handle", no_run)
    assert main(["demo", *extra]) == 0
    assert said in capsys.readouterr().err
    assert ran and ran[0].config.name == "demo.yaml"
