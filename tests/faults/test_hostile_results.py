"""Hostile result folders: the Space loads them and every page shows them as inert text.

The folders stand for untrusted data (a results repo anyone can push to): model and track names
carrying HTML, script and Markdown links, sample ids that look like paths out of the results
(`../../etc/passwd`), metadata naming such paths as the task to rebuild a prompt from, and
strings of 1 MB (a response, an error, a score note, a model name). They are written by the
real writers where a writer can write them, and by hand where none would (a 1 MB model name
cannot be a folder name, so it is put into a written folder's parquet afterwards).

Checked on the page functions' output, not in a browser (`tests/leaderboard/test_browser.py`
runs the payloads in Chromium): text goes to text boxes verbatim, tables are typed `str` or
`number` (never `html` or `markdown`), chart labels and Markdown notes come out escaped, no
value becomes a path, and the whole Space layout builds. `-m slow` also opens every tab of
the Space in Chromium, when it is installed, and checks that no payload ran.
"""

from __future__ import annotations

import html
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.leaderboard.fabricate import track_result
from vlmscope.leaderboard import browsed_samples as sv
from vlmscope.leaderboard.charts import rating_points
from vlmscope.leaderboard.load import ResultsLocation, find_result_folders
from vlmscope.leaderboard.long_values import shown
from vlmscope.leaderboard.overview import overview_frame
from vlmscope.leaderboard.rating_view import (
    OVERALL,
    board_note,
    board_view,
    rating_frame,
    ratings_of,
    view_label,
)
from vlmscope.leaderboard.result_store import ResultStore, UnknownRun
from vlmscope.leaderboard.sample_prompts import prompt_data_dirs, prompt_view
from vlmscope.leaderboard.track_info import track_title
from vlmscope.leaderboard.values import column_types
from vlmscope.messages import Response, Status, user_request
from vlmscope.ratings.boards.battle_presets import BattleSettings, rate_battles
from vlmscope.ratings.boards.board import RatingBoard
from vlmscope.runner.results import (
    BoardResult,
    board_dir,
    write_board_result,
    write_result,
)
from vlmscope.tracks.base import Sample, Scored

MB = 2**20
PAYLOAD = "<script>window.__pwned=1</script><img src=x onerror=window.__pwned=1>"
LINK = "[click me](javascript:window.__pwned=1)"
HOSTILE_MODEL = f"evil{PAYLOAD}{LINK}**bold**"
HOSTILE_TRACK = f"arena{PAYLOAD}"
HUGE = "<b>" + "x" * MB  # 1 MB of text, markup at its head
HUGE_MODEL = "huge-" + "m" * MB
SHOWN_HUGE_MODEL = shown(HUGE_MODEL, "model", [])  # cut for display, its length said
TRAVERSAL = ("../../etc/passwd", "..\\..\\windows\\win.ini", "/etc/shadow", "%2e%2e%2fetc%2fpasswd")
TRAVERSAL_META = {"task_name": "../../../../etc/passwd", "row_id": "../../etc/shadow",
                  "data_id": "../../etc/passwd", "cot": True}  # fmt: skip
TAG = re.compile(r"<[A-Za-z/!?]")  # what a browser would start a tag or comment at


def _row(
    sample_id: str, response: Response, meta: dict[str, Any]
) -> tuple[Sample, Response, Scored]:
    sample = Sample(sample_id, user_request(f"question {PAYLOAD}"), meta)
    scored = Scored(
        sample_id,
        {"accuracy": 0.5, PAYLOAD: 1.0},
        parsed=PAYLOAD,
        outcome="ok" if response.ok else "request_failed",
        extra={"judge_replies": {f"<b>{sample_id}</b>": PAYLOAD}, "judge_error": HUGE},
    )
    return sample, response, scored


def _write(out: Path, model: str, track: str, rows: list[tuple[Sample, Response, Scored]]) -> Path:
    summary = {"accuracy": 0.5, PAYLOAD: 0.25, "note": HUGE}
    result = replace(track_result(model, track, summary, rows), config_hash=f"hash{PAYLOAD}")
    return write_result(out, result)


