"""The MEGA-Bench radar in a real browser: every keyword's interval is drawn as a whisker and
named on hover with its task count, and the numbers are the ones the summary's bootstrap
(`headline_intervals`, the single-image subset's `subset_intervals`) gives; two models' whiskers
on one keyword stand apart; keywords with too few tasks are listed with the reason."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from tests.leaderboard.keyword_results import MODELS, NARROW, WIDE, task_entries, task_meta
from tests.leaderboard.test_browser import (
    ARTIFACTS,
    browse,
    chromium,  # noqa: F401 (fixture)
    serve,
    sync_api,
    tab,
    wait_for_text,
)
from vlmscope.leaderboard.keyword_intervals import MIN_TASKS, TOO_FEW
from vlmscope.tracks.megabench.intervals import headline_intervals, subset_intervals
from vlmscope.tracks.megabench.single_image import single_image_entries

RADAR = """() => [...document.querySelectorAll('.js-plotly-plot')]
    .filter(gd => gd.querySelector('.polarlayer'))[0]"""
TRACES = f"""() => ({RADAR})().data.map(t => ({{
    name: t.name, mode: t.mode || '', fill: t.fill || '', r: t.r, theta: t.theta,
    keywords: t.customdata || []}}))"""
SPOKES = f"""() => {{ const axis = ({RADAR})().layout.polar.angularaxis;
    return [axis.ticktext, axis.tickvals]; }}"""
LINES = """() => [...document.querySelectorAll('.polarlayer .trace')]
    .map(t => t.querySelector('.js-line'))
    .map(p => p === null ? '' : p.getAttribute('d'))"""


def _expected(model: str, *, single_image: bool = False) -> tuple[float, float, float]:
    """The Wide Skill score and its interval, in percent, straight from the stats function."""
    entries = task_entries(model)
    if single_image:
        entries = list(single_image_entries(entries, task_meta()))
        block = subset_intervals(entries, task_meta())
    else:
        block = headline_intervals(entries, task_meta())
    bounds = block["keywords"]["skills"][WIDE]
    value = sum(e["mean_task_score"] for e in entries) / len(entries)
    return 100 * value, 100 * bounds[0], 100 * bounds[1]


def _segments(path: str) -> list[list[tuple[float, float]]]:
    """The points of each piece (`M x,y L x,y ...`) of an SVG line path, in pixels."""
    pieces = [p for p in re.split(r"(?=M)", path) if p.strip()]
    numbers = [[float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", p)] for p in pieces]
    return [list(zip(n[::2], n[1::2], strict=True)) for n in numbers]


def _hover(page: sync_api.Page, trace: int, point: int) -> str:
    """The hover text of one point of one trace of the radar, hovered with the mouse."""
    mark = page.locator(".polarlayer .trace").nth(trace).locator(".point").nth(point)
    box = mark.bounding_box()
    assert box is not None
    page.mouse.move(1, 1)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector(".hoverlayer .hovertext")
    return " ".join(page.locator(".hoverlayer .hovertext").first.all_text_contents())


def test_radar_draws_and_names_each_keyword_interval(
    keyword_dir: Path,
    chromium: sync_api.Browser,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    app = tmp_path_factory.mktemp("app")
    with serve(keyword_dir, app) as (url, netlog), browse(chromium, url) as watched:
        page = watched.page
        tab(page, "MEGA-Bench")
        page.wait_for_selector(".js-plotly-plot .polarlayer .trace")
        traces: list[dict[str, Any]] = page.evaluate(TRACES)
        polygons = [t for t in traces if t["fill"] == "toself"]
        whiskers = [t for t in traces if t["mode"] == "lines"]
        markers = [t for t in traces if t["mode"] == "markers"]
        assert [t["name"] for t in polygons] == [t["name"] for t in markers] == list(MODELS)
        assert [t["name"] for t in whiskers] == [f"{m} 95% CI" for m in MODELS]
        labels, spokes = page.evaluate(SPOKES)
        spoke = spokes[labels.index(WIDE)]
        angles = []
        for model, whisker in zip(MODELS, whiskers, strict=True):
            value, lower, upper = _expected(model)
            at = whisker["keywords"].index(WIDE)
            assert whisker["r"][at : at + 2] == pytest.approx([lower, upper], abs=1e-9)
            assert whisker["theta"][at] == whisker["theta"][at + 1] != spoke
            angles.append(whisker["theta"][at])
            assert NARROW not in whisker["keywords"]  # 2 tasks: no whisker
        assert angles[0] < spoke < angles[1]  # one each side of the spoke, in the legend's order

        # the two models' Wide Skill whiskers are drawn at distinct places on the page
        paths = page.evaluate(LINES)
        assert len(paths) == len(traces)
        drawn = [
            _segments(paths[traces.index(w)])[w["keywords"].index(WIDE) // 3] for w in whiskers
        ]
        assert all(len(piece) == 2 for piece in drawn)
        for piece in drawn:  # each whisker has a length on the page
            (x0, y0), (x1, y1) = piece
            assert math.hypot(x1 - x0, y1 - y0) > 2
        gaps = [math.dist(a, b) for a, b in zip(drawn[0], drawn[1], strict=True)]
        assert min(gaps) > 3, gaps

        # hovering each model's Wide Skill marker names the model, score, interval and tasks
        boxes = []
        for model, marker in zip(MODELS, markers, strict=True):
            value, lower, upper = _expected(model)
            at = marker["keywords"].index(WIDE)
            assert marker["r"][at] == pytest.approx(value, abs=1e-9)
            hover = _hover(page, traces.index(marker), at)
            assert model in hover
            assert f"{WIDE}: {value:.2f}, 95% CI {lower:.2f} - {upper:.2f}; 12 tasks" in hover
            point = page.locator(".polarlayer .trace").nth(traces.index(marker))
            boxes.append(point.locator(".point").nth(at).bounding_box())
        assert boxes[0] != boxes[1]
        page.screenshot(path=str(ARTIFACTS / "megabench_keyword_hover.png"), full_page=True)

        value, lower, upper = _expected("kw-strong")
        table = page.locator("#megabench-keywords").inner_text()
        assert "kw-strong 95% CI" in table and f"{lower:.2f} - {upper:.2f}" in table
        note = page.locator("#megabench-keywords-no-ci").inner_text()
        assert f"{NARROW} (2 tasks): kw-strong, kw-weak" in note
        assert f"at least {MIN_TASKS} tasks" in note and TOO_FEW.split(",")[0] in note

        # the single-image subset: its own intervals, in the table and as whiskers
        page.get_by_label("Single-image subset").check()
        value, lower, upper = _expected("kw-strong", single_image=True)
        wait_for_text(page, "#megabench-keywords", f"{lower:.2f} - {upper:.2f}")
        page.wait_for_function(  # the radar redrawn with the subset's whiskers
            f"(low) => ({RADAR})().data.some(t => t.mode === 'lines'"
            " && t.r.some(v => v !== null && Math.abs(v - low) < 1e-6))",
            arg=lower,
        )
        single = [t for t in page.evaluate(TRACES) if t["mode"] == "lines"]
        assert [t["name"] for t in single] == [f"{m} 95% CI" for m in MODELS]
        for model, whisker in zip(MODELS, single, strict=True):
            _, lower, upper = _expected(model, single_image=True)
            at = whisker["keywords"].index(WIDE)
            assert whisker["r"][at : at + 2] == pytest.approx([lower, upper], abs=1e-9)
        page.screenshot(path=str(ARTIFACTS / "megabench_keyword_single_image.png"), full_page=True)
        page.get_by_label("Single-image subset").uncheck()

        page.locator("#megabench-dimension").get_by_text("Application").click()
        wait_for_text(page, "#megabench-keywords-no-ci", "Rare App (1 task)")
        assert watched.dialogs == [] and watched.outside == []
    assert not netlog.exists() or netlog.read_text() == ""
