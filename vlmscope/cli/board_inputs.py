"""What a rating command does with an input that has no rows, or whose models never all met.

- An input with no rows at all rates nothing: that is an error (a wrong file, an export that
  wrote nothing), unless `--allow-empty` says it is expected; the board written then has no
  models and says why (`settings.empty_input`).
- Battles whose models fall into groups that never met cannot share one scale
  (`vlmscope.ratings.fits.connected`): the command stops naming the groups, unless
  `--per-component` asks for one board per group. The board is then the group with the most
  battles (with its categories); every other group is a board of its own under
  `categories["component 2"]`, ... and `settings.components` lists every group's models, so no
  table mixes ratings of two groups.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from vlmscope.ratings.boards.board import BoardSettings, RatingBoard

EMPTY_INPUT = "empty_input"
COMPONENTS = "components"
ALLOW_EMPTY_HELP = (
    "accept an input with no rows and write a board with no models "
    "(default: such an input is an error)"
)
PER_COMPONENT_HELP = (
    "when the models fall into groups that never battled each other, fit each group on its own "
    "board: the group with the most battles is the board, every other one is the category board "
    "'component N' (default: such battles are an error naming the groups)"
)


def refuse_empty(path: Path, rows: int, allow_empty: bool) -> bool:
    """True when the input had no rows and that was allowed; raises ValueError naming the file
    when it had none and that was not allowed; False when it had rows."""
    if rows:
        return False
    if not allow_empty:
        raise ValueError(f"{path}: holds no rows; --allow-empty accepts an empty input")
    return True


def empty_board(settings: dict[str, Any]) -> RatingBoard:
    """The board of an input with no rows: no models, the settings asked for, and why."""
    return RatingBoard(
        models={},
        settings=BoardSettings.from_json({**settings, EMPTY_INPUT: True, "n_battles": 0}),
    )


def per_component(
    groups: Sequence[tuple[str, ...]], fit: Callable[[frozenset[str], bool], RatingBoard]
) -> RatingBoard:
    """One board per group of models (`fit(models, is_main)`; the first group is the main
    one, fitted with its categories), assembled as described in the module docstring."""
    boards = [fit(frozenset(group), k == 0) for k, group in enumerate(groups)]
    main = boards[0]
    others = {f"component {k}": board for k, board in enumerate(boards[1:], start=2)}
    extra = {**main.settings.extra, COMPONENTS: [list(group) for group in groups]}
    return replace(
        main.with_companions(categories={**main.categories, **others}),
        settings=replace(main.settings, extra=extra),
    )
