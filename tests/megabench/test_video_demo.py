"""The shipped sample's video task (real `.mp4` files) through configs/demo.yaml's MEGA-Bench part:
the tiny model and the oracle both answer it, from frames decoded out of the files."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.demo_run import DemoRun
from tests.faults.helpers import rows
from tests.megabench.test_video import official_frames, sent_frames
from vlmscope.config import parse_config
from vlmscope.runner.results import result_dir
from vlmscope.tracks.megabench.track import MegaBenchTrack
from vlmscope.tracks.shipped_samples import sample_dir

DEMO = Path(__file__).resolve().parents[2] / "configs" / "demo.yaml"
TASK = "sample_video_file"


def demo_megabench_config(tmp_path: Path) -> dict:
    raw = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    raw["output_dir"] = str(tmp_path / "results")
    raw["limit"] = 1
    raw["tracks"] = [t for t in raw["tracks"] if t["name"] == "megabench"]
    for model in (*raw["models"], raw["tracks"][0]["judge"]):
        if model.get("tiny_arch"):
            model["path"] = str(tmp_path / "tiny-llava")
    return raw


def test_video_sample_task_prompt_holds_the_officially_sampled_frames(tmp_path: Path) -> None:
    config = parse_config(demo_megabench_config(tmp_path))
    track = MegaBenchTrack(config.tracks[0], limit=None)
    tiny = config.models[0]
    samples = [s for s in track.samples(tiny) if s.meta["task_name"] == TASK]
    assert len(samples) == 2
    folder = sample_dir("megabench") / "data/Perception/Sample" / TASK
    demo_share = tiny.image_budget.in_context_images
    for sample, clip in zip(samples, ("q0.mp4", "q1.mp4"), strict=True):
        demo_sent, query_sent = sent_frames(sample.request.turns[0].parts)
        demo_expected = official_frames(
            folder / "demo.mp4", demo_share, is_demo=True, demo_video_frames=demo_share
        )
        query_expected = official_frames(
            folder / clip,
            tiny.image_budget.max_images - demo_share,
            is_demo=False,
            demo_video_frames=demo_share,
        )
        assert [p.data for p in demo_sent] == [data for _, _, data in demo_expected]
        assert [p.data for p in query_sent] == [data for _, _, data in query_expected]
        assert len(query_sent) >= 2 and len(demo_sent) == demo_share


@pytest.mark.timeout(600)
def test_video_demo_megabench_answers_the_video_task(demo_run: DemoRun) -> None:
    megabench = [t for t in demo_run.report.tracks if t.track == "megabench"]
    assert {t.model for t in megabench} == {"tiny-llava", "oracle"}
    for track_report in megabench:
        details = rows(result_dir(demo_run.out, track_report.model, "megabench"), "details")
        assert {f"{TASK}/0", f"{TASK}/1"} <= {r["sample_id"] for r in details}
        for video in (r for r in details if r["sample_id"].startswith(f"{TASK}/")):
            assert video["status"] == "ok", (track_report.model, video["sample_id"])
            if track_report.model == "oracle":
                assert '"query_score": 1.0' in video["scores"]
            else:
                assert video["response"]
