"""The overview's number cells with lines under the number get the smaller, muted style; text
cells (a model's name, over lines or not) and a number alone never do, and the table's value
and types stay as they were (numbers sort as numbers, text is text)."""

from __future__ import annotations

import pandas as pd

from vlmscope.cli.space.second_lines import INTERVAL_STYLE, SECONDARY_STYLE, cell_styles
from vlmscope.cli.space.widgets import table, update_table
from vlmscope.leaderboard.overview import overview_frame
from vlmscope.leaderboard.overview_cells import overview_cells
from vlmscope.leaderboard.result_store import ResultStore

NAME = "<img src=x onerror=alert(1)>\n**bold**"


def test_only_number_cells_with_lines_under_them_are_styled() -> None:
    frame = pd.DataFrame({"Model": [NAME, "b"], "Score": [87.5, 12.5], "Failed": [0, 1]})
    display = [[NAME, "87.5\n+3.10 / -4.80\nrank 1", "0"], ["b", "12.5", "1"]]
    assert cell_styles(frame, display) == [["", SECONDARY_STYLE, ""], ["", "", ""]]


def test_the_overview_styles_every_interval_and_nothing_else(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    cells = overview_cells(frame, store.summaries, store.boards)
    styles = cell_styles(frame, cells.display)
    styled = {
        (str(frame["Model"].iloc[r]), str(frame.columns[c]))
        for r, row in enumerate(styles)
        for c, style in enumerate(row)
        if style
    }
    assert ("oracle", "MEGA-Bench overall") in styled
    assert ("svqa-weak", "SimpleVQA F") in styled
    assert not {column for _, column in styled} & {"Model", "Samples", "Run date", "Config hash"}
    for r, row in enumerate(cells.display):
        for c, text in enumerate(row):
            assert bool(styles[r][c]) == ("\n" in text and c > 0), (frame.columns[c], text)


def test_the_styled_table_keeps_its_values_and_types(store: ResultStore) -> None:
    frame = overview_frame(store.summaries, store.boards)
    cells = overview_cells(frame, store.summaries, store.boards)
    config = table(frame, cells.display).get_config()
    assert set(config["datatype"]) == {"str", "number"}  # never html or markdown
    value = config["value"]
    assert value["metadata"]["styling"] == cell_styles(frame, cells.display)
    overall = list(frame.columns).index("MEGA-Bench overall")
    numbers = [row[overall] for row in value["data"] if row[overall] is not None]
    assert numbers and all(isinstance(n, float | int) for n in numbers)  # sorts by the number


def test_a_track_pages_interval_column_is_styled_in_the_table_and_its_redraws() -> None:
    frame = pd.DataFrame(
        {"Model": [NAME, "b"], "Rating": [1262.1, 1114.0], "95% CI": ["+51.8 / -37.3", None]}
    )
    styles = [["", "", INTERVAL_STYLE], ["", "", ""]]
    for value in (table(frame).get_config()["value"], update_table(frame)["value"]):
        assert value["metadata"] == {"display_value": None, "styling": styles}
        assert value["data"][0] == [NAME, 1262.1, "+51.8 / -37.3"]  # the interval stays text
    plain = pd.DataFrame({"Model": ["a"], "Score": [1.0]})
    assert update_table(plain)["value"] is plain  # nothing to style: the frame as it was
