"""The overview table over real runs (MEGA-Bench, SimpleVQA, a plugin track without headlines), a
rating board of human battles, a hostile result and `--limit` debug runs (one beside a full run,
one alone)."""

from __future__ import annotations

import math
from pathlib import Path

from tests.leaderboard.fabricate import (
    HOSTILE_MODEL,
    LIMITED_MODEL,
    overview_order,
    run_megabench_oracle,
)
from vlmscope.leaderboard.load import ResultsLocation
from vlmscope.leaderboard.overview import overview_frame, samples_text
from vlmscope.leaderboard.overview_cells import overview_cells
from vlmscope.leaderboard.records import SummaryRecord, count_map, json_object
from vlmscope.leaderboard.result_store import ResultStore
from vlmscope.leaderboard.track_info import ordered_tracks, track_title
from vlmscope.leaderboard.widths import (
    CHAR_PX,
    REFERENCE_PX,
    ROW_NUMBERS_PX,
    SCROLLBAR_PX,
    column_px,
    fit_widths,
    words,
)


def _row(frame, model):  # noqa: ANN001, ANN202
    return frame[frame["Model"] == model].iloc[0]


def test_one_row_per_model_with_each_tracks_headline(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    assert list(frame["Model"]) == overview_order()
    oracle = _row(frame, "oracle")
    assert (oracle["MEGA-Bench overall"], oracle["MEGA-Bench Core"], oracle["MEGA-Bench Open"]) == (
        87.5,
        100.0,
        0.0,
    )
    assert math.isnan(oracle["SimpleVQA F"]) and math.isnan(oracle["VisionArena rating"])
    weak = _row(frame, "svqa-weak")
    assert (weak["SimpleVQA F"], weak["SimpleVQA CGA"]) == (40.0, 50.0)
    anchor = _row(frame, "mixtral-8x7b-instruct-v0.1")  # FastChat pins it at 1114
    assert anchor["VisionArena rating"] == 1114.0
    assert not any(c.endswith("95% CI") for c in frame.columns)  # under each number instead
    at = (
        list(frame["Model"]).index(anchor["Model"]),
        list(frame.columns).index("VisionArena rating"),
    )
    shown = overview_cells(frame, store.summaries, store.boards).display[at[0]][at[1]]
    assert shown.split("\n")[:2] == ["1114", "+0.0 / -0.0"]


def test_columns_follow_the_registered_tracks_then_the_others(store: ResultStore) -> None:
    columns = list(overview_frame(store.summaries, store.boards).columns)
    firsts = [columns.index(c) for c in ("MEGA-Bench overall", "SimpleVQA F", "Colours accuracy")]
    assert firsts == sorted(firsts) and columns.index("VisionArena rating") > firsts[-1]
    assert ordered_tracks(["zeta", "visionarena", "simplevqa", "megabench"]) == [
        "megabench",
        "simplevqa",
        "visionarena",
        "zeta",
    ]
    assert track_title("megabench") == "MEGA-Bench" and track_title("visionarena") == "VisionArena"
    assert track_title("colours") == "Colours"  # the plugin's registration names it


def test_run_columns_count_failures_and_flags(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    oracle = _row(frame, "oracle")
    assert (oracle["Failed"], oracle["Unparseable"], oracle["Other flags"]) == (0, 0, 2)  # no judge
    hostile = _row(frame, HOSTILE_MODEL)
    assert (hostile["Failed"], hostile["Unparseable"], hostile["Other flags"]) == (1, 1, 0)
    assert hostile["Run date"] == "2026-01-02" and hostile["Config hash"] == "fab1e5"
    assert len(oracle["Config hash"]) == 16
    arena = _row(frame, "glm-4v-72b-07")  # rated on a board only: the board's date
    assert arena["Run date"] == store.boards["visionarena"].finished_at[:10]
    assert (arena["Failed"], arena["Unparseable"], arena["Other flags"]) == (0, 0, 0)


def test_no_results_give_an_empty_overview() -> None:
    frame = overview_frame([], {})
    assert frame.empty and list(frame.columns)[0] == "Model"


def test_bad_json_columns_read_as_empty() -> None:
    assert json_object("not json") == {} and json_object("[1]") == {} and json_object(None) == {}
    assert count_map('{"ok": 3, "bad": "x", "flag": true}') == {"ok": 3}


def test_a_limited_run_never_hides_the_full_run(store: ResultStore) -> None:
    """The oracle's `--limit 1` run (one query per task: 8 samples) finished after its full run
    (16), into the same results: the overview shows the full run, and the debug run is set aside."""
    shown = store.summary("megabench", "oracle")
    assert (shown.n_samples, shown.limit, shown.folder.parts[-3]) == (16, None, "megabench_run")
    [aside] = store.set_aside
    assert (aside.model, aside.n_samples, aside.limit) == ("oracle", 8, 1)
    assert aside.finished_at >= shown.finished_at and aside.folder.parts[-3] == "megabench_debug"
    oracle = _row(overview_frame(store.summaries, store.boards), "oracle")
    assert (oracle["Samples"], oracle["Other flags"]) == ("16", 2)  # the full run's: 2 open queries


def test_a_run_with_only_a_limited_run_is_marked(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    quick = _row(frame, LIMITED_MODEL)
    assert (quick["Colours accuracy"], quick["Samples"]) == (100.0, "3 (limit 3)")
    assert _row(frame, "colour-oracle")["Samples"] == "8"
    assert _row(frame, "glm-4v-72b-07")["Samples"] == ""  # rated on a board: no samples of its own


def test_a_megabench_debug_run_alone_is_marked(tmp_path: Path) -> None:
    """`--limit 1` on MEGA-Bench keeps the first query of each of the sample's 8 tasks."""
    run_megabench_oracle(tmp_path / "debug", limit=1)
    store = ResultStore(ResultsLocation.local(tmp_path))
    oracle = _row(overview_frame(store.summaries, store.boards), "oracle")
    assert (oracle["Samples"], oracle["Other flags"]) == ("8 (limit 1)", 1)
    assert store.set_aside == []


def _record(
    track: str, n: int, limit: int | None = None, finished: str = "2026-01-01"
) -> SummaryRecord:
    return SummaryRecord(
        "m", track, n, {}, {}, {}, "", finished, finished, Path(finished), limit=limit
    )


def test_samples_give_a_count_per_track_in_column_order() -> None:
    """One short cell however many tracks (it wrapped to six lines when it named each)."""
    runs = [_record("simplevqa", 10, limit=5), _record("megabench", 505)]
    assert samples_text(runs) == "505/10 (limit 5)"  # MEGA-Bench's column comes first
    assert samples_text([_record("megabench", 7, limit=1)]) == "7 (limit 1)"
    assert samples_text([]) == ""


def test_the_overview_fits_a_1280_px_window(store: ResultStore) -> None:
    """Every column at least as wide as its title's longest word and the whole table inside the
    width of a 1280 px window (the browser test checks the page itself)."""
    frame = overview_frame(store.summaries, store.boards)
    widths = [float(w.removesuffix("%")) / 100 * REFERENCE_PX for w in fit_widths(frame)]
    assert len(widths) == len(frame.columns)
    assert sum(widths) + ROW_NUMBERS_PX + SCROLLBAR_PX <= REFERENCE_PX + 0.5
    for width, title in zip(widths, frame.columns, strict=True):
        assert width >= max(len(w) for w in words(title)) * CHAR_PX
    assert words("MEGA-Bench overall") == ["MEGA-", "Bench", "overall"]
    assert words("2026-11-24") == ["2026-11-24"]  # no break before a digit
    # the model's name gets its room; a long config hash breaks over lines
    assert widths[0] >= 16 * CHAR_PX
    assert column_px("Config hash", frame["Config hash"]) < 16 * CHAR_PX
