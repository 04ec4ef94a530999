"""One table of bad rows, every door: each bad row is refused by every way its kind of data comes
in (the `datasets` builder's command, the rating commands, the leaderboard, the run of its
track, the classifier), each with one `error:` line naming the file, the row and the field, and
exit status 2; a row one door accepts, every door accepts."""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import run_eval
from tests.ratings.arena_golden import GOLDEN_DIR
from tests.ratings.verdict_golden import BASELINE, VERDICTS_FILE
from tests.visionarena.test_rows import sample_records, write_json
from vlmscope.cli import main
from vlmscope.datasets import megabench, probench, simplevqa, visionarena
from vlmscope.tracks.shipped_samples import SAMPLES_ROOT

Row = dict[str, Any]
BAD = 3  # the 0-based index of the bad row among the rows of a folder
BAD_LINE = 6  # the 1-based line of the bad row in a battles or verdicts file


def _path_set(dotted: str | tuple[str, ...], value: Any) -> Callable[[Row], None]:
    """Set the field at `dotted` (a dotted name, or its parts when a key holds a dot)."""

    def change(row: Row) -> None:
        *parents, last = dotted.split(".") if isinstance(dotted, str) else dotted
        target = row
        for key in parents:
            target = target[key]
        target[last] = value

    return change


@dataclass(frozen=True)
class BadVote:
    """A bad battle: `change` edits a Battle dataset row and a FastChat battle alike (the vote
    fields have one name in both) unless `fastchat` gives the FastChat edit and its field."""

    name: str
    change: Callable[[Row], None]
    field: str
    fastchat: tuple[Callable[[Row], None], str] | None = None


def _repeat(row: Row) -> None:
    row["question_id"] = "repeated-id"


BAD_VOTES = [
    BadVote("null model", _path_set("model_b", None), "model_b"),
    BadVote("blank model", _path_set("model_a", "  "), "model_a"),
    BadVote("self battle", lambda r: r.update(model_b=r["model_a"]), "model_b"),
    BadVote("unknown winner", _path_set("winner", "banana"), "winner"),
    BadVote("tstamp as text", _path_set("tstamp", "yesterday"), "tstamp"),
    BadVote(
        "negative token count",
        _path_set("conv_metadata.sum_assistant_a_tokens", -5),
        "conv_metadata.sum_assistant_a_tokens",
    ),
    BadVote(
        "boolean style count",
        _path_set("conv_metadata.bold_count_b.**", True),
        "conv_metadata.bold_count_b.**",
    ),
    BadVote("anony as text", _path_set("anony", "false"), "anony"),
    BadVote(
        "category flag as text",
        _path_set("categories.ocr", "yes"),
        "categories.ocr",
        (_path_set(("category_tag", "ocr_v0.1", "ocr"), "yes"), "category_tag.ocr_v0.1.ocr"),
    ),
    BadVote("repeated id", _repeat, "question_id"),
]


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err


def _battle_folder(tmp_path: Path, vote: BadVote) -> tuple[Path, str]:
    """A Battle folder (JSON layout) whose row BAD is bad, and how its errors name that row."""
    records = copy.deepcopy(sample_records("battle"))[:12]
    with_meta = next(r for r in records if r.get("conv_metadata"))
    records[BAD]["conv_metadata"] = copy.deepcopy(with_meta["conv_metadata"])
    vote.change(records[BAD])
    if vote.name == "repeated id":
        records[0]["question_id"] = "repeated-id"
    folder = write_json(tmp_path / "battle", records)
    return folder, f"rows.json, question_id {records[BAD]['question_id']}"


def _battles_file(tmp_path: Path, vote: BadVote) -> Path:
    rows = [json.loads(line) for line in (GOLDEN_DIR / "battles_5k.jsonl").open()][:40]
    change = vote.fastchat[0] if vote.fastchat else vote.change
    change(rows[BAD_LINE - 1])
    if vote.name == "repeated id":
        rows[0]["question_id"] = "repeated-id"
    path = tmp_path / "battles.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


