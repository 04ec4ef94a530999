"""Each (model, track) has its own result folder, and no run writes over another model's."""

from __future__ import annotations

import pytest

from vlmscope.config import ConfigError, parse_config
from vlmscope.hub_export import load_folder
from vlmscope.runner.loop import run
from vlmscope.runner.results import result_dir

TRACK = {"name": "colours", "options": {"n_samples": 4}}


def _config(out, model: str):
    return parse_config(
        {
            "output_dir": str(out),
            "models": [{"backend": "oracle", "name": model}],
            "tracks": [TRACK],
        }
    )


def test_a_later_run_never_writes_over_another_models_results(tmp_path):
    run(_config(tmp_path, "org/m"))
    folder = result_dir(tmp_path, "org/m", "colours")
    before = load_folder(folder, "details").to_list()

    with pytest.raises(ConfigError) as err:
        run(_config(tmp_path, "org_m"))  # maps to the same folder name, "org_m"
    assert f"{folder} holds the results of model 'org/m'" in str(err.value)
    assert "'org_m'" in str(err.value)
    assert load_folder(folder, "details").to_list() == before
    assert load_folder(folder, "summary")[0]["model"] == "org/m"


def test_the_same_model_may_run_again_into_its_own_folder(tmp_path):
    run(_config(tmp_path, "org/m"))
    report = run(_config(tmp_path, "org/m"))
    assert report.tracks[0].cached == 4 and report.tracks[0].generated == 0


def test_summaries_carry_their_format_version(tmp_path):
    run(_config(tmp_path, "m"))
    summary = load_folder(result_dir(tmp_path, "m", "colours"), "summary")[0]
    assert summary["format_version"] == 3
