"""vlmscope leaderboard Space: renders the result datasets and rating boards vlmscope writes.

    vlmscope space results/demo                     # or: VLMSCOPE_RESULTS_DIR=results/demo
    vlmscope space --repo ORG/vlmscope-results      # or: VLMSCOPE_RESULTS_REPO=...

One tab per track found (registered tracks first), each with the page `track_pages.page_for`
picks, and a Topics tab when the results hold topic maps (`vlmscope visionarena topics`). This file only lays out Gradio components; what they show comes from `vlmscope.leaderboard`
(pure, unit-tested functions). The app reads the results location once at start and never
writes to it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

from vlmscope.arena.service import Arena  # noqa: E402
from vlmscope.cli.space.arena_tab import ArenaClosed, arena_from_env, arena_tab, closed_tab  # noqa: E402
from vlmscope.cli.space.compare_page import TAB_ID as COMPARE_TAB  # noqa: E402
from vlmscope.cli.space.compare_page import base_url, compare_tab  # noqa: E402
from vlmscope.cli.space.judge_sections import cost_section  # noqa: E402
from vlmscope.cli.space.sample_page import sample_tab  # noqa: E402
from vlmscope.cli.space.second_lines import FIRST_LINE_CSS, INTERVAL_CSS  # noqa: E402
from vlmscope.cli.space.sideways import OVERVIEW_ID, OVERVIEW_MAX_PX, sideways_css  # noqa: E402
from vlmscope.cli.space.topics_page import topics_tab  # noqa: E402
from vlmscope.cli.space.track_pages import page_for, probench_tab  # noqa: E402
from vlmscope.cli.space.widgets import dom_id, table  # noqa: E402
from vlmscope.leaderboard.data_origin import data_note  # noqa: E402
from vlmscope.leaderboard.load import location_from_env  # noqa: E402
from vlmscope.leaderboard.overview import overview_frame, skipped_frame  # noqa: E402
from vlmscope.leaderboard.overview_cells import overview_cells  # noqa: E402
from vlmscope.leaderboard.probench_gaps import unfitted_lines  # noqa: E402
from vlmscope.leaderboard.records import by_model  # noqa: E402
from vlmscope.leaderboard.replaced_boards import hidden_lines  # noqa: E402
from vlmscope.leaderboard.result_store import Problem, ResultStore  # noqa: E402
from vlmscope.leaderboard.safe_html import markdown_literal  # noqa: E402
from vlmscope.leaderboard.sample_prompts import prompt_data_dirs  # noqa: E402
from vlmscope.leaderboard.stand_in_banner import (  # noqa: E402
    BANNER_ID,
    all_stand_ins,
    banner,
    track_stand_ins,
)
from vlmscope.leaderboard.topics_view import find_topic_sets  # noqa: E402
from vlmscope.leaderboard.track_info import track_title  # noqa: E402
from vlmscope.leaderboard.widths import fit_widths  # noqa: E402

TITLE = "vlmscope leaderboard"
# The overview's column widths (`fit_widths`) fit a 1280 px window in this font and padding
# (10 px: the four tracks of the demo, ten score columns, fit beside the run columns); its
# titles, and the cost table's, wrap between words only, never inside one ("Reques-ts"); cells
# anywhere (a config hash breaks over two lines). A track's wide table (`table(..., fit=True)`)
# is laid out the same way, its titles too. In a narrower window each keeps that layout and
# scrolls sideways in its frame, the model's name pinned (`sideways`), rather than squeezing
# columns below their titles' words. The lines under a number in the overview (its interval, rank
# band or `(no CI)`) are smaller and grey (`second_lines`), so they read as the number's, not as
# values of their own.
CSS = (
    """
