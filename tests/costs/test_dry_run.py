"""`vlmscope run --dry-run`: what a run would ask, counted by the run's own code, and sent nowhere.

Against the usage-reporting stand-in: a first run answers `--limit 1`; the dry run of `--limit
2` then says how many requests are left per track, phase and model, which must be exactly the
calls the real `--limit 2` run makes; its token estimate must be near what the server counts
for them. The server counts a prompt as its whitespace words plus 16 tokens per image, so the
approximation is set to that (`--chars-per-token 6 --image-tokens 16`, 6 characters being about
a word and its space in these prompts); output is expected from the first run's replies.
Stated tolerance: input tokens within 15%, output tokens within 10%. And a dry run of every
shipped run config works, and leaves nothing behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.costs.runs import (
    Counting,
    counting_stub,
    stub_config,
    summary,
    vlmscope_run,
    write_config,
    write_pricing,
)
from tests.servers import OpenAIStub
from vlmscope.cli import main

INPUT_TOLERANCE = 0.15
OUTPUT_TOLERANCE = 0.10
CONFIGS = Path(__file__).resolve().parents[2] / "configs"
APPROXIMATION = ("--chars-per-token", "6", "--image-tokens", "16")


@pytest.fixture(scope="module")
def estimated(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, list[dict[str, object]]], Counting, int, OpenAIStub, Path]:
    tmp = tmp_path_factory.mktemp("dry")
    stub, counting = counting_stub()
    with stub:
        raw = stub_config(stub, tmp / "out", write_pricing(tmp / "prices.yaml"))
        config = write_config(tmp, raw)
        assert vlmscope_run(config, limit=1) == 0
        before = len(counting.usage)
        calls_before = len(stub.calls)
        listing = sorted(p.name for p in (tmp / "out").iterdir())
        dry = tmp / "dry.json"
        assert vlmscope_run(config, "--dry-run", "--json", str(dry), *APPROXIMATION) == 0
        assert len(stub.calls) == calls_before  # the dry run sent nothing...
        assert sorted(p.name for p in (tmp / "out").iterdir()) == listing  # ...wrote nothing
        assert vlmscope_run(config) == 0
    return json.loads(dry.read_text()), counting, before, stub, tmp / "out"


def test_the_dry_runs_request_count_is_exact(
    estimated: tuple[dict[str, list[dict[str, object]]], Counting, int, OpenAIStub, Path],
) -> None:
    plan, counting, before, _, out = estimated
    lines = plan["lines"]
    to_ask = sum(int(str(x["to_ask"])) for x in lines if x["model"] != "oracle")
    assert to_ask == len(counting.usage) - before > 0
    # per track, phase and model, the requests the results stand on are the run's ledger's
    for line in lines:
        ledger = summary(out, "stub-model", str(line["track"]))["ledger"]
        oracle = summary(out, "oracle", str(line["track"]))["ledger"]
        phase = str(line["phase"])
        if line["model"] == "oracle":
            assert line["requests"] == oracle[phase]["requests"]
        elif phase == "generate":
            assert line["requests"] == ledger[phase]["requests"]
        else:  # a judge line covers the judging of every model's answers
            assert line["requests"] == ledger[phase]["requests"] + oracle[phase]["requests"]
    by_phase = {
        p: sum(int(str(x["to_ask"])) for x in lines if x["phase"] == p)
        for p in ("generate", "judge")
    }
    assert by_phase["judge"] > 0 and by_phase["generate"] > 0


def test_the_token_estimate_is_within_the_stated_tolerance(
    estimated: tuple[dict[str, list[dict[str, object]]], Counting, int, OpenAIStub, Path],
) -> None:
    plan, counting, before, _, _ = estimated
    asked = counting.usage[before:]
    real_in = sum(u["prompt_tokens"] for u in asked)
    real_out = sum(u["completion_tokens"] for u in asked)
    guess_in = sum(int(str(x["input_tokens"])) for x in plan["lines"])
    guess_out = sum(int(str(x["output_tokens"])) for x in plan["lines"])
    assert abs(guess_in - real_in) <= INPUT_TOLERANCE * real_in, (guess_in, real_in)
    assert abs(guess_out - real_out) <= OUTPUT_TOLERANCE * real_out, (guess_out, real_out)
    priced = [x for x in plan["lines"] if x["model"] != "oracle" and x["to_ask"]]
    assert all(float(str(x["cost_usd"])) > 0 for x in priced)


def test_a_fully_cached_run_has_nothing_left_to_ask(
    estimated: tuple[dict[str, list[dict[str, object]]], Counting, int, OpenAIStub, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, _, _, stub, out = estimated
    raw = stub_config(stub, out)  # the stub is down now: a request sent would fail
    assert vlmscope_run(write_config(tmp_path, raw), "--dry-run") == 0
    printed = capsys.readouterr().out
    total = next(line for line in printed.splitlines() if line.startswith("total"))
    requests, cached, to_ask = total.split()[1:4]
    assert requests == cached and to_ask == "0"


def run_configs() -> list[Path]:
    """Every shipped config a run takes (the arena's config is the arena's)."""
    found = sorted(CONFIGS.glob("*.yaml"))
    runs = [p for p in found if "tracks" in (yaml.safe_load(p.read_text()) or {})]
    assert {p.name for p in found} - {p.name for p in runs} <= {
        "arena_demo.yaml",
        "pricing_example.yaml",
        "coin_judge_b.yaml",
    }
    return runs


BUILT_FIRST = {
    "runs/built-bench": CONFIGS.parent / "vlmscope" / "samples" / "visionarena" / "bench"
}
"""Data folders a config's walk-through makes before the run (`vlmscope visionarena
build-bench --out runs/built-bench`), each with a shipped folder of the same layout."""


def with_built_data(config: Path, tmp_path: Path) -> Path:
    """`config`, or a copy whose tracks read the shipped stand-in of a folder made before the
    run (`BUILT_FIRST`); any other data folder stays as written."""
    raw = yaml.safe_load(config.read_text())
    built = [t for t in raw["tracks"] if t.get("data_dir") in BUILT_FIRST]
    if not built:
        return config
    for track in built:
        track["data_dir"] = str(BUILT_FIRST[track["data_dir"]])
    copy = tmp_path / config.name
    copy.write_text(yaml.safe_dump(raw))
    return copy


@pytest.mark.parametrize("config", run_configs(), ids=lambda p: p.name)
def test_every_shipped_config_dry_runs(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    config = with_built_data(config, tmp_path)
    assert main(["run", "--config", str(config), "--dry-run", "--output-dir", str(out),
                 "--limit", "1"]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "dry run: nothing was sent or written" in printed
    assert any(line.startswith("total") for line in printed.splitlines())
    assert not out.exists()
