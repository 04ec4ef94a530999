import pytest

from vlmscope.config import ConfigError, load_config, parse_config

VALID = {"models": [{"backend": "oracle"}], "tracks": [{"name": "tests.colour_track:ColourTrack"}]}


def test_valid_config_and_defaults():
    config = parse_config(VALID)
    assert config.cache_file.name == "cache.sqlite"
    assert config.models[0].name == "oracle"


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        (
            {"models": [{"backend": "hf", "name": "m", "path": "p", "batch_size": 0}]},
            "models.0.hf.batch_size",
        ),
        ({"models": [{"backend": "nope"}]}, "models.0"),
        ({"tracks": [{"name": "not-a-track"}]}, "tracks.0.name"),
        ({"limit": -1}, "limit"),
        ({"models": [{"backend": "oracle", "colour": "red"}]}, "models.0.oracle.colour"),
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
