"""The ProBench page and a judged conversation in a real browser (Chromium driven by Playwright).

The Space serves a ProBench run (`fabricate.write_probench_results`) as `test_browser` serves
its results: the ProBench tab must show the official table with the three tracks side by side
and the joint board with its intervals, follow the track and breakdown pickers in both, say why
a subset was not fitted, and the sample browser must show a multi-round conversation turn by
turn with both judge games. Screenshots go to the test's tmp folder, and to
`$VLMSCOPE_SCREENSHOTS` when it is set.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leaderboard import probench_results as pr
from tests.leaderboard.fabricate import write_probench_results
from tests.leaderboard.test_browser import (
    CHROMIUM,
    LAUNCH_ARGS,
    browse,
    choose,
    lines,
    serve,
    sync_api,
    tab,
    wait_for_error_bars,
    wait_for_text,
    wait_for_value,
)
from vlmscope.leaderboard import probench_view as pb

MODELS = ["pb-large", pr.BASELINE, "pb-small"]  # best first, on every table here


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("probench_screenshots")


def shot(page: sync_api.Page, folder: Path, name: str) -> Path:
    page.wait_for_timeout(400)  # let plots finish drawing
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if os.environ.get("VLMSCOPE_SCREENSHOTS"):
        target = Path(os.environ["VLMSCOPE_SCREENSHOTS"])
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target / path.name)
    return path


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    results = tmp_path_factory.mktemp("probench_results") / "results"
    write_probench_results(results)
    workdir = tmp_path_factory.mktemp("probench_app")
    with (
        serve(results, workdir) as (url, netlog),
        sync_api.sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        with browse(browser, url) as watched:
            yield watched.page
            assert watched.page.evaluate("window.__pwned") is None
            assert watched.dialogs == [] and watched.outside == []
        browser.close()
    assert not netlog.exists() or netlog.read_text() == ""


def _in_order(shown: list[str], names: list[str]) -> bool:
    return [line for line in shown if line in names] == names


def test_probench_page_shows_official_and_joint_numbers(page: sync_api.Page, shots: Path) -> None:
    tab(page, "ProBench")
    page.wait_for_selector("#probench-official")
    official = lines(page, "#probench-official")
    for track in ("Single-round", "Multi-round", "Multi-linguistic"):
        assert {f"{track} Score", f"{track} 95% CI", f"{track} Win rate"} <= set(official)
    large = pr.summary("pb-large")["tracks"]
    assert {f"{large['singleround']['score']}", "+55 / -48", "1114", "+0 / -0"} <= set(official)
    assert _in_order(official, MODELS)
    joint = lines(page, "#probench-joint")
    assert _in_order(joint, MODELS) and "+36.0 / -30.0" in joint
    assert "one Bradley-Terry fit over 3 models" in page.locator("#probench-note").inner_text()
    wait_for_error_bars(page)
    shot(page, shots, "probench")


def test_breakdown_picker_updates_both_tables(page: sync_api.Page, shots: Path) -> None:
    page.locator("#probench-track").get_by_text("Multi-round", exact=True).click()
    tokens = pr.summary("pb-large")["tracks"]["multi-round"]["avg_tokens"]
    wait_for_text(page, "#probench-subset-official", f"{round(tokens)}")  # the track's table
    choose(page, "#probench-breakdown", "round: 4")
    entry = pr.summary("pb-large")["breakdowns"]["multi-round"]["round"]["4"]
    wait_for_text(page, "#probench-subset-official", "+110 / -95")
    assert f"{entry['score']}" in lines(page, "#probench-subset-official")
    rating = pr.joint_board().categories["multi-round / round: 4"].models["pb-large"].rating
    wait_for_text(page, "#probench-subset-joint", f"{rating:g}")
    assert _in_order(lines(page, "#probench-subset-joint"), MODELS)
    shot(page, shots, "probench_round_4")

    choose(page, "#probench-breakdown", "round: 6+")  # not fitted, for anyone
    wait_for_text(page, "#probench-subset-note", "not fitted")
    assert f"not fitted: {pr.NOT_FITTED}" in lines(page, "#probench-subset-official")
    page.locator("#probench-track").get_by_text("Single-round", exact=True).click()
    wait_for_value(page, "#probench-breakdown", pb.WHOLE_TRACK)  # the new track's choices
    choose(page, "#probench-breakdown", "question_category: Coding")
    wait_for_text(page, "#probench-subset-official", "+110 / -95")
    shown = lines(page, "#probench-subset-official")
    assert "pb-large" in shown and "+110 / -95" in shown  # pb-small alone was not fitted
    shot(page, shots, "probench_coding")


def test_a_multi_round_conversation_shows_every_turn_and_both_games(
    page: sync_api.Page, shots: Path
) -> None:
    tab(page, "Samples")
    choose(page, "#samples-track", pr.TRACK)
    choose(page, "#samples-model", "pb-small")
    choose(page, "#samples-task", "multi-round")
    choose(page, "#samples-sample", f"{pr.MULTI_ROUND_SAMPLE}  [judge_unparseable]")
    wait_for_value(page, "#samples-conversation", "[turn 4 of 4: baseline's answer")
    conversation = page.locator("#samples-conversation textarea").input_value()
    assert conversation.startswith("[multi-round; round: 4]")
    for turn in range(1, 5):
        assert f"[turn {turn} of 4: question]" in conversation
        assert f"[turn {turn} of 4: model's answer (pb-small)]" in conversation
    judge = page.locator("#samples-judge textarea").input_value()
    assert "[game 1: baseline as A, model as B; verdict A>B (parsed); 1 attempt]" in judge
    assert "[game 2: model as A, baseline as B; verdict - (unparseable); 3 attempts]" in judge
    page.locator("#samples-conversation").scroll_into_view_if_needed()
    assert shot(page, shots, "probench_sample").stat().st_size > 0
