"""configs/visionarena_demo.yaml end to end, offline, and the leaderboard command it names; the
all-tracks demo's VisionArena-Bench track, judged against the shipped sample anchor answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.demo_run import DemoRun
from vlmscope.cli import main
from vlmscope.config import load_config, parse_config
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.runner.loop import run
from vlmscope.tracks.registry import build_track
from vlmscope.tracks.visionarena.rows import SAMPLE_DIR, read_bench_rows

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "visionarena_demo.yaml"
ALL_TRACKS_DEMO = CONFIG.parent / "demo.yaml"
SAMPLE_ANCHOR = "sample-anchor"


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


def test_the_all_tracks_demo_builds_the_bench_on_the_shipped_anchor_answers() -> None:
    (track_config,) = [
        t for t in load_config(ALL_TRACKS_DEMO).tracks if t.name == "visionarena_bench"
    ]
    assert track_config.judge is not None and track_config.judge.backend == "coin"
    track = build_track(track_config, limit=None)
    assert track.required_models() == {}  # the anchor is no model of the run
    assert track.baseline_name == SAMPLE_ANCHOR


@pytest.mark.timeout(600)
def test_the_all_tracks_demo_judges_both_models_on_the_bench_with_avg_tokens(
    demo_run: DemoRun,
) -> None:
    report, out, raw = demo_run.report, demo_run.out, demo_run.raw
    by_model = {t.model: t.summary for t in report.tracks if t.track == "visionarena_bench"}
    prompts = len(read_bench_rows(SAMPLE_DIR / "bench"))
    for name in ("tiny-llava", "oracle"):
        summary = by_model[name]
        assert summary["judged_prompts"] == prompts and summary["outcomes"] == {"ok": prompts}
        assert summary["baseline"] == SAMPLE_ANCHOR and summary["baseline_source"] == "file"
    answers = [
        json.loads(line)["answer"]
        for line in (SAMPLE_DIR / "bench" / "anchor_answers.jsonl").read_text().splitlines()
    ]
    anchor_words = sum(len(a.split()) for a in answers) / len(answers)
    assert by_model["oracle"]["avg_tokens"] == anchor_words  # it answers with the anchor's texts
    cap = raw["models"][0]["max_new_tokens"]
    assert 0 < by_model["tiny-llava"]["avg_tokens"] <= cap
    (board_report,) = [b for b in report.boards if b.track == "visionarena_bench"]
    assert board_report.error is None and board_report.models == 3  # both models + the anchor
    board = ResultStore(ResultsLocation.local(str(out))).boards["visionarena_bench"].board
    assert board.settings.extra["avg_tokens"] == {
        "oracle": anchor_words,
        SAMPLE_ANCHOR: anchor_words,
        "tiny-llava": by_model["tiny-llava"]["avg_tokens"],
    }
    pinned = board.models[SAMPLE_ANCHOR]
    assert pinned.rating == pinned.lower == pinned.upper
    assert board.style_control is not None  # the demo asks for the style-controlled twin
    assert board.style_control.settings.extra["avg_tokens"] == board.settings.extra["avg_tokens"]
