"""Conversions shared by the MEGA-Bench metrics (official semantics, quirks included).

Text answers are turned into sets, lists, dicts, boxes and points the way the official helpers do it:
`ast.literal_eval` first (through `parsing.python_literal`), a comma split as the fallback. The quirks
matter for parity: a literal `None` becomes the empty *string*, a quoted string becomes the set of its
characters, an unclosed bracket gives an empty container, a number becomes a one-element container.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable
from numbers import Number
from typing import Any

from vlmscope.literals import python_literal
from vlmscope.metrics.megabench.parsing import extract_json

_CLOSERS = {"(": ")", "{": "}", "[": "]"}
_POINT_TAG = re.compile(r"<point>(.*?)<\/point>")
_BOX_TAG = re.compile(r"<box>(.*?)<\/box>")


def freeze_structure(value: Any) -> Any:
    """Nested lists/tuples/dicts/sets made hashable (tuples and frozensets)."""
    if isinstance(value, dict):
        return frozenset((key, freeze_structure(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(freeze_structure(item) for item in value)
    if isinstance(value, set):
        return frozenset(value)
    return value


def str_to_iterable(container: Callable[..., Any], text: Any) -> Any:
    """Official `str_to_iterable`: literal first, comma split as fallback (see module docstring)."""
    if not isinstance(text, str):
        return container()
    text = text.strip(" ")
    if not text:
        return container()
    opener = text[0]
    bracketed = opener in _CLOSERS
    if bracketed and not text.endswith(_CLOSERS[opener]):
        return container()
    try:
        value = python_literal(text)
        if value is None:
            return ""
        if isinstance(value, (int, float)):
            value = [value]
        return container(value)
    except (SyntaxError, ValueError):
        if bracketed:
            text = text[1:-1]
        return container([item.strip() for item in text.split(",")])
    except TypeError:  # official: unhashable items ("[['a']]", "{[1]}") give an empty container
        return container()


def str_to_set(text: Any) -> Any:
    return str_to_iterable(set, text)


def str_to_list(text: Any) -> Any:
    return str_to_iterable(list, text)


def cast_to_set(value: Any) -> Any:
    """Sequences and sets become sets of (frozen) elements; anything else goes through str_to_set."""
    value = freeze_structure(value)
    if isinstance(value, (frozenset, set, tuple)):
        return set(value)
    return str_to_set(value)


def cast_to_dict(value: Any) -> Any:
    """Dicts recursively; strings through the JSON extractor when it finds something; else as is."""
    if isinstance(value, dict):
        return {key: cast_to_dict(item) for key, item in value.items()}
    if isinstance(value, str):
        extracted = extract_json(value)
        return extracted if extracted else value
    return value


def str_to_bboxes(text: Any) -> list[Any]:
    """Boxes (4 numbers each) from a literal or JSON string; a flat 4-number sequence is one box."""
    if not isinstance(text, str):
        return []
    try:
        boxes = python_literal(text)
    except (SyntaxError, ValueError):
        try:
            boxes = json.loads(text)
        except json.JSONDecodeError:
            return []
    if len(boxes) == 4 and isinstance(boxes[0], Number):
        boxes = [boxes]
    if not isinstance(boxes, (tuple, list)):
        return []
    return [
        box
        for box in boxes
        if isinstance(box, (tuple, list))
        and len(box) == 4
        and all(isinstance(coord, (float, int)) for coord in box)
    ]


def str_to_coords(text: Any, dim: int = 2) -> list[Any]:
    """Points of `dim` numbers; the literal step only falls back to JSON on a SyntaxError."""
    if not isinstance(text, str):
        return []
    try:
        coords = python_literal(text)
    except SyntaxError:
        try:
            coords = json.loads(text)
        except json.JSONDecodeError:
            return []
    return [
        point
        for point in coords
        if isinstance(point, (tuple, list))
        and len(point) == dim
        and all(isinstance(coord, (float, int)) for coord in point)
    ]


def parse_point_2d_from_xml(text: Any) -> tuple[float, ...] | None:
    """The single `<point>x, y</point>` of a string; None for zero, several or malformed points."""
    if not isinstance(text, str):
        return None
    matches = _POINT_TAG.findall(text)
    if len(matches) != 1:
        return None
    coords = matches[0].split(",")
    if len(coords) != 2:
        return None
    try:
        return tuple(float(coord.strip()) for coord in coords)
    except ValueError:
        return None


def parse_bboxes_from_xml(text: Any) -> list[tuple[float, ...]]:
    """Every well-formed `<box>a, b, c, d</box>` of a string."""
    if not isinstance(text, str):
        return []
    boxes = []
    for match in _BOX_TAG.findall(text):
        coords = match.split(",")
        if len(coords) != 4:
            continue
        try:
            boxes.append(tuple(float(coord.strip()) for coord in coords))
        except ValueError:
            continue
    return boxes


def _box_iou(box1: Any, box2: Any) -> Any:
    intersection = max(0, min(box1[2], box2[2]) - max(box1[0], box2[0])) * max(
        0, min(box1[3], box2[3]) - max(box1[1], box2[1])
    )
    area1 = (box1[2] - box1[0]) * (box1[3] - box1[1])
    area2 = (box2[2] - box2[0]) * (box2[3] - box2[1])
    union = area1 + area2 - intersection
    return intersection / union if union > 0 else 0


def best_iou_per_prediction(predicted: Iterable[Any], targets: Iterable[Any]) -> list[Any]:
    """For every predicted box, its best IoU against all targets (no recall term: QUIRK)."""
    target_list = list(targets)
    scores = []
    for predicted_box in predicted:
        best = 0
        for target_box in target_list:
            best = max(best, _box_iou(predicted_box, target_box))
        scores.append(best)
    return scores


def _set_relevance(denominator: int, predicted: set[Any], target: set[Any]) -> float:
    return 1 if not denominator else len(predicted & target) / denominator


def jaccard_index(predicted: Iterable[Any], target: Iterable[Any]) -> float:
    """|P ∩ T| / |P ∪ T|; two empty sets give 1."""
    predicted_set, target_set = set(predicted), set(target)
    return _set_relevance(len(predicted_set | target_set), predicted_set, target_set)


def set_precision(predicted: Iterable[Any], target: Iterable[Any]) -> float:
    """|P ∩ T| / |P|; an empty prediction gives 1 (QUIRK)."""
    predicted_set, target_set = set(predicted), set(target)
    return _set_relevance(len(predicted_set), predicted_set, target_set)


def longest_common_prefix(first: list[Any], second: list[Any]) -> list[Any]:
    for index, (left, right) in enumerate(zip(first, second, strict=False)):
        if left != right:
            return first[:index]
    return first[: min(len(first), len(second))]


def point_distance(predicted: tuple[float, ...], target: tuple[float, ...]) -> float:
    if len(predicted) != len(target):
        raise ValueError("points have different dimensions")
    return math.sqrt(
        sum((left - right) ** 2 for left, right in zip(predicted, target, strict=False))
    )
