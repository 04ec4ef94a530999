"""A config error names the place as the YAML spells it, wherever a model entry sits (a run's
models, a track's judge, a panel's judges, an arena's contestants), never with pydantic's tag
for the union member it tried (`models.0.openai.temperatur`), and a config with several bad
fields names each of them on its one line, a track's options and numbers written as text
included."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import run_eval
from vlmscope.arena.config import load_arena_config
from vlmscope.config import ConfigError, parse_config

OPENAI = {"backend": "openai", "name": "api", "base_url": "http://localhost:1", "model": "m"}
TRACK = {"name": "megabench"}


def _said(raw: dict[str, object]) -> str:
    with pytest.raises(ConfigError) as err:
        parse_config(raw, source="run.yaml")
    return str(err.value)


def test_a_model_entry_is_named_by_its_yaml_path_with_its_backend_after() -> None:
    said = _said({"models": [{**OPENAI, "temperatur": 0}], "tracks": [TRACK]})
    assert said == (
        "run.yaml: models.0.temperatur (openai model): unknown key; "
        "did you mean 'generation.temperature'?"
    )


def test_judges_one_or_a_panel_are_named_by_their_yaml_path() -> None:
    panel = [
        {"backend": "hf", "name": "a", "path": "p", "dtyp": "x"},
        {"backend": "coin", "nme": 1},
    ]
    said = _said(
        {
            "models": [{"backend": "oracle"}],
            "tracks": [
                {**TRACK, "judge": {**OPENAI, "image_budget": {"max_imags": 2}}},
                {**TRACK, "judge": panel},
                {**TRACK, "judge": {"judges": panel[:1], "aggregat": "mean"}},
            ],
        }
    )
    assert said.split("; did you mean ")[0] == (
        "run.yaml: tracks.0.judge.image_budget.max_imags (openai model): unknown key"
    )
    for place in (
        "tracks.1.judge.judges.0.dtyp (hf model): unknown key; did you mean 'dtype'?",
        "tracks.1.judge.judges.1.nme (coin model): unknown key; did you mean 'name'?",
        "tracks.2.judge.judges.0.dtyp (hf model): unknown key",
        "tracks.2.judge.aggregat: unknown key; did you mean 'aggregate'?",
    ):
        assert place in said
    assert ".hf." not in said and ".one." not in said and ".panel." not in said


def test_every_bad_field_is_named_numbers_written_as_text_among_them() -> None:
    model = {"backend": "hf", "name": "m", "path": "p", "batch_size": "8", "dtype": "bfloat"}
    said = _said({"models": [model], "tracks": [TRACK], "limit": True})
    assert said == (
        "run.yaml: limit: expected a number, got True; "
        "models.0.batch_size (hf model): expected a number, got '8'; "
        "models.0.dtype (hf model): Input should be 'float32', 'bfloat16', 'float16' or 'auto'; "
        "did you mean 'bfloat16'?"
    )


def test_every_bad_track_option_is_named_on_the_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "run.yaml"
    track = {**TRACK, "options": {"cot": "maybe", "max_new_tokens": "many", "cott": "with"}}
    config.write_text(yaml.safe_dump({"models": [OPENAI], "tracks": [track]}), encoding="utf-8")
    assert run_eval.main(["--config", str(config), "--output-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: {config}: tracks.0.options.max_new_tokens: expected a number, got 'many'; "
        "tracks.0.options.cot: Input should be 'with', 'without' or 'both'; "
        "tracks.0.options.cott: unknown key; did you mean 'cot'?\n"
    )


def test_an_arena_contestant_is_named_by_its_yaml_path(tmp_path: Path) -> None:
    path = tmp_path / "arena.yaml"
    contestants = [{**OPENAI, "concurency": 2}, {**OPENAI, "name": "b", "timeout_s": "slow"}]
    path.write_text(yaml.safe_dump({"contestants": contestants}), encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_arena_config(path)
    assert str(err.value) == (
        f"{path}: contestants.0.concurency (openai model): unknown key; "
        "did you mean 'concurrency'?; "
        "contestants.1.timeout_s (openai model): expected a number, got 'slow'"
    )


def test_a_judge_file_gets_the_run_configs_paths_and_hints(tmp_path: Path) -> None:
    """The judge files `rejudge` and `visionarena classify --judge` read are reported by the
    same rule as a run config: the YAML path, the backend, the likely fix."""
    from vlmscope.cli.judge_config import read_judge_config
    from vlmscope.cli.rejudge import read_judge

    path = tmp_path / "judge.yaml"
    path.write_text(yaml.safe_dump({**OPENAI, "temperatur": 0}), encoding="utf-8")
    said = f"{path}: temperatur (openai model): unknown key; did you mean 'generation.temperature'?"
    for read in (read_judge_config, read_judge):
        with pytest.raises(ValueError) as err:
            read(path)
        assert str(err.value) == said
