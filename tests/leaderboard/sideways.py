"""What a wide table shows once its frame is scrolled fully right (Chromium, in the page).

Below 1280 px a wide table keeps its 1280 px layout and scrolls sideways in its frame, the
columns up to the model's name pinned (`vlmscope/cli/space/sideways.py`). The script scrolls the
frame all the way right and reports the frame's box, how far it scrolled, and the box of every
column title and of every drawn row's cells, so a test can ask which of them are in view, and on top of what scrolls under them.
"""

from __future__ import annotations

from typing import Any

from tests.leaderboard.test_browser import sync_api

SCROLLED_RIGHT_JS = """(sel) => {
  const table = document.querySelector(sel);
  const frame = table.querySelector('.upload-container');
  frame.scrollLeft = frame.scrollWidth;
  const f = frame.getBoundingClientRect();
  // on_top: whether the cell is what a reader sees at its centre (null when out of view).
  const box = e => {
    const r = e.getBoundingClientRect(), x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    const seen = x > Math.max(f.left, 0) && x < Math.min(f.right, innerWidth)
      && y > Math.max(f.top, 0) && y < Math.min(f.bottom, innerHeight);
    return {left: r.left, right: r.right,
            on_top: seen ? e.contains(document.elementFromPoint(x, y)) : null};
  };
  const text = e => e.innerText.replace(/\\s+/g, ' ').trim();
  const titles = [...table.querySelectorAll('thead tr')[0].children]
    .map(th => ({title: text(th), ...box(th)}));
  const rows = [...table.querySelectorAll('.virtual-body .virtual-row')]
    .map(tr => [...tr.children].map(td => ({text: text(td), ...box(td)})));
  return {frame: box(frame), scrolled: frame.scrollLeft, scroll: frame.scrollWidth,
          width: frame.clientWidth, page: document.documentElement.scrollWidth, titles, rows};
}"""


def scrolled_right(page: sync_api.Page, selector: str) -> dict[str, Any]:
    """The table's frame scrolled fully right (see the module doc), after it has settled, with
    the table's top in the window."""
    page.locator(selector).scroll_into_view_if_needed()
    page.evaluate(SCROLLED_RIGHT_JS, selector)
    page.wait_for_timeout(200)
    return dict(page.evaluate(SCROLLED_RIGHT_JS, selector))


def in_view(cell: dict[str, Any], frame: dict[str, Any]) -> bool:
    """Whether a title's or a cell's box lies inside the frame (half a pixel of rounding)."""
    return bool(cell["left"] >= frame["left"] - 0.5 and cell["right"] <= frame["right"] + 0.5)
