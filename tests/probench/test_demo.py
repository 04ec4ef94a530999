"""configs/probench_demo.yaml end to end, offline: two models answer every turn of the three
tracks, the coin judge judges, and ProBench's tables and the joint board come out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.faults.helpers import rows
from vlmscope.config import TrackConfig, load_config, parse_config
from vlmscope.runner.loop import run
from vlmscope.runner.results import board_dir, result_dir
from vlmscope.tracks.probench.breakdowns import DIMENSIONS
from vlmscope.tracks.probench.rows import CHAT_TYPES, SAMPLE_DIR, read_rows

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "probench_demo.yaml"
DEMO = Path(__file__).resolve().parents[2] / "configs" / "demo.yaml"


def test_both_demo_configs_name_the_coin_judge_and_build_the_track() -> None:
    for path in (CONFIG, DEMO):
        (track,) = [t for t in load_config(path).tracks if t.name == "probench"]
        assert track.judge is not None and track.judge.backend == "coin"


@pytest.mark.timeout(600)
def test_probench_demo_runs_end_to_end(tmp_path: Path) -> None:
    raw = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    raw["output_dir"] = str(tmp_path / "results")
    raw["models"][0]["path"] = str(tmp_path / "tiny-llava")
    raw["tracks"][0]["options"]["bootstrap_rounds"] = 20
    report = run(parse_config(raw))
    sample_rows = read_rows(SAMPLE_DIR)
    by_model = {t.model: t for t in report.tracks}
    assert set(by_model) == {"tiny-llava", "oracle"}
    for name, track in by_model.items():
        assert track.total == sum(row.rounds for row in sample_rows)
        summary = track.summary
        assert summary["judged_prompts"] == len(sample_rows), name
        assert summary["judge"]["judge"] == "coin-judge"
        for chat_type, dimensions in summary["breakdowns"].items():
            assert set(dimensions) <= set(DIMENSIONS[chat_type])
    tiny = by_model["tiny-llava"].summary
    assert set(tiny["tracks"]) == set(CHAT_TYPES)
    for entry in tiny["tracks"].values():
        assert entry["lower"] <= entry["score"] <= entry["upper"]
        assert entry["baseline_avg_tokens"] > entry["avg_tokens"] > 0  # 32-token cap vs rows
    # the oracle answers with the baseline's own answers: every style difference is 0, which
    # ProBench's per-model fit cannot standardise, so each table is skipped with that reason
    oracle_summary = by_model["oracle"].summary
    assert oracle_summary["tracks"] == {}
    assert set(oracle_summary["skipped"]) >= set(CHAT_TYPES)
    assert all("style control" in reason for reason in oracle_summary["skipped"].values())
    # the oracle answers every turn with the rows' own answers: its history is the reference
    oracle = rows(result_dir(tmp_path / "results", "oracle", "probench"), "details")
    for detail in oracle:
        extra = json.loads(detail["extra"]) if isinstance(detail["extra"], str) else detail["extra"]
        assert [t["answer"] for t in extra["turns"]] == [
            t["baseline_answer"] for t in extra["turns"]
        ]
    (board,) = report.boards
    assert board.error is None and board.models == 3  # two models and the baseline
    (summary,) = rows(board_dir(tmp_path / "results", "probench"), "summary")
    joint = summary["board"]
    assert set(CHAT_TYPES) <= set(joint["categories"])
    assert any(key.startswith("multi-round / round: ") for key in joint["categories"])
    baseline = joint["models"]["gpt-4o-2024-05-13"]  # pinned, like ProBench's own fits
    assert (baseline["rating"], baseline["lower"], baseline["upper"]) == pytest.approx((1114,) * 3)
    table = result_dir(tmp_path / "results", "tiny-llava", "probench") / "probench_table.md"
    assert "| singleround |" in table.read_text(encoding="utf-8")
    # the coin and the random-weight model are named in the summaries, the board and the cards
    coin = {"role": "judge", "name": "coin-judge",
            "what": "the coin backend, which picks a verdict by hashing the request"}  # fmt: skip
    tiny = {"role": "answers", "name": "tiny-llava", "what": "a random-weight tiny llava model"}
    results = tmp_path / "results"
    (tiny_row,) = rows(result_dir(results, "tiny-llava", "probench"), "summary")
    (oracle_row,) = rows(result_dir(results, "oracle", "probench"), "summary")
    assert tiny_row["stand_ins"] == [tiny, coin] and oracle_row["stand_ins"] == [coin]
    assert summary["stand_ins"] == [tiny, coin]
    card = (result_dir(results, "tiny-llava", "probench") / "README.md").read_text()
    assert "measure nothing about the models" in card and "`coin-judge`" in card
    assert "baseline pinned at 1114" in card and "Judge: `coin-judge`" in card
    assert "Scales: rates and scores" in card
    board_card = (board_dir(results, "probench") / "README.md").read_text()
    assert "by `tiny-llava`: a random-weight tiny llava model" in board_card


def test_a_model_of_the_run_can_be_the_baseline(tmp_path: Path) -> None:
    singleround = [row.uuid for row in read_rows(SAMPLE_DIR) if row.chat_type == "singleround"]
    labels = tmp_path / "human.jsonl"
    labels.write_text(
        "\n".join(
            json.dumps({"uid": uid, "model": "coin-bot", "game": game, "label": "A>B"})
            for uid in singleround[:2]
            for game in ("model_first", "baseline_first")
        ),
        encoding="utf-8",
    )
    config = parse_config(
        {
            "output_dir": str(tmp_path / "results"),
            "models": [{"backend": "coin", "name": "coin-bot"}, {"backend": "oracle"}],
            "tracks": [
                {
                    "name": "probench",
                    "subset": "singleround",
                    "judge": {"backend": "coin", "name": "coin-judge"},
                    "options": {
                        "baseline_model": "oracle",
                        "bootstrap_rounds": 10,
                        "human_labels": str(labels),
                    },
                }
            ],
        }
    )
    report = run(config)
    by_model = {t.model: t.summary for t in report.tracks}
    assert by_model["oracle"]["role"] == "baseline"
    assert by_model["coin-bot"]["baseline"] == "oracle"
    assert by_model["coin-bot"]["baseline_source"] == "model"
    agreement = by_model["coin-bot"]["judge_agreement"]
    assert agreement["labels"] == 4 and agreement["compared"] == 4  # the coin always parses
    details = rows(result_dir(tmp_path / "results", "coin-bot", "probench"), "details")
    references = {row.uuid: row.reference_answers for row in read_rows(SAMPLE_DIR)}
    for detail in details:
        extra = json.loads(detail["extra"]) if isinstance(detail["extra"], str) else detail["extra"]
        # the oracle answers with the rows' answers, so the baseline side is exactly those
        assert [t["baseline_answer"] for t in extra["turns"]] == list(
            references[detail["sample_id"]]
        )
        assert extra["baseline"] == "oracle"
    (board,) = report.boards
    assert board.models == 2


def test_a_baseline_model_outside_the_run_is_rejected_naming_the_field(tmp_path: Path) -> None:
    from vlmscope.config import ConfigError

    config = parse_config(
        {
            "output_dir": str(tmp_path / "results"),
            "models": [{"backend": "oracle"}],
            "tracks": [
                {
                    "name": "probench",
                    "judge": {"backend": "coin"},
                    "options": {"baseline_model": "gpt-4o"},
                }
            ],
        }
    )
    with pytest.raises(ConfigError, match=r"tracks\.0\.options\.baseline_model"):
        run(config)


def test_the_space_rebuilds_a_details_rows_first_turn() -> None:
    from vlmscope.tracks.probench.spec import SPEC
    from vlmscope.tracks.probench.track import ProBenchTrack

    track = ProBenchTrack(TrackConfig(name="probench", judge={"backend": "coin"}), limit=None)
    (sample, *_) = track.samples()
    assert SPEC.rebuild_prompt is not None
    assert SPEC.rebuild_prompt(sample.meta, SAMPLE_DIR) == sample.request
    assert SPEC.rebuild_prompt({"uuid": "no-such-row"}, SAMPLE_DIR) is None
