"""configs/visionarena_built_bench.yaml as its header says: a bench built from the shipped
VisionArena-Chat sample and one built from the live arena's exported conversations, each run by
the bench track with the demo's two tiny models and coin judge, offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.arena.chat_votes import arena_config, fill_store
from vlmscope.cli import main
from vlmscope.config import parse_config
from vlmscope.models.tiny_clip import ensure_tiny_clip
from vlmscope.runner.loop import run
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, read_bench_rows

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "visionarena_built_bench.yaml"


def run_config(tmp_path: Path, bench: Path, name: str) -> dict[str, Any]:
    raw = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    raw["output_dir"] = str(tmp_path / name)
    for model in raw["models"]:
        model["path"] = str(tmp_path / model["name"])
    (track,) = raw["tracks"]
    track["data_dir"] = str(bench)
    track["options"]["bootstrap_rounds"] = 10
    report = run(parse_config(raw))
    (board,) = report.boards
    assert board.error is None and board.models == 2
    return {t.model: t.summary for t in report.tracks}


@pytest.mark.timeout(900)
def test_benches_from_the_chat_sample_and_the_arena_run_in_the_bench_track(
    tmp_path: Path,
) -> None:
    clip = tmp_path / ".cache" / "tiny-clip"
    assert main(["make-tiny-model", str(clip), "--arch", "clip"]) == 0
    ensure_tiny_clip(clip)  # already there: kept
    build = ["visionarena", "build-bench", "--size", "500", "--model", str(clip), "--quiet"]

    sample_bench = tmp_path / "runs" / "built-bench"
    assert main([*build, str(SAMPLE_DIR / "chat"), "--out", str(sample_bench)]) == 0
    by_model = run_config(tmp_path, sample_bench, "from_sample")
    assert by_model["tiny-idefics3"]["role"] == "baseline"
    assert by_model["tiny-llava"]["judged_prompts"] == len(read_bench_rows(sample_bench)) == 2

    store = fill_store(tmp_path / "arena" / "battles.sqlite", 24)
    chat = tmp_path / "runs" / "arena-chat"
    export = ["arena", "export", str(arena_config(tmp_path, store)), str(chat), "--dataset", "chat"]
    assert main([*export, "--format", "parquet"]) == 0
    arena_bench = tmp_path / "runs" / "fresh-bench"
    assert main([*build, str(chat), "--out", str(arena_bench), "--source", "live arena"]) == 0
    rows = read_bench_rows(arena_bench)
    # side a of each one-turn English battle (side b is its exact duplicate); HDBSCAN's
    # outliers, if any, are not sampled
    assert 0 < len(rows) <= 24 and all(r.question_id.endswith("-a") for r in rows)
    assert "**live arena**" in (arena_bench / "README.md").read_text()
    by_model = run_config(tmp_path, arena_bench, "from_arena")
    assert by_model["tiny-llava"]["judged_prompts"] == len(rows)
