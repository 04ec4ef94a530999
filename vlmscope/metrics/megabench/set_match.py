"""Set-valued metrics of MEGA-Bench (official semantics, quirks included).

Both sides are read with the shared conversions (literal first, comma split second), so quoted and
unquoted numbers differ ('1' vs 1), a quoted string becomes a set of characters, and an unclosed
bracket gives an empty set. QUIRKS kept: set precision of an empty prediction is 1; the Jaccard
index of two empty sets is 1; chess moves lose a trailing "!" and "#" but keep "+".
"""

from __future__ import annotations

from typing import Any

from vlmscope.metrics.megabench import conversions
from vlmscope.metrics.megabench.conversions import cast_to_set, str_to_set

_TUPLE_ITEM_NOISE = (" ", "-", "\n", "\t", "_", ".")


def set_equality(response: Any, target: Any) -> int:
    """1 iff both sides cast to the same set (case-sensitive)."""
    return 1 if cast_to_set(response) == cast_to_set(target) else 0


def set_equality_case_insensitive(response: Any, target: Any) -> int:
    """Upper-cased set equality; non-string elements score 0."""
    try:
        responses = {text.upper() for text in cast_to_set(response)}
        targets = {text.upper() for text in cast_to_set(target)}
    except AttributeError:
        return 0
    return 1 if responses == targets else 0


def _lower_strings(items: Any) -> set[Any]:
    return {item.lower() if isinstance(item, str) else item for item in items}


def str_set_equality_line_break(response: Any, target: Any) -> int:
    """Lines (a literal "\\n" counts as a line break) compared as lower-cased sets."""
    if "\\n" in target:
        target = target.replace("\\n", "\n")
    if "\\n" in response:
        response = response.replace("\\n", "\n")
    return 1 if _lower_strings(response.split("\n")) == _lower_strings(target.split("\n")) else 0


def str_set_equality_comma(response: Any, target: Any) -> int:
    """str->set on both sides (non-strings give the empty set), strings lower-cased."""
    return 1 if _lower_strings(str_to_set(response)) == _lower_strings(str_to_set(target)) else 0


def set_precision(response: Any, target: Any) -> float:
    """|P ∩ T| / |P|; None scores 0, an empty prediction scores 1 (QUIRK)."""
    if response is None:
        return 0
    return conversions.set_precision(cast_to_set(response), cast_to_set(target))


def jaccard_index(response: Any, target: Any) -> float:
    """Jaccard index of the cast sets; None scores 0, two empty sets score 1."""
    if response is None:
        return 0
    return conversions.jaccard_index(cast_to_set(response), cast_to_set(target))


def _squash_tuple(items: Any) -> tuple[Any, ...]:
    squashed = []
    for item in items:
        text = item.lower()
        for noise in _TUPLE_ITEM_NOISE:
            text = text.replace(noise, "")
        squashed.append(text)
    return tuple(squashed)


def jaccard_index_case_insensitive(response: Any, target: Any) -> float:
    """Case-insensitive Jaccard; the type of the *first* target element (in set order) decides:
    strings are lower-cased, tuples have each string lower-cased and spaces, "-", newlines, tabs,
    "_" and "." deleted; any other type (ints) scores 0."""
    if response is None:
        return 0
    responses = cast_to_set(response)
    targets = cast_to_set(target)
    new_responses: set[Any]
    new_targets: set[Any]
    first_target = list(targets)[0]
    if isinstance(first_target, str):
        new_responses = {
            item.lower() if isinstance(item, str) else str(item).lower() for item in responses
        }
        new_targets = {item.lower() for item in targets}
    elif isinstance(first_target, tuple):
        try:
            new_responses = {_squash_tuple(item) for item in responses}
        except Exception:
            return 0
        new_targets = {_squash_tuple(item) for item in targets}
    else:
        return 0
    return conversions.jaccard_index(new_responses, new_targets)


def _chess_moves(moves: Any) -> set[Any]:
    return {move.removesuffix("!").removesuffix("#") for move in str_to_set(moves)}


def chess_move_list_jaccard_index(response: Any, target: Any) -> float:
    """Jaccard index of SAN move sets; "!" and "#" suffixes dropped, "+" kept (QUIRK)."""
    if response is None:
        return 0
    return conversions.jaccard_index(_chess_moves(response), _chess_moves(target))
