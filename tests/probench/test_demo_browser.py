"""The ProBench demo, run for real and shown by the Space in Chromium.

`configs/probench_demo.yaml` runs offline (a tiny model and the oracle answer, the coin judge
judges); the Space serving its output must show the ProBench page with the official table and
the joint board, and a multi-round conversation in the sample browser. A screenshot of each is
kept (and copied to `$VLMSCOPE_SCREENSHOTS` when set).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

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
    wait_for_value,
)
from tests.leaderboard.test_probench_browser import shot
from vlmscope.config import parse_config
from vlmscope.runner.loop import run
from vlmscope.tracks.probench import BASELINE_NAME
from vlmscope.tracks.probench.rows import SAMPLE_DIR, read_rows

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "probench_demo.yaml"


@pytest.fixture(scope="module")
def demo_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("probench_demo")
    raw = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    raw["output_dir"] = str(folder / "results")
    raw["models"][0]["path"] = str(folder / "tiny-llava")
    raw["tracks"][0]["options"]["bootstrap_rounds"] = 20
    run(parse_config(raw))
    return folder / "results"


@pytest.fixture(scope="module")
def page(demo_results: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[sync_api.Page]:
    workdir = tmp_path_factory.mktemp("probench_demo_app")
    with serve(demo_results, workdir) as (url, _), sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        with browse(browser, url) as watched:
            yield watched.page
        browser.close()


def test_demo_probench_page(page: sync_api.Page, tmp_path: Path) -> None:
    tab(page, "ProBench")
    page.wait_for_selector("#probench-official")
    official = lines(page, "#probench-official")
    assert {"tiny-llava", BASELINE_NAME, "1114"} <= set(official)
    joint = lines(page, "#probench-joint")
    assert {"tiny-llava", "oracle", BASELINE_NAME} <= set(joint)
    wait_for_error_bars(page)
    assert shot(page, tmp_path, "probench_demo").stat().st_size > 0


def test_demo_multi_round_sample(page: sync_api.Page, tmp_path: Path) -> None:
    longest = max(
        (row for row in read_rows(SAMPLE_DIR) if row.chat_type == "multi-round"),
        key=lambda row: row.rounds,
    )
    tab(page, "Samples")
    choose(page, "#samples-track", "probench")
    choose(page, "#samples-model", "tiny-llava")
    choose(page, "#samples-task", "multi-round")
    page.locator("#samples-sample input").click()
    page.get_by_role("option").filter(has_text=longest.uuid).first.click()
    last = f"[turn {longest.rounds} of {longest.rounds}: baseline's answer"
    wait_for_value(page, "#samples-conversation", last)
    judge = page.locator("#samples-judge textarea").input_value()
    assert "[game 1: baseline as A, model as B;" in judge
    assert "[game 2: model as A, baseline as B;" in judge
    page.locator("#samples-conversation").scroll_into_view_if_needed()
    assert shot(page, tmp_path, "probench_demo_sample").stat().st_size > 0
