"""configs/visionarena_demo.yaml end to end, offline, and the leaderboard command it names."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from vlmscope.cli import main
from vlmscope.config import parse_config
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.store import ResultStore
from vlmscope.runner.loop import run
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, read_bench_rows

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "visionarena_demo.yaml"


@pytest.mark.timeout(600)
def test_visionarena_demo_runs_and_the_store_reads_both_boards(tmp_path: Path) -> None:
    raw = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    out = tmp_path / "results"
    raw["output_dir"] = str(out)
    for model in raw["models"]:
        model["path"] = str(tmp_path / model["name"])
    raw["tracks"][0]["options"]["bootstrap_rounds"] = 10
    report = run(parse_config(raw))
    by_model = {t.model: t.summary for t in report.tracks}
    assert by_model["tiny-idefics3"]["role"] == "baseline"
    assert by_model["tiny-llava"]["judged_prompts"] == len(read_bench_rows(SAMPLE_DIR / "bench"))
    (board,) = report.boards
    assert board.error is None and board.models == 2
    arena = out / "_boards" / "visionarena"
    argv = ["visionarena", "leaderboard", str(SAMPLE_DIR / "battle"), "--result-dir", str(arena)]
    assert main([*argv, "--bootstrap", "10"]) == 0
    store = ResultStore(ResultsLocation.local(str(out)))  # what the Space reads
    assert {"visionarena", "visionarena_bench"} <= set(store.boards)
    assert store.boards["visionarena"].board.settings.extra["anony"]
