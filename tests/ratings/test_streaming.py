"""The streamed columnar battle reader gives what the per-row reader gives."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from vlmscope.ratings.boards.battle_presets import BattleSettings, rate_table
from vlmscope.ratings.inputs.battle_stream import _per_row, read_board_battles
from vlmscope.ratings.inputs.row_checks import BadRowError

pytest.importorskip("pyarrow")

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "arena" / "battles_5k.jsonl"
sys.path.insert(0, str(ROOT / "benchmarks"))
from make_battles import write_battles  # noqa: E402

from tests.ratings.same_battles import assert_same_battles  # noqa: E402


@pytest.fixture(scope="module")
def bad_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("battles") / "bad.jsonl"
    write_battles(path, 3000, seed=7, bad=25)
    return path


@pytest.fixture(scope="module")
def clean_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("battles") / "clean.jsonl"
    write_battles(path, 4000, seed=3)
    return path


@pytest.mark.parametrize("style", [True, False])
@pytest.mark.parametrize("block_bytes", [1 << 16, 1 << 25])
def test_golden_same_battles_and_board(style: bool, block_bytes: int) -> None:
    fast = read_board_battles(GOLDEN, style=style, block_bytes=block_bytes)
    slow = _per_row(GOLDEN, style, False)
    assert_same_battles(fast.battles, slow.battles)
    assert fast.skipped == {} == slow.skipped
    settings = BattleSettings(reference="fastchat", style_control=style, rounds=5)
    assert rate_table(fast.battles, settings) == rate_table(slow.battles, settings)


def test_generated_clean_file(clean_file: Path) -> None:
    fast = read_board_battles(clean_file, style=True, block_bytes=1 << 17)
    assert_same_battles(fast.battles, _per_row(clean_file, True, False).battles)


@pytest.mark.parametrize("style", [True, False])
@pytest.mark.parametrize("block_bytes", [1 << 15, 1 << 25])
def test_bad_rows_same_skips(bad_file: Path, style: bool, block_bytes: int) -> None:
    fast = read_board_battles(bad_file, style=style, skip_bad_rows=True, block_bytes=block_bytes)
    slow = _per_row(bad_file, style, True)
    assert_same_battles(fast.battles, slow.battles)
    assert fast.skipped == slow.skipped
    assert len(fast.skipped) >= 3
    assert fast.first_skipped == slow.first_skipped


@pytest.mark.parametrize("block_bytes", [1 << 15, 1 << 25])
def test_bad_rows_same_error(bad_file: Path, block_bytes: int) -> None:
    with pytest.raises(BadRowError) as slow:
        _per_row(bad_file, True, False)
    with pytest.raises(BadRowError) as fast:
        read_board_battles(bad_file, style=True, block_bytes=block_bytes)
    assert str(fast.value) == str(slow.value)
    assert f"{bad_file} line " in str(fast.value)


def test_blank_lines_and_missing_fields(tmp_path: Path) -> None:
    lines = GOLDEN.read_text(encoding="utf-8").split("\n")[:300]
    lines[10] = ""
    lines[20] = lines[20].replace('"tstamp":', '"tstamp_x":')
    lines[30] = lines[30].replace('"anony":', '"anony_x":')
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    assert_same_battles(
        read_board_battles(path, style=True, block_bytes=1 << 14).battles,
        _per_row(path, True, False).battles,
    )