def _set_model(folder: Path, model: str) -> None:
    """Put another model name into a written folder, as a hand edit of the parquet would."""
    for config in ("summary", "details"):
        for shard in (folder / config).glob("test-*.parquet"):
            table = pq.read_table(shard)
            index = table.schema.get_field_index("model")
            column = pa.array([model] * table.num_rows, pa.string())
            pq.write_table(table.set_column(index, "model", column), shard)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile") / "results"
    meta = {"question": PAYLOAD, "answer": PAYLOAD, **TRAVERSAL_META}
    answered = [_row(i, Response(PAYLOAD), meta) for i in TRAVERSAL]
    answered.append(_row(PAYLOAD, Response(HUGE), meta))
    failed = _row("failed/0", Response("", status=Status.REQUEST_FAILED, error=HUGE), meta)
    _write(out / "a", HOSTILE_MODEL, "colours", [*answered, failed])
    _write(out / "b", "../../etc/passwd", "megabench", answered[:1])
    _set_model(_write(out / "c", "renamed-later", "colours", answered[:1]), HUGE_MODEL)
    battles = [
        {"model_a": a, "model_b": b, "winner": w}
        for a, b in ((HOSTILE_MODEL, "../../etc/passwd"), ("../../etc/passwd", "plain"))
        for w in ("model_a", "model_b", "model_a")
    ]
    board = RatingBoard.from_json(rate_battles(battles, BattleSettings(rounds=10, seed=0)))
    result = BoardResult(HOSTILE_TRACK, board, battles, f"run{PAYLOAD}", "", "2026", "2026")
    write_board_result(board_dir(out / "d", HOSTILE_TRACK), result)
    return out


@pytest.fixture(scope="module")
def store(hostile: Path) -> ResultStore:
    return ResultStore(ResultsLocation.local(hostile))


def _no_tags(text: str) -> bool:
    """Text in which HTML can start no element (Plotly labels, HTML)."""
    return TAG.search(text) is None


def _inert_markdown(text: str) -> bool:
    """Markdown in which data can start no element and no link (`[x](javascript:...)`)."""
    return _no_tags(text) and "](javascript" not in text


def test_everything_loads_from_inside_the_results(hostile: Path, store: ResultStore) -> None:
    folders = find_result_folders(ResultsLocation.local(hostile))
    assert len(folders) == 4 and all(f.is_relative_to(hostile.resolve()) for f in folders)
    assert store.problems == []  # odd names and huge strings are data, not damage
    assert [p.error for p in store.suspicious] == [  # a name of a megabyte is shown cut
        f"shown with texts cut: model ({len(HUGE_MODEL):,} characters)"
    ]
    models = {(r.track, r.model) for r in store.summaries}
    assert models == {
        ("colours", HOSTILE_MODEL),
        ("colours", SHOWN_HUGE_MODEL),
        ("megabench", "../../etc/passwd"),
    }
    assert list(store.boards) == [HOSTILE_TRACK]
    with pytest.raises(UnknownRun):  # a name from the page is looked up, never opened
        store.details("colours", "../../etc/passwd")
    print(f"\nhostile results: {len(folders)} folders, {len(store.summaries)} runs, "
          f"{len(store.boards)} board, {len(store.problems)} problems")  # fmt: skip


