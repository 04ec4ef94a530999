"""The answer metadata arena-hard v2's style control can read, and the error when it cannot.

Upstream's ``print_leaderboard_with_style_features`` turns each answer's metadata into a row of
``metadata.values()`` (an int as is, anything else summed with ``.values()``), stacks the judged
model's rows and the baseline's rows into two tensors, and takes the columns by position: 0 as
tokens, 1: as the markdown counts. It never looks at the key names, so metadata written by
another tool is scored as its positions fall:

* four keys in every model answer and four in every baseline answer, whatever their names
  (``tokens`` for ``token_len``, ``italic_count`` in place of ``bold_count``): a number, the
  counts read by position (the board notes such answers, see ``metadata_order_notes``);
* four in every model answer and two in every baseline answer: a number too, the baseline's
  single markdown density broadcast against each of the model's three;
* anything else stops upstream: rows of unequal length (``torch.tensor``), sides whose columns
  do not broadcast, or a model width other than four (its fit then slices the coefficients
  at four features and fails building the table), and a value that is neither an int nor a
  dict of ints. Here each is a ``ValueError`` naming the file and line, the answer (uid, model,
  baseline), the side and its keys, before any fit is run.

A value is read as upstream reads it (:mod:`vlmscope.ratings.inputs.style_values`): a boolean
counts 1 or 0 (noted on the board), a float stops it, as does any value that is not an int or a
dict (a string, a list, null), each an error here naming the answer, side and key.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from vlmscope.ratings.boards.style_value_checks import V2_READER, require_readable_values
from vlmscope.ratings.inputs.verdict_battles import JudgedScore
from vlmscope.ratings.inputs.verdict_records import STYLE_FIELDS, AnswerStyle

FloatArray = NDArray[np.float64]

MODEL_WIDTH = 4
BASELINE_WIDTHS = (4, 2)
"""The metadata lengths upstream gives a number for (model: exactly 4; baseline: 4, or 2)."""

SIDES = ("model_metadata", "baseline_metadata")


def positional_counts(scores: Sequence[JudgedScore]) -> tuple[FloatArray, FloatArray]:
    """The judged model's and the baseline's counts by position, one row per score row, as
    upstream stacks them; a layout or value upstream stops on is a ``ValueError`` (module doc)."""
    require_readable_values(scores, V2_READER)
    model, baseline = (_side_rows(scores, side) for side in SIDES)
    if model.shape[1] != MODEL_WIDTH:
        raise _metadata_error(
            scores[0],
            SIDES[0],
            f"{model.shape[1]} keys where arena-hard v2 reads {MODEL_WIDTH} by position "
            f"({', '.join(STYLE_FIELDS)}); the official show_result stops on any other number",
        )
    if baseline.shape[1] not in BASELINE_WIDTHS:
        raise _metadata_error(
            scores[0],
            SIDES[1],
            f"{baseline.shape[1]} keys where arena-hard v2 reads {MODEL_WIDTH} by position "
            f"({', '.join(STYLE_FIELDS)}); the official show_result stops on any number but "
            "4 (or 2, read as tokens and one count for all three densities)",
        )
    return model, baseline


def _side_rows(scores: Sequence[JudgedScore], side: str) -> FloatArray:
    """Every score row's counts on one side; all rows must have the first row's length."""
    rows: list[tuple[float, ...]] = []
    for score in scores:
        style = _style(score, side)
        if style is None:
            raise _metadata_error(score, side, "absent; style control reads every answer's")
        values = style.by_position()
        for key, value in zip(style.key_order, values, strict=True):
            if value is None:
                raise _metadata_error(
                    score,
                    side,
                    f"{key!r} is not a count (neither an int nor a dict of numbers); the "
                    "official show_result calls .values() on it and stops (AttributeError)",
                )
        if rows and len(values) != len(rows[0]):
            raise _metadata_error(
                score,
                side,
                f"{len(values)} keys where the first answer's has {len(rows[0])} "
                f"(uid {scores[0].uid!r}, {_keys(_style(scores[0], side))}); the official "
                "show_result cannot stack them",
            )
        rows.append(tuple(value or 0 for value in values))
    return np.array(rows, dtype=float).reshape(len(rows), len(rows[0]) if rows else 0)


def _style(score: JudgedScore, side: str) -> AnswerStyle | None:
    return score.model_style if side == SIDES[0] else score.baseline_style


def _keys(style: AnswerStyle | None) -> str:
    return "keys: " + ", ".join(style.key_order) if style is not None else "no metadata"


def _metadata_error(score: JudgedScore, side: str, why: str) -> ValueError:
    where = "" if score.place is None else f"{score.place}: "
    return ValueError(
        f"{where}uid {score.uid!r} ({score.model!r} against {score.baseline!r}): {side} "
        f"({_keys(_style(score, side))}): {why}"
    )
