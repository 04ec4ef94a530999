"""The line under each track's page: which data each model's results stand on."""

from __future__ import annotations

from pathlib import Path

from vlmscope.leaderboard.data_origin import data_note, origin_text
from vlmscope.leaderboard.records import SummaryRecord

HUB = {
    "source": "hub",
    "repo": "TIGER-Lab/MEGA-Bench",
    "revision": "main",
    "commit": "0123456789abcdef0123",
    "fingerprint": "feedbeef" * 8,
    "files": 6,
}


def record(model: str, track: str, data: object) -> SummaryRecord:
    scores = {"overall": 0.5} if data is None else {"overall": 0.5, "data": data}
    return SummaryRecord(model, track, 1, scores, {}, {}, "", "", "", Path(track))


def test_each_source_reads_in_a_few_words() -> None:
    assert origin_text(HUB) == "TIGER-Lab/MEGA-Bench@0123456789ab (files feedbeef)"
    local = {"source": "local", "data_dir": "/data/MEGA-Bench/", "fingerprint": "ab" * 32}
    assert origin_text(local) == "local MEGA-Bench (files abababab)"
    assert origin_text({"source": "sample"}) == "sample"
    assert origin_text(None) == "" and origin_text("hub") == ""


def test_a_track_page_names_one_origin_or_each_models() -> None:
    sample = {"source": "sample"}
    assert data_note(
        [record("a", "megabench", sample), record("b", "megabench", sample)], "megabench"
    ) == ("Data: sample")
    mixed = [record("tiny", "megabench", HUB), record("oracle", "megabench", sample)]
    assert data_note(mixed, "megabench") == (
        "Data: oracle: sample; tiny: TIGER\\-Lab/MEGA\\-Bench@0123456789ab \\(files feedbeef\\)"
    )
    assert (
        data_note(mixed, "simplevqa") == ""
        and data_note([record("a", "megabench", None)], "megabench") == ""
    )
