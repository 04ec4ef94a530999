"""A clean-battle JSON array (FastChat's file form) is read through the columnar JSON-lines
path when every row passes, and through the per-row checks otherwise: the same battles as the
JSON-lines file, and the same errors and counted skips, naming the index in the array."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from make_battles import battle_lines  # noqa: E402

from vlmscope.ratings.inputs import battle_stream  # noqa: E402
from vlmscope.ratings.inputs.battle_stream import read_board_battles  # noqa: E402
from vlmscope.ratings.inputs.row_checks import BadRowError  # noqa: E402


def _files(tmp_path: Path, records: list[dict[str, object]]) -> tuple[Path, Path]:
    lines, array = tmp_path / "b.jsonl", tmp_path / "b.json"
    lines.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    array.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return lines, array


def test_an_array_gives_the_battles_of_the_same_json_lines_without_the_per_row_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [json.loads(line) for line in battle_lines(2000, seed=9, models=30, arena_tags=True)]
    lines, array = _files(tmp_path, records)
    expected = read_board_battles(lines, style=True).battles

    def per_row(*args: object) -> None:
        raise AssertionError("the per-row path ran")

    monkeypatch.setattr(battle_stream, "_per_row", per_row)
    got = read_board_battles(array, style=True).battles
    assert got.models == expected.models
    for name in ("model_a", "model_b", "outcome", "weights", "style_a", "style_b"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))


def test_a_bad_row_in_an_array_is_named_by_its_index_or_counted(tmp_path: Path) -> None:
    records = [json.loads(line) for line in battle_lines(50, seed=4)]
    records[7]["winner"] = "model_c"
    _, array = _files(tmp_path, records)
    with pytest.raises(BadRowError, match="index 7"):
        read_board_battles(array, style=True)
    streamed = read_board_battles(array, style=True, skip_bad_rows=True)
    assert streamed.skipped == {"bad_winner": 1}
    assert len(streamed.battles) == len(
        read_board_battles(array, style=False, skip_bad_rows=True).battles
    )


def test_a_nan_in_an_array_is_a_bad_number(tmp_path: Path) -> None:
    records = [json.loads(line) for line in battle_lines(20, seed=2)]
    records[3]["tstamp"] = float("nan")
    _, array = _files(tmp_path, records)
    with pytest.raises(BadRowError, match="index 3"):
        read_board_battles(array)


def test_rating_a_battle_file_loads_neither_pandas_nor_scipys_optimisers(tmp_path: Path) -> None:
    """pandas, scipy.optimize and scipy.stats take seconds to import and the Newton fits need
    none of them (the connectivity check's scipy.sparse is needed, and light)."""
    import subprocess

    records = [json.loads(line) for line in battle_lines(300, seed=6)]
    lines, array = _files(tmp_path, records)
    code = (
        "import json, sys\n"
        "from vlmscope.cli import main\n"
        f"for source in ({str(lines)!r}, {str(array)!r}):\n"
        "    main(['ratings', 'battles', source, '--reference', 'fastchat', '--style-control',\n"
        f"          '--bootstrap', '5', '--out', {str(tmp_path / 'board.json')!r}])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'pandas' "
        "or m in ('scipy.optimize', 'scipy.stats'))))"
    )
    finished = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(finished.stdout.splitlines()[-1]) == []