#overview-table .header-cell, #overview-table .body-cell, #overview-table .sizing-body td,
.fit-table .header-cell, .fit-table .body-cell, .fit-table .sizing-body td {
  font-size: var(--text-xs);
}
#overview-table .header-cell .cell-wrap, #overview-table .body-cell .cell-wrap,
.fit-table .header-cell .cell-wrap, .fit-table .body-cell .cell-wrap {
  padding-left: 5px; padding-right: 5px;
}
#overview-table .header-cell span, #cost-table .header-cell span, .fit-table .header-cell span {
  word-break: keep-all; overflow-wrap: normal;
}
#overview-table .header-cell .header-icons, .fit-table .header-cell .header-icons {
  position: absolute; right: 2px; bottom: 2px;
}
#overview-table .body-cell span, .fit-table .body-cell span {
  word-break: normal; overflow-wrap: anywhere; white-space: pre-line;
}
"""
    + sideways_css()
    + FIRST_LINE_CSS
    + INTERVAL_CSS
)
# The default theme is fine offline too; system fonts make it explicit that no font is fetched.
THEME = gr.themes.Default(
    font=["ui-sans-serif", "system-ui", "sans-serif"], font_mono=["ui-monospace", "monospace"]
)
OVERVIEW_NOTE = (
    "Scores in %, ratings on their own scale. Under each number, its 95% interval as how far it "
    "reaches above and below (+above / -below), or **(no CI)** when it has none (the reasons "
    "are listed under the table). **rank N**: the model's rank band on the track, as the boards "
    "rank: one plus the number of models whose whole interval lies above its own, so models "
    "that are statistically tied share a rank. "
    "Click a column header to sort; the search box filters every column. "
    "**Failed**: requests that got no response; **Unparseable**: answers or verdicts that could "
    "not be read; **Other flags**: any other item not scored normally (e.g. no judge, over the "
    "image budget); **Cut off in reasoning** (shown when a model reasoned): replies that ended "
    "inside their reasoning trace, so they have no answer. **Samples**: how many samples the "
    "scores stand on, one count per track it ran, in the order of the columns (`14/6`). These "
    "are counts of items, exact rather than estimated, so they have no interval; run date and "
    "config hash are facts of the run. Each model shows its latest full run of each track; a "
    "quick run made with `--limit N` shows only where the model "
    "has no full run of the track, marked `(limit N)` in Samples."
)
SUSPICIOUS_NOTE = (
    "### Result folders shown with texts cut\n"
    "These folders hold texts far longer than any name (a damaged or unusual upload); they are "
    "shown with those texts cut. Each is named by its path inside the results."
)
NO_INTERVAL_NOTE = "**Numbers without an interval** (marked (no CI) above), and why:"
HIDDEN_BOARDS_NOTE = (
    "Each track shows its latest rating board; an earlier board rates models the shown one "
    "does not (a board is one fit, so two runs' boards are not merged: rate the runs together "
    "to see every model on one board). Rated only on a board not shown:"
)
SKIPPED_NOTE = (
    "### Skipped result folders\n"
    "These folders under the results could not be read and are left out; every other result "
    "is shown. Each is named by its path inside the results, with the reason."
)


def build_app(store: ResultStore, arena: Arena | ArenaClosed | None = None) -> gr.Blocks:
    """The Space over `store`; with `arena` (an arena config given) also the Arena tab, which
    says so in a sentence when the arena is closed."""
    with gr.Blocks(title=TITLE, fill_width=True) as demo:
        gr.Markdown(f"# {TITLE}")
        gr.Markdown(found_note(store))
        with gr.Tabs() as tabs:
            with gr.Tab("Overview", id="overview"):
                overview_tab(store)
            if arena is not None:
                with gr.Tab("Arena", id="arena"):
                    closed_tab() if isinstance(arena, ArenaClosed) else arena_tab(arena)
            for track in store.tracks():
                with gr.Tab(track_title(track), id=dom_id("track", track)):
                    stand_ins = track_stand_ins(store.summaries, store.boards, track)
                    if stand_ins:
                        gr.Markdown(banner(stand_ins), elem_id=dom_id(track, BANNER_ID))
                    page_for(store, track)(store, track)
                    if note := data_note(store.summaries, track):
                        gr.Markdown(note, elem_id=dom_id(track, "data"))
            topic_sets, skipped_topics = find_topic_sets(store.location)
            if topic_sets:
                with gr.Tab("Topics", id="topics"):
                    topics_tab(topic_sets, skipped_topics)
            with gr.Tab("Samples", id="samples"):
                sample_tab(store, prompt_data_dirs(os.environ))
            with gr.Tab("Compare", id=COMPARE_TAB):
                compared, outputs = compare_tab(store, prompt_data_dirs(os.environ))

        def open_page(request: gr.Request) -> list[Any]:
            """Fill the Compare tab; a link to a compared sample opens the tab on it."""
            linked, shown = compared.open_link(dict(request.query_params), base_url(request))
            return [gr.update(selected=COMPARE_TAB) if linked else gr.update(), *shown]

        demo.load(open_page, None, [tabs, *outputs])
    return demo


def found_note(store: ResultStore) -> str:
    found = [f"{len(store.summaries)} result datasets"] if store.summaries else []
    if store.boards:
        found.append(f"{len(store.boards)} rating board{'s' if len(store.boards) > 1 else ''}")
    what = " and ".join(found) or "No result datasets"
    note = f"{what} from {markdown_literal(store.location.source)}."
    if store.missing:
        note = f"No results: {markdown_literal(store.location.source)} does not exist."
    if store.set_aside:
        n = len(store.set_aside)
        note += (
            f" {n} `--limit` run{'s' if n > 1 else ''} left out: the same model has a full run "
            "of the track."
        )
    if store.problems:
        n = len(store.problems)
        note += f" {n} result folder{'s' if n > 1 else ''} skipped (listed under the overview)."
    if store.suspicious:
        n = len(store.suspicious)
        note += f" {n} shown with texts cut (listed under the overview)."
    if store.hidden_boards:
        hidden = "; ".join(markdown_literal(line) for line in hidden_lines(store.hidden_boards))
        note += f" {HIDDEN_BOARDS_NOTE} {hidden}."
    return note


def overview_tab(store: ResultStore) -> None:
    stand_ins = all_stand_ins(store.summaries, store.boards)
    if stand_ins:
        gr.Markdown(banner(stand_ins), elem_id=f"overview-{BANNER_ID}")
    frame = overview_frame(store.summaries, store.boards)
    cells = overview_cells(frame, store.summaries, store.boards)
    gr.Markdown(OVERVIEW_NOTE)
    table(
        frame,
        cells.display,
        show_search="filter",
        show_row_numbers=True,
        elem_id=OVERVIEW_ID,
        max_height=OVERVIEW_MAX_PX,
        wrap=True,
        column_widths=fit_widths(frame),
    )
    if cells.no_interval:
        listed = "\n".join(f"- {markdown_literal(line)}" for line in cells.no_interval)
        gr.Markdown(f"{NO_INTERVAL_NOTE}\n{listed}", elem_id="no-interval-note")
    _unfitted_notes(store)
    cost_section(store.summaries)
    _folders_left_out(SUSPICIOUS_NOTE, "suspicious", store.suspicious)
    _folders_left_out(SKIPPED_NOTE, "skipped", store.problems)


def _unfitted_notes(store: ResultStore) -> None:
    """Why a model's cells of a ProBench track are empty in the overview (its per-model fits
    could not be made), as the track's own page says under its table."""
    for track in sorted({r.track for r in store.summaries}):
        if page_for(store, track) is not probench_tab:
            continue
        if gaps := unfitted_lines(by_model(store.summaries, track)):
            listed = "\n".join(f"- {markdown_literal(line)}" for line in gaps)
            gr.Markdown(
                f"**Empty {track_title(track)} cells** above, and why:\n{listed}",
                elem_id=f"overview-{dom_id(track, 'unfitted')}",
            )


def _folders_left_out(note: str, kind: str, folders: Sequence[Problem]) -> None:
    """The overview's note and table of result folders it did not count (none: nothing shown)."""
    if not folders:
        return
    gr.Markdown(note, elem_id=f"{kind}-note")
    table(
        skipped_frame(folders),
        elem_id=f"{kind}-folders",
        show_search="none",
        wrap=True,
        column_widths=["40%", "60%"],
    )


def main(environ: Mapping[str, str] | None = None, **launch: Any) -> gr.Blocks:
    """Serve the Space over the results `environ` names (default: the process environment);
    host and port from GRADIO_SERVER_NAME / GRADIO_SERVER_PORT (a Space sets them) unless
    `launch` gives `server_name` / `server_port`. Returns the app once it stops serving (at
    once with `prevent_thread_lock=True`: its `local_url` is where it serves)."""
    environ = os.environ if environ is None else environ
    store = ResultStore(location_from_env(environ))
    app = build_app(store, arena_from_env(environ))
    app.launch(theme=THEME, css=CSS, ssr_mode=False, show_error=True, **launch)
    return app


if __name__ == "__main__":
    main()