BATTLE_FOLDER_DOORS: dict[str, Callable[[Path, Path], int]] = {
    "visionarena leaderboard DIR": lambda data, out: main(
        ["visionarena", "leaderboard", str(data), "--bootstrap", "3", "--out", str(out / "b")]
    ),
    "Battle builder": lambda data, out: visionarena.main(
        [
            "battle",
            "--out",
            str(out / "hub"),
            "--data-dir",
            str(data),
            "--cache-dir",
            str(out / "cache"),
        ]  # fmt: skip
    ),
}
BATTLES_FILE_DOORS: dict[str, Callable[[Path, Path], int]] = {
    "ratings battles (streamed)": lambda file, out: main(
        ["ratings", "battles", str(file), "--bootstrap", "3", "--out", str(out / "b")]
    ),
    "ratings battles (records)": lambda file, out: main(
        [
            "ratings",
            "battles",
            str(file),
            "--bootstrap",
            "3",
            "--categories",
            "all",
            "--result-dir",
            str(out / "r"),
        ]  # fmt: skip
    ),
    "visionarena leaderboard FILE": lambda file, out: main(
        ["visionarena", "leaderboard", str(file), "--bootstrap", "3", "--out", str(out / "b")]
    ),
}


@pytest.mark.parametrize("vote", BAD_VOTES, ids=lambda v: v.name)
@pytest.mark.parametrize("door", list(BATTLE_FOLDER_DOORS))
def test_a_bad_battle_row_is_refused_by_every_folder_door(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], vote: BadVote, door: str
) -> None:
    folder, where = _battle_folder(tmp_path, vote)
    assert BATTLE_FOLDER_DOORS[door](folder, tmp_path / "out") == 2
    err = _one_line(capsys)
    assert where in err and f"field '{vote.field}" in err
    assert not (tmp_path / "out" / "hub").exists() and not (tmp_path / "out" / "b").exists()


@pytest.mark.parametrize("vote", BAD_VOTES, ids=lambda v: v.name)
@pytest.mark.parametrize("door", list(BATTLES_FILE_DOORS))
def test_a_bad_battle_is_refused_by_every_file_door(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], vote: BadVote, door: str
) -> None:
    file = _battles_file(tmp_path, vote)
    assert BATTLES_FILE_DOORS[door](file, tmp_path / "out") == 2
    err = _one_line(capsys)
    field = vote.fastchat[1] if vote.fastchat else vote.field
    assert f"{file} line {BAD_LINE}: field '{field}'" in err


def test_a_battle_without_images_is_taken_by_every_door(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = copy.deepcopy(sample_records("battle"))[:12]
    records[BAD]["images"] = None
    folder = write_json(tmp_path / "battle", records)
    for door in BATTLE_FOLDER_DOORS.values():
        assert door(folder, tmp_path / "out") == 0


VERDICT_ROWS: list[tuple[str, Callable[[Row], None], str]] = [
    ("null model", _path_set("model", None), "model"),
    ("model is the baseline", _path_set("model", BASELINE), "model"),
    ("three games", lambda r: r.update(games=r["games"] * 2), "games"),
    (
        "token count as text",
        _path_set("model_metadata.token_len", "many"),
        "model_metadata.token_len",
    ),
    ("repeated uid", lambda r: None, "uid"),
]


@pytest.mark.parametrize(
    ("name", "change", "field"), VERDICT_ROWS, ids=[v[0] for v in VERDICT_ROWS]
)
def test_a_bad_verdict_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, change: Any, field: str
) -> None:
    rows = [json.loads(line) for line in VERDICTS_FILE.open()][:20]
    change(rows[BAD_LINE - 1])
    if name == "repeated uid":
        rows[BAD_LINE - 1] = copy.deepcopy(rows[0])
    file = tmp_path / "verdicts.jsonl"
    file.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    argv = ["ratings", "verdicts", str(file), "--baseline", BASELINE, "--bootstrap", "3"]
    assert main([*argv, "--out", str(tmp_path / "b.json")]) == 2
    assert f"{file} line {BAD_LINE}: field '{field}'" in _one_line(capsys)


# The datasets of the tracks: each bad row through its builder and the run of its track (or,
# for VisionArena-Chat, the classifier command).


