"""The engine's fast paths compute what the plain ones do: row order and merging, the legacy
random stream in 32 bits, integer and chunked bootstrap weights, shared board selection,
columnar board battles and the streamed CLI board."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vlmscope.ratings.boards.battle_presets import BattleSettings, battle_board, board_from_battles
from vlmscope.ratings.boards.board import with_skipped_rows
from vlmscope.ratings.fits import _newton, _paired_design, _paired_passes
from vlmscope.ratings.fits.bootstrap import bootstrap_style_control, resample_indices
from vlmscope.ratings.fits.style_control import battle_style_features, style_design
from vlmscope.ratings.inputs.battles import Battles, battle_row
from vlmscope.ratings.inputs.board_selection import BattleTable, BoardSelector
from vlmscope.ratings.inputs.filters import (
    BOARD_FILTERS,
    VISION_CATEGORIES,
    board_filter,
    select_battles,
)
from vlmscope.ratings.inputs.merged_rows import _row_order, merge_identical
from vlmscope.ratings.inputs.synthetic import synthetic_battles

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from make_battles import battle_lines, write_battles  # noqa: E402

from tests.ratings.same_battles import assert_same_battles  # noqa: E402


def _keys(rng: np.random.Generator, n: int) -> list[np.ndarray]:
    zero = rng.integers(0, 3, n) / 2.0
    zero[: n // 7] = -0.0  # ties with 0.0
    return [
        rng.integers(-3, 3, n),
        rng.integers(0, 4, n).astype(np.uint8),
        zero,
        rng.integers(0, 3, n) * 1.0,
        rng.integers(0, 2, n).astype(np.int32),
        rng.integers(0, 2, n) / 3.0,
        rng.normal(size=n),
    ]


@pytest.mark.parametrize("seed", range(40))
def test_row_order_is_lexsort(seed: int) -> None:
    rng = np.random.default_rng(seed)
    keys = _keys(rng, int(rng.integers(1, 400)))
    if seed % 2:
        keys = keys[::-1]
    keys = keys[: int(rng.integers(1, len(keys) + 1))]
    order, new_group = _row_order(keys)
    expected = np.lexsort(keys[::-1])
    np.testing.assert_array_equal(order, expected)
    starts = np.zeros(len(expected), dtype=bool)
    starts[0] = True
    for key in keys:
        ordered = key[expected]
        starts[1:] |= ordered[1:] != ordered[:-1]
    np.testing.assert_array_equal(new_group, starts)


def test_merge_of_style_rows_is_np_unique_order() -> None:
    b = synthetic_battles(3000, seed=4)
    feats = battle_style_features(b)
    merged = merge_identical([b.model_a, b.model_b, b.outcome, *feats.T])
    rows = np.column_stack([b.model_a, b.model_b, b.outcome, feats])
    unique, counts = np.unique(rows, axis=0, return_counts=True)
    np.testing.assert_array_equal(rows[merged.first], unique)
    np.testing.assert_array_equal(merged.weights, counts)


def test_legacy_stream_in_32_bits_is_the_same_stream() -> None:
    for n, rounds in ((7, 5), (1000, 30), (70_001, 3)):
        wide = np.vstack(list(resample_indices(n, rounds, seed=42)))
        narrow = np.vstack(list(resample_indices(n, rounds, seed=42, legacy_dtype=np.int32)))
        assert narrow.dtype == np.int32
        np.testing.assert_array_equal(wide, narrow)


def test_integer_and_chunked_weights_solve_like_float_weights() -> None:
    b = synthetic_battles(4000, seed=9)
    design = style_design(
        b.model_a, b.model_b, b.outcome, battle_style_features(b), None, b.n_models, 10.0
    )
    counts = np.random.default_rng(1).poisson(1.0, size=(20, design.n_rows))
    point = _newton.newton_solve(design, design.merged.weights, reg=0.5)[0]
    floats = _newton.newton_solve(design, counts.astype(np.float64), start=point, reg=0.5)
    small = _newton.newton_solve(design, counts.astype(np.uint8), start=point, reg=0.5)
    chunks = (
        _newton.LazyChunk(len(part), lambda part=part: part.astype(np.uint8))
        for part in np.array_split(counts, 3)
    )
    lazy = _newton.newton_solve(design, chunks, start=point, reg=0.5, n_rounds=20)
    np.testing.assert_allclose(small, floats, rtol=0, atol=1e-12)
    np.testing.assert_allclose(lazy, floats, rtol=0, atol=1e-12)


def test_reduceat_and_product_layouts_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    b = synthetic_battles(6000, seed=2)
    result = bootstrap_style_control(b, rounds=12, stream="randint")
    monkeypatch.setattr(_paired_design, "_SEGMENT_GEMM_ROWS", 10**9)  # every block by reduceat
    monkeypatch.setattr(_paired_design, "_BLOCK_ELEMENTS", 1 << 12)  # and many small blocks
    other = bootstrap_style_control(b, rounds=12, stream="randint")
    np.testing.assert_allclose(other.samples, result.samples, rtol=0, atol=1e-9)
    np.testing.assert_allclose(other.rating, result.rating, rtol=0, atol=1e-9)


def _records(n: int) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in battle_lines(n, seed=11)]
    for i, record in enumerate(records):  # some without tstamp / anony: file order, anonymous
        if i % 9 == 0:
            del record["tstamp"]
        if i % 11 == 0:
            del record["anony"]
        record["tstamp"] = record.get("tstamp", 1.7e9 + (i % 5)) if i % 13 else 1.7e9
    return records


@pytest.mark.parametrize(
    "category",
    [None, *(name for name in BOARD_FILTERS if name != "dedup"), "language: Russian"],
)
def test_selector_is_fastchat_selection(category: str | None) -> None:
    records = _records(600)
    flags = np.random.default_rng(5).random((len(records), len(VISION_CATEGORIES) + 1)) < 0.3
    for record, row in zip(records, flags, strict=True):  # every category board has battles
        tags = record.setdefault("category_tag", {})
        for (tag, flag), value in zip(VISION_CATEGORIES.values(), row, strict=False):
            tags[tag] = {flag: bool(value)}
        tags["refusal_v0.1"] = {"refusal": bool(row[-1])}
    defaulted = [{"anony": True, "tstamp": float(i), **r} for i, r in enumerate(records)]
    chosen = board_filter(category) if category else None
    expected = [
        id(records[defaulted.index(r)]) for r in select_battles(defaulted, filter_func=chosen)
    ]
    got = [id(r) for r in BoardSelector(records).select(category)]
    assert got == expected


def test_battle_table_is_from_rows() -> None:
    records = _records(400)
    rows = [battle_row(r, style=True) for r in records]
    table = BattleTable.from_rows(rows)
    positions = BoardSelector(records).positions("ocr")
    for style in (True, False):
        want = Battles.from_rows([rows[i] for i in positions], style=style)
        assert_same_battles(table.battles(positions, style), want)


def test_streamed_board_is_the_record_board(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from vlmscope.ratings.inputs.battle_stream import read_board_battles

    path = tmp_path / "battles.jsonl"
    write_battles(path, 1500, seed=5)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    settings = BattleSettings(reference="fastchat", rounds=8)
    by_records = battle_board(records, settings, style_companion=True)
    streamed = read_board_battles(path, style=True).battles
    streamed_board = board_from_battles(streamed, settings, style_companion=True)
    assert with_skipped_rows(streamed_board, {}) == by_records  # as the CLI writes it


def test_counts_are_plain_bincounts_of_unique_rows() -> None:
    from vlmscope.ratings.fits._paired_design import build_design
    from vlmscope.ratings.fits.bootstrap import _counts

    b = synthetic_battles(6000, n_models=3, seed=6)  # 18 unique rows: counts above 255
    merged_heavily = build_design(
        b.model_a, b.model_b, b.outcome, None, None, b.n_models, np.log(10.0)
    )
    feats = battle_style_features(b)
    unmerged = style_design(b.model_a, b.model_b, b.outcome, feats, None, b.n_models, 10.0)
    draws = list(np.random.RandomState(3).randint(0, len(b), size=(4, len(b))))
    few = np.round(feats, 1)  # some rows merge, most do not: the sparse sum
    lightly = style_design(b.model_a, b.model_b, b.outcome, few, None, b.n_models, 10.0)
    assert len(b) > lightly.n_rows > len(b) * 7 // 8
    for design in (merged_heavily, unmerged, lightly):
        got = _counts(design.merged, draws, None)
        want = [np.bincount(design.merged.inverse[row], minlength=design.n_rows) for row in draws]
        np.testing.assert_array_equal(got, np.array(want))
        assert np.iinfo(got.dtype).max >= int(np.max(want))
    assert _counts(merged_heavily.merged, draws, None).dtype != np.uint8  # a few rows, many draws
    weights = np.random.default_rng(0).uniform(0.5, 2.0, len(b))
    got = _counts(merged_heavily.merged, draws, weights)
    want = [
        np.bincount(
            merged_heavily.merged.inverse,
            np.bincount(row, minlength=len(b)) * weights,
            minlength=merged_heavily.n_rows,
        )
        for row in draws
    ]
    np.testing.assert_allclose(got, np.array(want), rtol=1e-12)


def test_parquet_reads_like_json_lines(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    from vlmscope.ratings.inputs.battle_stream import read_board_battles
    from vlmscope.ratings.inputs.battles import read_battle_records

    lines, table = tmp_path / "b.jsonl", tmp_path / "b.parquet"
    write_battles(lines, 1200, seed=4)
    write_battles(table, 1200, seed=4)
    for style in (True, False):
        x = read_board_battles(lines, style=style).battles
        y = read_board_battles(table, style=style).battles
        assert x.models == y.models
        for name in ("model_a", "model_b", "outcome", "weights", "style_a", "style_b"):
            u, v = getattr(x, name), getattr(y, name)
            assert (u is None) == (v is None) and (u is None or np.array_equal(u, v)), name
    rows = read_battle_records(table, style=True).rows
    assert [battle_row(r, style=True) for r in rows] == [
        battle_row(json.loads(line), style=True) for line in lines.read_text().splitlines()
    ]


def test_parquet_bad_rows_are_the_record_readers(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from vlmscope.ratings.inputs.battle_stream import read_board_battles
    from vlmscope.ratings.inputs.battles import read_battle_records
    from vlmscope.ratings.inputs.row_checks import BadRowError

    records = [json.loads(line) for line in battle_lines(300, seed=2)]
    records[7]["model_b"] = None
    records[40]["winner"] = "model_c"
    records[41]["conv_metadata"]["bold_count_a"]["**"] = -1
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist(records), path)
    with pytest.raises(BadRowError) as streamed:
        read_board_battles(path, style=True)
    with pytest.raises(BadRowError) as by_record:
        read_battle_records(path, style=True)
    assert str(streamed.value) == str(by_record.value)
    kept = read_board_battles(path, style=True, skip_bad_rows=True)
    checked = read_battle_records(path, style=True, skip_bad_rows=True)
    assert kept.skipped == checked.skipped and sum(kept.skipped.values()) == 3
    assert len(kept.battles) == len(BoardSelector(checked.rows).positions())


@pytest.mark.parametrize("shared", [False, True])  # rounds at one point: p computed once
@pytest.mark.parametrize("segment_rows", [1, 10**9])  # every segment by product / by reduceat
def test_gradient_and_hessian_are_the_dense_ones(
    segment_rows: int, shared: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_paired_design, "_SEGMENT_GEMM_ROWS", segment_rows)
    b = synthetic_battles(2000, seed=1)
    d = style_design(
        b.model_a, b.model_b, b.outcome, battle_style_features(b), None, b.n_models, 10.0
    )
    weights = np.random.default_rng(0).poisson(1.0, (5, d.n_rows)).astype(np.uint8)
    theta = np.random.default_rng(1).normal(0, 0.1, (5, d.n_params))
    if shared:
        theta[:] = theta[0]
    wyx = _paired_passes._label_sums(d, weights)
    grad, hess = _paired_passes._grad_hess(d, theta, weights, wyx, 0.5)
    assert hess is not None
    sizes = np.diff(np.append(d.pair_starts, len(d.labels)))
    pair = np.repeat(np.arange(len(d.pair_starts)), sizes)
    design = np.hstack([d.pair_incidence[pair], d.features])
    for r in range(len(theta)):
        p = 1.0 / (1.0 + np.exp(-design @ theta[r]))
        w = weights[r].astype(float)
        dense_grad = design.T @ (w * (p - d.labels)) + 0.5 * theta[r]
        dense_hess = design.T @ (design * (w * p * (1 - p))[:, None]) + 0.5 * np.eye(d.n_params)
        np.testing.assert_allclose(grad[r], dense_grad, rtol=1e-10, atol=1e-9)
        np.testing.assert_allclose(hess[r], dense_hess, rtol=1e-10, atol=1e-9)
