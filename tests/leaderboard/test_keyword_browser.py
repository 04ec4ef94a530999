"""The MEGA-Bench radar in a real browser: every keyword's interval is drawn as a whisker and
named on hover with its task count, and the numbers are the ones the summary's bootstrap
(`headline_intervals`) gives; keywords with too few tasks are listed with the reason."""

from __future__ import annotations

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
from vlmscope.tracks.megabench.intervals import headline_intervals

TRACES = """() => [...document.querySelectorAll('.js-plotly-plot')]
    .filter(gd => gd.querySelector('.polarlayer'))[0].data
    .map(t => ({name: t.name, mode: t.mode || '', r: t.r, theta: t.theta}))"""
WHISKER_SIZES = """() => [...document.querySelectorAll('.polarlayer .trace')]
    .map(t => t.querySelector('.js-line'))
    .map(p => p === null ? 0 : p.getBoundingClientRect().width + p.getBoundingClientRect().height)"""


def _expected(model: str) -> tuple[float, float, float]:
    """The Wide Skill score and its interval, in percent, straight from the stats function."""
    entries = task_entries(model)
    bounds = headline_intervals(entries, task_meta())["keywords"]["skills"][WIDE]
    value = sum(e["mean_task_score"] for e in entries) / len(entries)
    return 100 * value, 100 * bounds[0], 100 * bounds[1]


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
        polygons = [t for t in traces if t["mode"] != "lines"]
        whiskers = [t for t in traces if t["mode"] == "lines"]
        assert [t["name"] for t in polygons] == list(MODELS)
        assert [t["name"] for t in whiskers] == [f"{m} 95% CI" for m in MODELS]
        for model, whisker in zip(MODELS, whiskers, strict=True):
            value, lower, upper = _expected(model)
            at = whisker["theta"].index(WIDE)
            assert whisker["r"][at : at + 2] == pytest.approx([lower, upper], abs=1e-9)
            assert NARROW not in whisker["theta"]  # 2 tasks: no whisker
        # every whisker is drawn: its line has a size on the page
        sizes = page.evaluate(WHISKER_SIZES)
        assert len(sizes) == len(traces)
        assert all(size > 2 for t, size in zip(traces, sizes, strict=True) if t in whiskers)

        # hovering the strong model's Wide Skill vertex names the score, interval and tasks
        value, lower, upper = _expected("kw-strong")
        point = page.locator(".polarlayer .trace").nth(0).locator(".point").nth(0)
        box = point.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector(".hoverlayer .hovertext")
        hover = page.locator(".hoverlayer .hovertext").first.text_content() or ""
        assert f"{WIDE}: {value:.2f}, 95% CI {lower:.2f} - {upper:.2f}; 12 tasks" in hover
        page.screenshot(path=str(ARTIFACTS / "megabench_keyword_hover.png"), full_page=True)

        table = page.locator("#megabench-keywords").inner_text()
        assert "kw-strong 95% CI" in table and f"{lower:.2f} - {upper:.2f}" in table
        note = page.locator("#megabench-keywords-no-ci").inner_text()
        assert f"{NARROW} (2 tasks): kw-strong, kw-weak" in note
        assert f"at least {MIN_TASKS} tasks" in note and TOO_FEW.split(",")[0] in note

        page.locator("#megabench-dimension").get_by_text("Application").click()
        wait_for_text(page, "#megabench-keywords-no-ci", "Rare App (1 task)")
        assert watched.dialogs == [] and watched.outside == []
    assert not netlog.exists() or netlog.read_text() == ""