def _parquet_copy(
    tmp_path: Path, sample: str, relative: str, edit: Callable[[list[Row]], None]
) -> Path:
    folder = tmp_path / sample
    shutil.copytree(SAMPLES_ROOT / sample, folder)
    rows = pq.read_table(folder / relative).to_pylist()
    edit(rows)
    pq.write_table(
        pa.Table.from_pylist(rows, schema=pq.read_schema(folder / relative)), folder / relative
    )
    return folder


def _json_copy(tmp_path: Path, dataset: str, edit: Callable[[list[Row]], None]) -> Path:
    records = copy.deepcopy(sample_records(dataset))
    edit(records)
    return write_json(tmp_path / dataset, records)


def _run_track(tmp_path: Path, track: dict[str, Any]) -> int:
    config = tmp_path / "run.yaml"
    config.write_text(
        json.dumps(
            {
                "output_dir": str(tmp_path / "out"),
                "models": [{"backend": "oracle"}],
                "tracks": [track],
            }
        ),
        encoding="utf-8",
    )
    return run_eval.main(["--config", str(config)])


COIN = {"backend": "coin", "name": "coin"}
ANCHORS = SAMPLES_ROOT / "visionarena" / "bench" / "anchor_answers.jsonl"


def _classify(data: Path, tmp_path: Path) -> int:
    judge = tmp_path / "judge.yaml"
    judge.write_text("backend: coin\nname: coin\n", encoding="utf-8")
    return main(
        [
            "visionarena",
            "classify",
            str(data),
            "--judge",
            str(judge),
            "--out",
            str(tmp_path / "labels"),
        ]
    )


@dataclass(frozen=True)
class BadRow:
    """One bad row of a track's dataset: how to make the folder, what the errors name."""

    name: str
    folder: Callable[[Path], Path]
    where: str
    field: str
    doors: dict[str, Callable[[Path, Path], int]]


def _probench_edit(change: Callable[[list[Row]], None]) -> Callable[[Path], Path]:
    return lambda tmp: _parquet_copy(tmp, "probench", "data/train-00000-of-00001.parquet", change)


def _simplevqa_edit(change: Callable[[list[Row]], None]) -> Callable[[Path], Path]:
    return lambda tmp: _parquet_copy(tmp, "simplevqa", "test.parquet", change)


def _megabench_edit(change: Callable[[list[Row]], None]) -> Callable[[Path], Path]:
    return lambda tmp: _parquet_copy(tmp, "megabench", "core/test-00000-of-00001.parquet", change)


PROBENCH_DOORS = {
    "builder": lambda data, tmp: probench.main(
        ["--out", str(tmp / "hub"), "--data-dir", str(data), "--cache-dir", str(tmp / "c")]
    ),
    "run": lambda data, tmp: _run_track(
        tmp, {"name": "probench", "data_dir": str(data), "judge": COIN}
    ),
}
SIMPLEVQA_DOORS = {
    "builder": lambda data, tmp: simplevqa.main(
        ["--out", str(tmp / "hub"), "--data-dir", str(data), "--cache-dir", str(tmp / "c")]
    ),
    "run": lambda data, tmp: _run_track(
        tmp, {"name": "simplevqa", "data_dir": str(data), "options": {"grader": "offline_match"}}
    ),
}
MEGABENCH_DOORS = {
    "builder": lambda data, tmp: megabench.main(
        ["--data-dir", str(data), "--out", str(tmp / "hub"), "--cache-dir", str(tmp / "c")]
    ),
    "run": lambda data, tmp: _run_track(
        tmp, {"name": "megabench", "subset": "core", "data_dir": str(data)}
    ),
}
CHAT_DOORS = {
    "builder": lambda data, tmp: visionarena.main(
        ["chat", "--out", str(tmp / "hub"), "--data-dir", str(data), "--cache-dir", str(tmp / "c")]
    ),
    "classify": _classify,
}
BENCH_DOORS = {
    "builder": lambda data, tmp: visionarena.main(
        ["bench", "--out", str(tmp / "hub"), "--data-dir", str(data), "--cache-dir", str(tmp / "c")]
    ),
    "run": lambda data, tmp: _run_track(
        tmp,
        {
            "name": "visionarena_bench",
            "data_dir": str(data),
            "judge": COIN,
            "options": {"anchor_answers": str(ANCHORS)},
        },
    ),
}


