"""A track plugin that raises anything at import, `SystemExit` and `KeyboardInterrupt` included,
is set aside and named while every other track runs; a plugin named like a built-in track is
not used, and the warning names both."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import run_eval
from vlmscope.tracks import registry

Declare = Callable[[str, str], None]


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Declare]:
    """`plugin(entry_points, module_source)`: one installed distribution whose module
    `stray_plugin` holds `module_source`; the registry reads entry points afresh."""

    def declare(entry_points: str, source: str) -> None:
        folder = tmp_path / "site"
        dist = folder / "stray_plugin-1.0.dist-info"
        dist.mkdir(parents=True)
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: stray-plugin\nVersion: 1.0\n")
        (dist / "entry_points.txt").write_text(f"[vlmscope.tracks]\n{entry_points}\n")
        (folder / "stray_plugin.py").write_text(source)
        monkeypatch.syspath_prepend(str(folder))
        registry._loaded.cache_clear()

    yield declare
    registry._loaded.cache_clear()


@pytest.mark.parametrize(
    ("raised", "named"),
    [
        ("raise SystemExit(3)", "SystemExit: 3"),
        ("raise KeyboardInterrupt", "KeyboardInterrupt"),
        ("raise RuntimeError('no GPU')", "RuntimeError: no GPU"),
    ],
)
def test_a_plugin_that_raises_at_import_is_set_aside_and_runs_go_on(
    plugin: Declare,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    raised: str,
    named: str,
) -> None:
    plugin("stray = stray_plugin:SPEC", f"{raised}\n")
    with caplog.at_level(logging.WARNING):
        names = registry.track_names()
    assert "stray" not in names and {"colours", "megabench"} <= set(names)
    assert f"track plugin 'stray' (stray_plugin:SPEC) does not load: {named}" in caplog.text
    with pytest.raises(registry.BadPlugin, match=named):
        registry.track_spec("stray")

    config = tmp_path / "run.yaml"
    config.write_text(
        f"output_dir: {tmp_path / 'out'}\nmodels: [{{backend: oracle}}]\n"
        "tracks: [{name: colours, options: {n_samples: 2}}]\n"
    )
    assert run_eval.main(["--config", str(config)]) == 0  # the other tracks run


def test_a_plugin_named_like_a_builtin_is_a_warning_naming_both(
    plugin: Declare, caplog: pytest.LogCaptureFixture
) -> None:
    plugin("simplevqa = stray_plugin:SPEC", "SPEC = None\n")
    with caplog.at_level(logging.WARNING):
        spec = registry.track_spec("simplevqa")
    assert spec.title == "SimpleVQA"  # the built-in stands
    assert (
        "track plugin 'simplevqa' (stray_plugin:SPEC) is not used: 'simplevqa' is vlmscope's "
        "built-in track 'SimpleVQA'"
    ) in caplog.text
