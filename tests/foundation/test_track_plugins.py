"""Track plugins are found through entry points, and a broken one says which it is."""

from __future__ import annotations

import pytest

from vlmscope.tracks import registry


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    """A folder on sys.path holding one fake distribution; the registry re-reads entry points."""

    def declare(entry_points: str):
        dist = tmp_path / "broken_plugin-1.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 1.0\n")
        (dist / "entry_points.txt").write_text(f"[vlmscope.tracks]\n{entry_points}\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        registry._loaded.cache_clear()

    yield declare
    registry._loaded.cache_clear()


def test_a_plugin_that_does_not_load_is_named(plugin_dir, caplog):
    plugin_dir("ghost = tests.no_such_module:SPEC")
    with pytest.raises(
        registry.BadPlugin,
        match=r"track plugin 'ghost' \(tests.no_such_module:SPEC\) does not load",
    ):
        registry.track_spec("ghost")
    assert registry.track_spec("colours").title == "Colours"  # the other tracks still work
    assert registry.spec_for_results("ghost") is None  # the Space shows it as unknown, no crash
    assert "track plugin 'ghost'" in caplog.text  # named in the log, with why


def test_a_plugin_must_give_a_spec_of_its_own_name(plugin_dir):
    plugin_dir("impostor = tests.colour_track:SPEC")
    with pytest.raises(registry.BadPlugin, match="must be a TrackSpec named 'impostor'"):
        registry.track_spec("impostor")
    assert "impostor" not in registry.track_names()


def test_a_plugin_cannot_replace_a_builtin_track(plugin_dir):
    plugin_dir("megabench = tests.colour_track:SPEC")
    assert registry.track_spec("megabench").title == "MEGA-Bench"
