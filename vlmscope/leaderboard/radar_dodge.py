"""Where each model's marks sit on a keyword radar, so that models never hide one another.

Keywords sit evenly round the circle. Every model's interval whisker on a keyword would lie on
the same spoke, and two models' whiskers there would cover each other exactly, so each model's
score marker and whisker are turned a little off the spoke (a dodge, as grouped bars are): by
the model's place in the order the models are drawn (the legend's), centred on the spoke, so
with two models one sits just before it and one just after, and a model keeps its side on every
keyword. The polygons themselves stay on the spokes, where the keyword labels are.

The spread of all the models on one keyword takes at most `SPREAD` of the angle between two
neighbouring keywords, so a model's marks never drift towards the next keyword, and neighbours
are at most `MAX_STEP` degrees apart, so with few keywords they stay beside their spoke.
"""

from __future__ import annotations

SPREAD = 0.3
"""The share of the angle between neighbouring keywords that one keyword's models may span."""
MAX_STEP = 6.0
"""Degrees between two neighbouring models' marks, at most."""


def keyword_angles(keywords: int) -> list[float]:
    """The spoke of each keyword, in degrees, evenly round the circle from 0."""
    return [360.0 * i / keywords for i in range(keywords)]


def dodge_offsets(models: int, keywords: int) -> list[float]:
    """How far each model's marks are turned off the spoke, in degrees, in the models' order:
    evenly spaced and centred on 0 (a lone model stays on it)."""
    if models <= 1 or keywords <= 0:
        return [0.0] * max(models, 0)
    step = min(360.0 / keywords * SPREAD / (models - 1), MAX_STEP)
    centre = (models - 1) / 2
    return [(i - centre) * step for i in range(models)]
