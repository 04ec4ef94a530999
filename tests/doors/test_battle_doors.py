"""A Battle folder rates the same whichever door it comes in by: the leaderboard directly, or the
builder's export then the leaderboard. Non-anonymous rows stay out of the board, an unlabelled
flag stays unlabelled (in no category board, counted), and a board nobody labelled is skipped
with its reason."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import datasets
import pytest

from tests.visionarena.test_rows import sample_records, write_json
from vlmscope.cli import main
from vlmscope.datasets.visionarena import main as export_main
from vlmscope.tracks.visionarena.conversations import CATEGORY_FLAGS

Records = list[dict[str, Any]]


def _doors(tmp_path: Path, records: Records) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the board of the folder, the board of the builder's export of it)."""
    folder = write_json(tmp_path / "in", records)
    hub = tmp_path / "hub"
    assert export_main(["battle", "--out", str(hub), "--data-dir", str(folder),
                        "--cache-dir", str(tmp_path / "cache")]) == 0  # fmt: skip
    boards = []
    for source, name in ((folder, "direct.json"), (hub, "exported.json")):
        out = tmp_path / name
        assert main(["visionarena", "leaderboard", str(source), "--bootstrap", "5",
                     "--out", str(out)]) == 0  # fmt: skip
        boards.append(json.loads(out.read_text()))
    return boards[0], boards[1]


def _mixed() -> Records:
    """The shipped battles with what the upstream data never has, and what it may: some rows
    not anonymous, unlabelled flags, `categories` null, `none`, empty, and a dedup label."""
    records = copy.deepcopy(sample_records("battle"))
    for k, record in enumerate(records):
        if k % 7 == 0:
            record["anony"] = False
        elif k % 7 == 1:
            record["anony"] = True
        if k % 5 == 0:
            record["categories"] = {**record["categories"], "refusal": None}
        elif k % 5 == 3:
            record["categories"] = {k: v for k, v in record["categories"].items() if k != "ocr"}
        elif k % 5 == 1:
            record["categories"] = None
        elif k % 5 == 2:
            record["categories"] = "none" if k % 2 else ""
        record["dedup_tag"] = {"high_freq": k % 3 == 0, "sampled": k % 4 != 0}
    return records


def test_builder_then_leaderboard_is_the_leaderboard(tmp_path: Path) -> None:
    records = _mixed()
    direct, exported = _doors(tmp_path, records)
    assert direct == exported

    rated = [r for r in records if r.get("anony") is not False]  # the board's battles
    assert direct["settings"]["n_battles"] == len(rated) < len(records)
    assert "without `anony`" in direct["settings"]["anony"]

    def unlabelled(flag: str) -> int:
        return sum(
            1
            for r in rated
            if not isinstance(r["categories"], str)
            and (r["categories"] is None or r["categories"].get(flag) is None)
        )

    boards = direct["categories"]
    assert boards["no_refusal"]["settings"]["unlabelled"] == unlabelled("refusal") > 0
    assert boards["ocr"]["settings"]["unlabelled"] == unlabelled("ocr") > 0
    assert boards["captioning"]["settings"]["unlabelled"] == unlabelled("captioning") > 0
    # no battle left labelled true is not no battle labelled at all
    assert direct["settings"]["skipped_categories"]["humor"] == (
        f"no battles left ({unlabelled('humor')} unlabelled)"
    )
    labelled_out = {r["question_id"] for r in rated if r["categories"] in ("none", "")}
    assert labelled_out  # `none` and empty sets are labels: in no category, counted nowhere


def test_anonymous_only_even_after_the_builder(tmp_path: Path) -> None:
    records = _mixed()
    direct, _ = _doors(tmp_path / "mixed", records)
    everyone = [{k: v for k, v in r.items() if k != "anony"} for r in records]
    all_rated, _ = _doors(tmp_path / "all", everyone)
    assert direct["models"] != all_rated["models"]  # the non-anonymous votes changed nothing


def test_a_board_nobody_labelled_is_skipped_with_its_reason(tmp_path: Path) -> None:
    records = copy.deepcopy(sample_records("battle"))
    for record in records:
        record["categories"] = {k: v for k, v in record["categories"].items() if k != "refusal"}
    direct, exported = _doors(tmp_path, records)
    assert direct == exported
    assert "no_refusal" not in direct["categories"]
    assert direct["settings"]["skipped_categories"]["no_refusal"] == (
        f"no battle is labelled for it ({direct['settings']['n_battles']} unlabelled)"
    )


def test_the_chat_builder_keeps_unlabelled_flags_null(tmp_path: Path) -> None:
    records = copy.deepcopy(sample_records("chat"))
    records[0]["categories"] = {"ocr": True}
    records[1]["categories"] = None
    records[2]["categories"] = "none"
    folder = write_json(tmp_path / "in", records)
    hub = tmp_path / "hub"
    assert export_main(["chat", "--out", str(hub), "--data-dir", str(folder),
                        "--cache-dir", str(tmp_path / "cache")]) == 0  # fmt: skip
    rows = datasets.load_dataset(str(hub), split="train", cache_dir=str(tmp_path / "c"))
    labels = [row["categories"] for row in rows]
    assert labels[0] == {flag: (True if flag == "ocr" else None) for flag in CATEGORY_FLAGS}
    assert labels[1] == dict.fromkeys(CATEGORY_FLAGS)
    assert labels[2] == dict.fromkeys(CATEGORY_FLAGS, False)


@pytest.mark.parametrize("bad", ["-5", "images-null"])
def test_what_the_leaderboard_refuses_the_builder_refuses(tmp_path: Path, bad: str) -> None:
    records = copy.deepcopy(sample_records("battle"))[:20]
    if bad == "-5":
        records[3]["conv_metadata"] = dict(records[0]["conv_metadata"] or {}) or None
        assert records[3]["conv_metadata"] is not None
        records[3]["conv_metadata"]["sum_assistant_a_tokens"] = -5
    else:
        records[3]["images"] = None  # a battle without an image: both doors take it
    folder = write_json(tmp_path / "in", records)
    code = main(["visionarena", "leaderboard", str(folder), "--bootstrap", "3",
                 "--out", str(tmp_path / "b.json")])  # fmt: skip
    built = export_main(["battle", "--out", str(tmp_path / "hub"), "--data-dir", str(folder),
                         "--cache-dir", str(tmp_path / "cache")])  # fmt: skip
    assert code == built == (2 if bad == "-5" else 0)
