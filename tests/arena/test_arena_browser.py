"""The Arena tab in a real browser (Debian's Chromium through Playwright) over two local
streaming stub models.

A full battle: upload an image, ask, both answers stream in under "Model A" / "Model B", the
vote reveals the names, the vote is in the store in the battle shape (its export read by the
VisionArena reader) and the live board shows it. Before the vote, neither name is anywhere in
the page's DOM nor in any byte the page received (finished responses and streamed bodies).
A multi-turn battle keeps each side's own history. Hostile inputs (a `<script>` prompt, a
model answering with script and HTML, an oversized image, a file that is not an image) run
nothing and reach no model; a vote sent for a battle the session was not shown is refused.
Screenshots go to `test-artifacts/arena/`.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from PIL import Image

from tests.arena.conftest import NAMES, config_dict, png, zeta_reply
from tests.arena.space import ARTIFACTS, CAPTURE_JS, serve_arena
from tests.arena.sse_stub import SSEStub
from tests.leaderboard.test_browser import CHROMIUM, LAUNCH_ARGS
from vlmscope.arena.export import export_jsonl
from vlmscope.arena.vote_store import VoteStore
from vlmscope.tracks.visionarena.rows import read_battle_rows

if not CHROMIUM.exists():
    pytest.skip(
        "Debian's Chromium is not installed (apt-get install chromium)", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

HOSTILE = (
    'omega says <script>window.__ran = "script"</script> '
    "<img src=x onerror=\"window.__ran = 'img'\"> **done**"
)
MAX_IMAGE_BYTES = 60_000


@pytest.fixture(scope="module")
def stubs() -> Iterator[tuple[SSEStub, SSEStub]]:
    with (
        SSEStub(zeta_reply, chunk_delay_s=0.01) as zeta,
        SSEStub(lambda messages: HOSTILE, chunk_delay_s=0.01) as omega,
    ):
        yield zeta, omega


def served(
    stubs: tuple[SSEStub, SSEStub], work: Path, **overrides: Any
) -> Iterator[tuple[str, Path]]:
    """The Space with an arena over `stubs` (config `overrides`), its store in `work`."""
    store = work / "battles.sqlite"
    config = work / "arena.yaml"
    config.write_text(yaml.safe_dump(config_dict(stubs, store, **overrides)))
    with serve_arena(config, work) as url:
        yield url, store


@pytest.fixture(scope="module")
def space(
    stubs: tuple[SSEStub, SSEStub], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    limits = {"max_image_bytes": MAX_IMAGE_BYTES, "asks_per_ip": 100, "votes_per_ip": 100}
    yield from served(stubs, tmp_path_factory.mktemp("arena_space"), limits=limits)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS, headless=True)
        yield browser
        browser.close()


class ArenaPage:
    """A fresh page (a fresh session) on the Arena tab, recording what it receives."""

    def __init__(self, browser: Any, url: str) -> None:
        self.page = browser.new_page(viewport={"width": 1400, "height": 1100})
        self.page.set_default_timeout(20_000)
        self.responses: list[Any] = []
        self.dialogs: list[str] = []
        self.page.add_init_script(CAPTURE_JS)
        self.page.on("response", self._response)
        self.page.on("dialog", self._dialog)
        self.page.goto(url, wait_until="load")
        self.page.get_by_role("tab", name="Arena").click()
        self.page.wait_for_selector("#arena-a textarea")

    def _response(self, response: Any) -> None:
        self.responses.append(response)

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def close(self) -> None:
        self.page.close()

    def send(self, text: str, files: list[Path] = ()) -> None:  # type: ignore[assignment]
        if files:
            self.page.locator("#arena-message input[type=file]").set_input_files(
                [str(f) for f in files]
            )
            self.page.wait_for_function(
                "n => document.querySelectorAll('#arena-message .thumbnail-item, "
                "#arena-message .thumbnail-image').length >= n || "
                "document.querySelector('#arena-message').innerText.includes('.')",
                arg=len(files),
            )
        box = self.page.locator("#arena-message textarea")
        box.fill(text)
        box.press("Enter")

    def side(self, side: str) -> str:
        return str(self.page.locator(f"#arena-{side} textarea").input_value())

    def wait_answers(self, count: int) -> None:
        """Wait until both sides show `count` answers in full and the vote is open."""
        self.page.wait_for_function(
            "n => ['a', 'b'].every(s => { const v = document.querySelector(`#arena-${s} "
            "textarea`).value; return (v.match(/\\nModel [AB]: \\S/g) || []).length >= n; })"
            " && !document.querySelector('#arena-vote-a').disabled",
            arg=count,
        )

    def wait_sides_show(self, text: str) -> None:
        """Wait until one side shows `text`: the vote can open a moment before the last streamed
        piece is painted into its textarea."""
        self.page.wait_for_function(
            "t => ['a', 'b'].some(s => document.querySelector(`#arena-${s} textarea`)"
            ".value.includes(t))",
            arg=text,
        )

    def status(self) -> str:
        return str(self.page.locator("#arena-status").inner_text())

    def received(self) -> list[tuple[str, str]]:
        """(url, text) of every response body the page got: finished ones from Playwright,
        streamed ones from the in-page capture."""
        bodies: list[tuple[str, str]] = []
        for response in self.responses:
            if response.request.timing.get("responseEnd", -1) <= 0:
                continue  # still streaming (the heartbeat): captured in the page below
            try:
                body = response.body()
            except sync_api.Error:
                continue  # a stream Chromium keeps no body for: captured in the page below
            bodies.append((response.url, body.decode("utf-8", "replace")))
        captured = self.page.evaluate("() => window.__received.map(e => [e.url, e.text])")
        return bodies + [(str(u), str(t)) for u, t in captured]


@pytest.fixture
def arena_page(chromium: Any, space: tuple[str, Path]) -> Iterator[ArenaPage]:
    page = ArenaPage(chromium, space[0])
    yield page
    page.close()


def _image(tmp_path: Path, name: str = "photo.png", colour: str = "orange") -> Path:
    path = tmp_path / name
    path.write_bytes(png(colour, (24, 16)))
    return path


def mentions(text: str, name: str) -> bool:
    """Whether `text` names `name`, also Markdown-escaped (`a\\-b`) or as HTML entities."""
    plain = html.unescape(text).replace("\\", "")
    return name in text or name in plain


def _votes(store: Path) -> list[dict[str, Any]]:
    opened = VoteStore(store)
    try:
        return [v.record for v in opened.votes()]
    finally:
        opened.close()


def test_a_full_battle_reveals_the_names_only_after_the_vote(
    arena_page: ArenaPage, space: tuple[str, Path], tmp_path: Path
) -> None:
    page, store = arena_page.page, space[1]
    before = len(_votes(store))
    arena_page.send("What is in this photo?", [_image(tmp_path)])
    arena_page.wait_answers(1)
    arena_page.wait_sides_show("zeta answer 1: What is in this photo?")
    sides = arena_page.side("a") + arena_page.side("b")
    assert "zeta answer 1: What is in this photo?" in sides
    assert "omega says" in sides and "1 image(s)" in sides
    page.screenshot(path=str(ARTIFACTS / "battle_before_vote.png"), full_page=True)

    # before the vote: no name in the DOM, nor in any byte the page received
    dom = page.content() + page.inner_text("body")
    received = arena_page.received()
    assert any("zeta answer 1" in text for _, text in received)  # the capture sees the stream
    for name in NAMES:
        assert not mentions(dom, name)
        leaks = [url for url, text in received if mentions(text, name)]
        assert not leaks, f"{name} reached the page in {leaks}"

    page.locator("#arena-vote-a").click()
    page.wait_for_function(
        "() => document.querySelector('#arena-status').innerText.includes('was')"
    )
    status = arena_page.status()
    assert all(name in status for name in NAMES) and "A is better" in status
    assert page.locator("#arena-vote-b").is_disabled()
    # the same check finds the names once they are sent: it could have failed above
    received = arena_page.received()
    assert all(any(mentions(text, name) for _, text in received) for name in NAMES)

    votes = _votes(store)
    assert len(votes) == before + 1
    record = votes[-1]
    assert record["winner"] == "model_a"
    assert status.index(record["model_a"]) < status.index(record["model_b"])
    assert record["conversation_a"][0]["content"] == "What is in this photo?"
    assert len(record["images"]) == 1 and record["num_turns"] == 1
    export = tmp_path / "export"
    opened = VoteStore(store)
    export_jsonl(opened, export)
    opened.close()
    rows = read_battle_rows(export)
    assert rows[-1].question_id == record["question_id"]
    assert rows[-1].images == (png("orange", (24, 16)),)

    page.locator("#arena-refresh").click()
    page.wait_for_function(
        "n => document.querySelector('#arena-votes').innerText.includes(`${n} vote(s)`)",
        arg=before + 1,
    )
    board = page.locator("#arena-board").inner_text()
    assert all(name in board for name in NAMES)
    page.screenshot(path=str(ARTIFACTS / "battle_after_vote.png"), full_page=True)


def test_a_multi_turn_battle_keeps_each_sides_history(
    arena_page: ArenaPage, space: tuple[str, Path], stubs: tuple[SSEStub, SSEStub]
) -> None:
    page = arena_page.page
    arena_page.send("First question")
    arena_page.wait_answers(1)
    arena_page.send("Second question")
    arena_page.wait_answers(2)
    zeta_side = "a" if "zeta answer" in arena_page.side("a") else "b"
    zeta_text = arena_page.side(zeta_side)
    assert "zeta answer 1: First question" in zeta_text
    assert "zeta answer 3: Second question" in zeta_text  # it saw its own first answer
    history = stubs[0].bodies[-1]["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
    assert history[1]["content"] == "zeta answer 1: First question"
    assert stubs[1].bodies[-1]["messages"][1]["content"] == HOSTILE
    for name in NAMES:
        assert name not in page.content()
    page.locator("#arena-vote-tie").click()
    page.wait_for_function(
        "() => document.querySelector('#arena-status').innerText.includes('was')"
    )
    record = _votes(space[1])[-1]
    assert record["winner"] == "tie" and record["num_turns"] == 2
    assert [m["content"] for m in record[f"conversation_{zeta_side}"] if m["role"] == "user"] == [
        "First question",
        "Second question",
    ]
    page.screenshot(path=str(ARTIFACTS / "multi_turn.png"), full_page=True)


def test_script_in_the_prompt_and_in_an_answer_runs_nothing(arena_page: ArenaPage) -> None:
    page = arena_page.page
    prompt = '<script>window.__ran = "prompt"</script><img src=x onerror="alert(1)"> hi'
    arena_page.send(prompt)
    arena_page.wait_answers(1)
    page.wait_for_timeout(300)
    sides = arena_page.side("a") + arena_page.side("b")
    assert prompt in sides and HOSTILE in sides  # shown as the characters they are
    assert page.evaluate("() => window.__ran") is None
    assert arena_page.dialogs == []
    injected = page.evaluate(
        "() => document.querySelectorAll('#arena-a script, #arena-b script, #arena-a img, "
        "#arena-b img, #arena-status script').length"
    )
    assert injected == 0


def test_an_oversized_image_and_a_non_image_reach_no_model(
    arena_page: ArenaPage, stubs: tuple[SSEStub, SSEStub], tmp_path: Path
) -> None:
    calls = [len(s.bodies) for s in stubs]
    big = tmp_path / "big.png"
    Image.frombytes("RGB", (160, 160), os.urandom(160 * 160 * 3)).save(big, "PNG")
    assert big.stat().st_size > MAX_IMAGE_BYTES
    fake = tmp_path / "notes.png"
    fake.write_bytes(b"<script>alert('not an image')</script>")
    for upload, refusal in ((big, "larger than"), (fake, "not a readable image")):
        arena_page.send("look", [upload])
        arena_page.page.wait_for_function(
            "t => document.querySelector('#arena-status').innerText.includes(t)", arg=refusal
        )
        arena_page.page.locator("#arena-new").click()
        # the reset clears the message box too: the next upload waits for it, or the clear
        # could land after the file is set and send the prompt without it
        arena_page.page.wait_for_function(
            "t => !document.querySelector('#arena-status').innerText.includes(t)", arg=refusal
        )
    assert [len(s.bodies) for s in stubs] == calls
    assert arena_page.dialogs == []


def test_a_vote_for_a_battle_not_shown_is_refused(space: tuple[str, Path]) -> None:
    """A client calling the vote endpoint directly, in a session that was shown no battle."""
    url, store = space
    before = len(_votes(store))
    with httpx.Client(base_url=url, timeout=20) as client:
        event = client.post("gradio_api/call/vote_a", json={"data": []})
        assert event.status_code == 200, event.text
        stream = client.get(f"gradio_api/call/vote_a/{event.json()['event_id']}").text
    assert "no battle to vote on" in stream
    assert not any(name in stream for name in NAMES)
    assert len(_votes(store)) == before


def test_the_page_made_no_outside_request(arena_page: ArenaPage) -> None:
    hosts = {r.url.split("/")[2] for r in arena_page.responses if r.url.startswith("http")}
    assert hosts <= {arena_page.page.url.split("/")[2]}


RATE_FROM = 3  # the test arena's `board.min_votes_to_rate`


@pytest.fixture(scope="module")
def rating_space(
    stubs: tuple[SSEStub, SSEStub], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Path]]:
    """An arena of its own (an empty store) whose board rates from `RATE_FROM` votes."""
    board = {"bootstrap_rounds": 10, "min_votes_to_rate": RATE_FROM}
    yield from served(stubs, tmp_path_factory.mktemp("arena_rating"), board=board)


def test_the_live_board_rates_only_from_enough_votes(
    chromium: Any, rating_space: tuple[str, Path], tmp_path: Path
) -> None:
    """After one vote the board lists both models with "too few votes to rate" and no
    numbers (not 3276 against -1276); from `RATE_FROM` votes it shows ratings. Each Refresh
    counts the vote just cast."""
    arena_page = ArenaPage(chromium, rating_space[0])
    page = arena_page.page
    page.set_viewport_size({"width": 1280, "height": 1100})
    try:
        for number in range(1, RATE_FROM + 1):
            if number > 1:
                page.locator("#arena-new").click()
                page.wait_for_function(
                    "() => document.querySelector('#arena-a textarea').value === ''"
                )
            arena_page.send(f"Question {number}?")
            arena_page.wait_answers(1)
            page.locator("#arena-vote-a" if number % 2 else "#arena-vote-b").click()
            page.locator("#arena-refresh").click()  # at once: the vote may still be saving
            page.wait_for_function(
                "n => document.querySelector('#arena-votes').innerText.includes(`${n} vote(s)`)",
                arg=number,
            )
            note = page.locator("#arena-votes").inner_text()
            board = page.locator("#arena-board").inner_text()
            assert all(name in board for name in NAMES)
            if number < RATE_FROM:
                assert "too few votes to rate" in note and "too few votes to rate" in board
                assert "3276" not in board and "+0.0 / -0.0" not in board
                if number == 1:
                    page.locator("#arena-board").scroll_into_view_if_needed()
                    page.screenshot(path=str(ARTIFACTS / "arena_board_too_few.png"))
            else:
                assert "rated with Bradley-Terry" in note and "too few" not in board
        page.locator("#arena-board").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / "arena_board_rated.png"))
        assert len(_votes(rating_space[1])) == RATE_FROM
    finally:
        arena_page.close()
