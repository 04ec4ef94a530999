"""A misspelt config key, backend, choice, track or track option is refused with the one line
that names it and says what was most likely meant (or, when nothing is close, what the place
takes), exit status 2 and no traceback, before anything is run."""

from __future__ import annotations

from pathlib import Path

import pytest

import run_eval
from vlmscope.config.hints import closest

MODEL = "  - backend: openai\n    name: api\n    base_url: http://localhost:1\n    model: m\n"


def _error(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> str:
    config = tmp_path / "run.yaml"
    config.write_text(text, encoding="utf-8")
    assert run_eval.main(["--config", str(config), "--output-dir", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()
    return err.removesuffix("\n")


@pytest.mark.parametrize(
    ("models", "tracks", "said"),
    [
        (
            MODEL,
            "  - name: megabench\n",
            None,  # the good config, to show the others fail on their one change
        ),
        (
            MODEL + "    temperatur: 0.2\n",
            "  - name: megabench\n",
            "models.0.temperatur (openai model): unknown key; did you mean 'generation.temperature'?",
        ),
        (
            MODEL + "    image_budget: {max_imags: 4}\n",
            "  - name: megabench\n",
            "models.0.image_budget.max_imags (openai model): unknown key; did you mean 'max_images'?",
        ),
        (
            MODEL.replace("openai", "openia", 1),
            "  - name: megabench\n",
            "expected tags: 'hf', 'openai', 'oracle', 'coin', 'vllm'; did you mean 'openai'?",
        ),
        (
            MODEL + "    token_limit_field: max_token\n",
            "  - name: megabench\n",
            "models.0.token_limit_field (openai model): Input should be 'max_tokens' or "
            "'max_completion_tokens'; did you mean 'max_tokens'?",
        ),
        (
            "  - backend: oracle\n    xyz: 1\n",
            "  - name: megabench\n",
            "models.0.xyz (oracle model): unknown key; this place takes backend, name, image_budget",
        ),
        (
            MODEL,
            "  - name: megabench\n    optoins: {cot: with}\n",
            "tracks.0.optoins: unknown key; did you mean 'options'?",
        ),
        (
            MODEL,
            "  - name: megabenhc\n",
            "tracks.0.name: unknown track 'megabenhc'; did you mean 'megabench'?; known: ",
        ),
        (
            MODEL,
            "  - name: megabench\n    subset: core\n    options: {cott: with}\n",
            "tracks.0.options.cott: unknown key; did you mean 'cot'?",
        ),
    ],
)
def test_a_misspelling_is_named_with_what_was_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], models: str, tracks: str, said: str | None
) -> None:
    text = f"models:\n{models}tracks:\n{tracks}"
    if said is None:
        config = tmp_path / "run.yaml"
        config.write_text(text, encoding="utf-8")
        assert run_eval.main(["--config", str(config), "--dry-run"]) == 0
        return
    err = _error(tmp_path, text, capsys)
    assert err.startswith(f"error: {tmp_path / 'run.yaml'}: ") and said in err, err


def test_the_top_level_key_and_nothing_close() -> None:
    assert closest("output_dirr", ["output_dir", "models", "tracks"]) == "output_dir"
    assert closest("LIMIT", ["output_dir", "limit"]) == "limit"
    assert closest("zzz", ["output_dir", "models", "tracks"]) is None


def test_a_misspelt_track_or_model_to_run_is_named_with_the_one_meant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(f"models:\n{MODEL}tracks:\n  - name: megabench\n", encoding="utf-8")
    assert run_eval.main(["--config", str(config), "--tracks", "megabench,megabnech"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "error: --tracks: megabnech not in the config (have: megabench); "
        "did you mean 'megabench'?\n"
    )
    assert run_eval.main(["--config", str(config), "--tracks", "simplevqa"]) == 2
    assert capsys.readouterr().err.endswith("(have: megabench)\n")  # nothing close
    assert run_eval.main(["--config", str(config), "--models", "API"]) == 2
    assert capsys.readouterr().err.endswith("(have: api); did you mean 'api'?\n")