def test_tables_are_plain_text_with_the_names_verbatim(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    assert set(column_types(frame.dtypes)) <= {"str", "number"}
    assert {HOSTILE_MODEL, SHOWN_HUGE_MODEL, "../../etc/passwd"} <= set(frame["Model"])
    ratings = rating_frame(board_view(store.boards[HOSTILE_TRACK].board))
    assert set(column_types(ratings.dtypes)) <= {"str", "number"}
    assert set(ratings["Model"]) == {HOSTILE_MODEL, "../../etc/passwd", "plain"}
    print(f"  overview: {len(frame)} rows x {len(frame.columns)} columns, types "
          f"{sorted(set(column_types(frame.dtypes)))}")  # fmt: skip


def test_chart_labels_and_notes_are_escaped(store: ResultStore) -> None:
    record = store.boards[HOSTILE_TRACK]
    title = track_title(HOSTILE_TRACK)
    view = board_view(record.board)
    # drawn whatever its votes (the page lists a board this small as too few to rate)
    figure = rating_points(ratings_of(view, minimum=0), view_label(title, OVERALL, False, view))
    labels = list(figure.data[0].x)
    assert html.escape(HOSTILE_MODEL, quote=False) in labels
    assert all(_no_tags(label) for label in [*labels, figure.layout.title.text])
    note = board_note(record, title)
    assert _inert_markdown(note) and "&lt;script&gt;" in note
    print(f"  chart labels: {len(labels)}, escaped; board note: {len(note)} characters, escaped")


def test_samples_show_as_text_and_ids_stay_names(store: ResultStore) -> None:
    rows = store.details("colours", HOSTILE_MODEL)
    choices = sv.sample_choices(rows, sv.ALL_TASKS)
    assert [value for _, value in choices] == [*TRAVERSAL, PAYLOAD, "failed/0"]
    shown = 0
    for sample_id in (*TRAVERSAL, PAYLOAD, "failed/0"):
        row = sv.find_sample(rows, sample_id)
        assert row is not None and row["sample_id"] == sample_id
        view = sv.sample_view(row)  # every field is a text box's value, whatever it holds
        assert view.parsed == PAYLOAD and PAYLOAD in view.judge and HUGE in view.judge
        assert set(view.scores["Score"]) == {"accuracy", PAYLOAD}
        shown += 1
    huge = sv.sample_view(sv.find_sample(rows, PAYLOAD))  # type: ignore[arg-type]
    assert huge.response == HUGE  # 1 MB, kept whole
    failed = sv.sample_view(sv.find_sample(rows, "failed/0"))  # type: ignore[arg-type]
    assert "request_failed" in failed.status and HUGE in failed.status
    print(f"  samples: {shown} shown as text, ids {list(TRAVERSAL)} kept as names")


def test_path_like_metadata_rebuilds_no_prompt(store: ResultStore) -> None:
    dirs = prompt_data_dirs({})
    for track, model in (("megabench", "../../etc/passwd"), ("colours", HOSTILE_MODEL)):
        row = store.details(track, model)[0]
        view = sv.sample_view(row)
        assert view.meta["task_name"] == TRAVERSAL_META["task_name"]
        prompt = prompt_view(track, view.meta, dirs)
        # no data row has such a name: the question kept in the metadata, shown as text
        assert prompt.images == [] and prompt.text == PAYLOAD
        assert "/etc" not in prompt.note and "passwd" not in prompt.note


def test_the_space_builds_with_only_escaped_markup(store: ResultStore) -> None:
    gr = pytest.importorskip("gradio")
    from vlmscope.cli.space import app

    demo = app.build_app(store)
    blocks = list(demo.blocks.values())
    markdown = [b.value for b in blocks if isinstance(b, gr.Markdown | gr.HTML)]
    tables = [b for b in blocks if isinstance(b, gr.Dataframe)]
    ids = [b.elem_id for b in blocks if getattr(b, "elem_id", None)]
    assert all(_inert_markdown(str(text)) for text in markdown)
    assert all(set(t.datatype if isinstance(t.datatype, list) else [t.datatype]) <= {"str", "number"}
               for t in tables)  # fmt: skip
    assert all("<" not in i and " " not in i for i in ids)
    print(f"  Space: {len(blocks)} blocks, {len(markdown)} Markdown all escaped, "
          f"{len(tables)} tables typed str/number")  # fmt: skip


@pytest.mark.slow
def test_the_space_runs_nothing_in_a_browser(hostile: Path, tmp_path: Path) -> None:
    """The Space over the hostile folder in Chromium: every tab opened, no payload runs."""
    sync_api = pytest.importorskip("playwright.sync_api")
    # skips this test, as that module does, where Chromium is not installed
    from tests.leaderboard.test_browser import CHROMIUM, LAUNCH_ARGS, browse, serve

    with serve(hostile, tmp_path) as (url, outside), sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        with browse(browser, url) as watched:
            page = watched.page
            tabs = page.get_by_role("tab").all_inner_texts()
            for name in tabs:
                page.get_by_role("tab", name=name, exact=True).first.click()
                page.wait_for_timeout(800)
                assert page.evaluate("window.__pwned") is None, name
                assert page.locator("img[src='x']").count() == 0, name  # no element from data
            assert watched.dialogs == [] and watched.outside == []
        browser.close()
        assert not outside.exists() or outside.read_text() == ""
    print(f"\n  browser: {len(tabs)} tabs opened, no payload ran, no dialog, nothing outside")