def _set_row(index: int, dotted: str, value: Any) -> Callable[[list[Row]], None]:
    return lambda rows: _path_set(dotted, value)(rows[index])


def _copy_row(source: int, into: int) -> Callable[[list[Row]], None]:
    def change(rows: list[Row]) -> None:
        rows[into] = copy.deepcopy(rows[source])

    return change


def _swap_turns(rows: list[Row]) -> None:
    turns = rows[BAD]["conversations"]
    turns[0], turns[1] = turns[1], turns[0]


PROBENCH_ROWS = pq.read_table(
    SAMPLES_ROOT / "probench/data/train-00000-of-00001.parquet"
).to_pylist()
SIMPLEVQA_ROWS = pq.read_table(SAMPLES_ROOT / "simplevqa/test.parquet").to_pylist()
MEGABENCH_ROWS = pq.read_table(
    SAMPLES_ROOT / "megabench/core/test-00000-of-00001.parquet"
).to_pylist()
CHAT_ROWS = sample_records("chat")
BENCH_ROWS = sample_records("bench")

BAD_ROWS = [
    BadRow("probench turns out of order", _probench_edit(_swap_turns),
           f"train-00000-of-00001.parquet, uuid {PROBENCH_ROWS[BAD]['uuid']}", "conversations",
           PROBENCH_DOORS),
    BadRow("probench repeated uuid", _probench_edit(_copy_row(0, BAD)),
           f"train-00000-of-00001.parquet, uuid {PROBENCH_ROWS[0]['uuid']}", "uuid",
           PROBENCH_DOORS),
    BadRow("simplevqa empty answer", _simplevqa_edit(_set_row(BAD, "answer", " ")),
           f"test.parquet, data_id {SIMPLEVQA_ROWS[BAD]['data_id']}", "answer", SIMPLEVQA_DOORS),
    BadRow("simplevqa repeated data_id", _simplevqa_edit(_copy_row(0, BAD)),
           f"test.parquet, data_id {SIMPLEVQA_ROWS[0]['data_id']}", "data_id", SIMPLEVQA_DOORS),
    BadRow("megabench null id", _megabench_edit(_set_row(BAD, "id", None)),
           f"core/test-00000-of-00001.parquet row {BAD}", "id", MEGABENCH_DOORS),
    BadRow("megabench unknown metric",
           _megabench_edit(lambda rows: rows[BAD].update(
               metric_info=rows[BAD]["metric_info"].replace("exact_str_match", "no_such"))),
           f"core/test-00000-of-00001.parquet row {BAD}", "metric_info", MEGABENCH_DOORS),
    BadRow("chat blank model", lambda tmp: _json_copy(tmp, "chat", _set_row(1, "model", " ")),
           f"rows.json, conversation_id {CHAT_ROWS[1]['conversation_id']}", "model", CHAT_DOORS),
    BadRow("chat flag as text",
           lambda tmp: _json_copy(tmp, "chat", _set_row(1, "categories.ocr", "yes")),
           f"rows.json, conversation_id {CHAT_ROWS[1]['conversation_id']}", "categories.ocr",
           CHAT_DOORS),
    BadRow("bench without image", lambda tmp: _json_copy(tmp, "bench", _set_row(1, "images", [])),
           f"rows.json, question_id {BENCH_ROWS[1]['question_id']}", "images", BENCH_DOORS),
]  # fmt: skip


@pytest.mark.parametrize(
    ("bad", "door"),
    [(bad, door) for bad in BAD_ROWS for door in bad.doors],
    ids=[f"{bad.name}-{door}" for bad in BAD_ROWS for door in bad.doors],
)
def test_a_bad_row_of_a_track_is_refused_by_every_door(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: BadRow, door: str
) -> None:
    data = bad.folder(tmp_path)
    capsys.readouterr()
    assert bad.doors[door](data, tmp_path) == 2
    err = _one_line(capsys)
    assert bad.where in err and f"field '{bad.field}" in err, err
    assert not (tmp_path / "hub").exists()
