"""The demo config validates and builds the SimpleVQA track on the shipped sample."""

from __future__ import annotations

from pathlib import Path

from vlmscope.config import load_config
from vlmscope.tracks.registry import build_track

DEMO = Path(__file__).resolve().parents[2] / "configs" / "simplevqa_demo.yaml"


def test_demo_config_builds_the_track() -> None:
    config = load_config(DEMO)
    assert [m.backend for m in config.models] == ["hf", "oracle"]
    (track_config,) = config.tracks
    assert track_config.judge is not None and track_config.judge.backend == "openai"
    assert track_config.judge.base_url.startswith("http://127.0.0.1:")
    track = build_track(track_config, limit=None)
    assert len(track.samples(config.models[1])) == 12  # 6 rows, each with its atomic question
