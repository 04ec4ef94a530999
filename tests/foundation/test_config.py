import pytest

from vlmscope.config import ConfigError, load_config, parse_config

VALID = {"models": [{"backend": "oracle"}], "tracks": [{"name": "colours"}]}


def test_valid_config_and_defaults():
    config = parse_config(VALID)
    assert config.cache_file.name == "cache.sqlite"
    assert config.models[0].name == "oracle"


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        (
            {"models": [{"backend": "hf", "name": "m", "path": "p", "batch_size": 0}]},
            "models.0.batch_size (hf model)",
        ),
        ({"models": [{"backend": "nope"}]}, "models.0"),
        ({"limit": -1}, "limit"),
        ({"models": [{"backend": "oracle", "colour": "red"}]}, "models.0.colour (oracle model)"),
    ],
)
def test_bad_value_is_rejected_naming_the_field(patch, field):
    with pytest.raises(ConfigError) as err:
        parse_config({**VALID, **patch})
    assert field in str(err.value)


def test_config_hash_ignores_output_location(tmp_path):
    a = parse_config({**VALID, "output_dir": "x"})
    b = parse_config({**VALID, "output_dir": "y"})
    c = parse_config({**VALID, "limit": 3})
    assert a.config_hash() == b.config_hash() != c.config_hash()


def test_yaml_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("models: [oops\n")
    with pytest.raises(ConfigError, match="bad.yaml"):
        load_config(path)


@pytest.mark.parametrize(
    ("models", "message"),
    [
        (
            [{"backend": "oracle", "name": "org/m"}, {"backend": "oracle", "name": "org_m"}],
            "models.1.name: 'org_m' would share the result folder 'org_m' with models.0.name 'org/m'",
        ),
        (
            [{"backend": "oracle", "name": "m"}, {"backend": "oracle", "name": "m"}],
            "models.1.name: 'm' would share the result folder 'm' with models.0.name 'm'",
        ),
    ],
)
def test_two_models_sharing_a_result_folder_are_rejected_naming_both(models, message):
    with pytest.raises(ConfigError) as err:
        parse_config({**VALID, "models": models})
    assert message in str(err.value)


def test_a_track_listed_twice_is_rejected():
    track = VALID["tracks"][0]
    with pytest.raises(ConfigError, match=r"tracks\.1\.name: .* with tracks\.0\.name"):
        parse_config({**VALID, "tracks": [track, track]})


def test_an_unknown_track_is_rejected_when_the_run_is_planned():
    from vlmscope.runner.plan import plan_tracks

    config = parse_config({**VALID, "tracks": [{"name": "megabnech"}]})
    with pytest.raises(ConfigError, match=r"run\.yaml: tracks\.0\.name: unknown track 'megabnech'"):
        plan_tracks(config, source="run.yaml")


def test_a_module_path_as_track_name_is_not_imported():
    """Tracks come only from the registry (built in, or plugins' entry points): a config cannot
    make vlmscope import a module by spelling its path."""
    import sys

    from vlmscope.runner.plan import plan_tracks

    assert "tests.never_imported" not in sys.modules
    config = parse_config({**VALID, "tracks": [{"name": "tests.never_imported:Track"}]})
    with pytest.raises(
        ConfigError, match=r"tracks\.0\.name: unknown track 'tests.never_imported:Track'"
    ):
        plan_tracks(config)
    assert "tests.never_imported" not in sys.modules


def test_plugin_tracks_come_from_entry_points():
    from vlmscope.tracks.registry import track_names, track_spec

    assert {"megabench", "simplevqa", "colours", "colours_pairwise"} <= set(track_names())
    assert track_spec("colours").load().__name__ == "ColourTrack"
