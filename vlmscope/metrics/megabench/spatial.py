"""Box, point and keypoint metrics of MEGA-Bench (official semantics, quirks included).

Boxes are (x1, y1, x2, y2) in normalised coordinates. QUIRKS kept for parity: tuple IoU only averages
over *predicted* boxes (a single perfect box out of three targets scores 1); two empty box sequences
score NaN; the point-in-box info key of a matched box is the repr of the parsed tuple.
"""

from __future__ import annotations

import warnings
from numbers import Number
from typing import Any

import numpy as np

from vlmscope.literals import python_literal
from vlmscope.metrics.megabench.conversions import (
    best_iou_per_prediction,
    parse_bboxes_from_xml,
    parse_point_2d_from_xml,
    point_distance,
    str_to_bboxes,
    str_to_coords,
)

_KEYPOINT_DECAY = 10


def nbbox_iou_tuple(response: Any, target: Any) -> float:
    """Mean over predicted boxes of the best IoU against any target box; no prediction gives 0."""
    if not isinstance(response, (tuple, list)):
        response = str_to_bboxes(response)
    if not isinstance(target, (tuple, list)):
        target = str_to_bboxes(target)
    try:
        scores = best_iou_per_prediction(response, target)
    except Exception:
        return 0
    return sum(scores) / len(scores) if scores else 0


def nbbox_iou_single(response: Any, target: Any) -> float:
    """IoU of two single boxes given as literals; anything that is not one box scores 0."""
    target_box = python_literal(target)
    try:
        response_box = python_literal(response)
    except SyntaxError:
        return 0
    try:
        scores = best_iou_per_prediction([response_box], [target_box])
    except Exception:
        return 0
    return sum(scores) / len(scores) if scores else 0


def nbbox_iou_sequence(response: Any, target: Any) -> Any:
    """Mean of per-position IoUs of two equally long box sequences; both empty gives NaN (QUIRK)."""
    if not isinstance(response, (tuple, list)):
        response = str_to_bboxes(response if isinstance(response, str) else str(response))
    if not isinstance(target, (tuple, list)):
        target = str_to_bboxes(target)
    if len(target) != len(response):
        return 0
    scores = [
        best_iou_per_prediction([res], [tgt]) for res, tgt in zip(response, target, strict=False)
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.mean(scores)


def xml_nbbox_iou_single(response: Any, target: Any) -> float:
    """Tuple IoU of every `<box>..</box>` in the response against the target's boxes."""
    if not isinstance(response, (tuple, list)):
        response = parse_bboxes_from_xml(response)
    if not isinstance(target, (tuple, list)):
        target = parse_bboxes_from_xml(target)
    if len(response) == 0:
        return 0
    if isinstance(response[0], Number) and len(response) == 4:
        response = [response]
    scores = best_iou_per_prediction(response, target)
    return sum(scores) / len(scores) if scores else 0


def _normalised_point(point: Any) -> tuple[Any, ...]:
    if not isinstance(point, (tuple, list)):
        point = parse_point_2d_from_xml(point)
        if not point:
            raise ValueError("no single <point>x, y</point>")
    elif len(point) != 2:
        raise ValueError("point is not 2-D")
    if not all(0 <= coord <= 1 for coord in point):
        raise ValueError("point is not normalised")
    return tuple(point)


def xml_norm_point_distance(response: Any, target: Any) -> float:
    """max(0, 1 - Euclidean distance) of two normalised `<point>` tags; malformed points score 0."""
    try:
        predicted = _normalised_point(response)
        expected = _normalised_point(target)
    except ValueError:
        return 0
    return max(0, 1 - point_distance(predicted, expected))


def xml_norm_point_in_bbox(response: Any, eval_context: Any) -> tuple[int, dict[str, bool]]:
    """1 if the point lies in any `eval_context["bounding_boxes"]` box (inclusive), with a
    {box string: matched} info dict."""
    matched = {box: False for box in eval_context["bounding_boxes"]}
    boxes = [str_to_bboxes(box)[0] for box in eval_context["bounding_boxes"]]
    if not boxes:
        raise ValueError("no bounding boxes in eval_context")
    if not isinstance(response, (tuple, list)):
        response = parse_point_2d_from_xml(response)
        if not response:
            return 0, matched
    elif len(response) != 2:
        return 0, matched
    x, y = response
    for min_x, min_y, max_x, max_y in boxes:
        if min_x <= x <= max_x and min_y <= y <= max_y:
            matched[str((min_x, min_y, max_x, max_y))] = True
            return 1, matched
    return 0, matched


def sequence_coords_similarity(response: Any, target: Any) -> Any:
    """Mean of exp(-10 * d / sqrt(2)) over paired 2-D keypoints; shapes must match."""
    if not isinstance(response, (tuple, list)):
        response = str_to_coords(response, dim=2)
    if not isinstance(target, (tuple, list)):
        target = str_to_coords(target, dim=2)
    try:
        predicted = np.array(response)
    except ValueError:
        return 0
    expected = np.array(target)
    if predicted.shape != expected.shape:
        return 0
    distances = np.linalg.norm(predicted - expected, axis=1) / np.sqrt(2)
    return np.mean(np.exp(-_KEYPOINT_DECAY * distances))
