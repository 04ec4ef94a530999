"""`symbolic_planning_test`: simulate a STRIPS plan in the task's PDDL (official semantics).

The domain's actions (parameters, preconditions, effects) are read from `eval_context["domain_pddl"]`
with the official string-splitting parser; plan lines are the response lines that *start* with "("
(indented lines are dropped: QUIRK). An unknown action, wrong arity or unmet precondition scores 0;
after the plan every goal literal of the task's `(and ...)` must hold. The ground-truth plan is unused.
The parser is a port of the official one because its exact tolerance (and intolerance) of PDDL
layouts is part of the score.
"""

from __future__ import annotations

import re
from typing import Any

_PARAM_GROUP = re.compile(r"((?:\?\S+\s*)+)(?:-\s+([^\?$]+)\s*)?")
_PARAM_NAME = re.compile(r"\?([^\s\?\)]+)\s*")
_NOT = "(not "


def _parameter_types(params: str) -> dict[str, Any]:
    params = params.strip()
    if not (params[0] == "(" and params[-1] == ")"):
        raise AssertionError("parameter list must be parenthesised")
    types: dict[str, Any] = {}
    for names, type_name in _PARAM_GROUP.findall(params[1:-1]):
        for name in _PARAM_NAME.findall(names):
            type_name = type_name.strip()
            if type_name.startswith("("):
                types[name] = re.split(r"\s+", type_name[1:-1].strip())[1:]
            else:
                types[name] = type_name
    return types


def _outer_and_inner(
    text: str, ender: str, inner_open: str, inner_close: str
) -> tuple[str, list[str], int]:
    depth = 0
    start = 0
    inner: list[str] = []
    for index, char in enumerate(text):
        if depth == 0 and char == ender:
            return text[: index + 1], inner, index + 1
        if char == inner_open:
            if depth == 0:
                start = index
            depth += 1
        elif char == inner_close:
            depth -= 1
            if depth == 0:
                inner.append(text[start : index + 1])
    return text, inner, len(text)


def _attribute(text: str, starter: str) -> tuple[Any, Any]:
    """Official `parse_pddl_attr_from_string` (non-overlapping variant)."""
    pieces = text.split(starter)
    if len(pieces) == 1:
        return "", []
    if len(pieces) == 2:
        outer, inner, _ = _outer_and_inner(pieces[1], ")", "(", ")")
        return starter + outer, inner
    outer_list: list[str] = []
    named: dict[str, list[str]] = {}
    while len(text.split(starter)) > 1:
        text = text.split(starter, 1)[1]
        name = re.split(r"\s+", text.strip())[0]
        outer, inner, end = _outer_and_inner(text, ")", "(", ")")
        outer_list.append(starter + outer)
        named[name] = inner
        text = text[end:]
    return outer_list, named


def _drop_types(clause: str) -> str:
    parts = clause.split(" - ")
    if len(parts) == 1:
        return clause
    for index in range(1, len(parts)):
        if len(parts[index].strip().split(")")[0].split()) == 1:
            parts[index] = ")" + parts[index].strip().split(")", 1)[1]
        else:
            parts[index] = " " + parts[index].strip().split(" ", 1)[1]
    return "".join(parts).strip()


def _conjuncts(text: str) -> set[str]:
    if not text.startswith("(and"):
        raise AssertionError("expected a conjunction")
    clauses: set[str] = set()
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
            if depth == 2:
                start = index
        elif char == ")":
            depth -= 1
            if depth == 0:
                break
            if depth == 1:
                clauses.add(_drop_types(text[start : index + 1]))
    return clauses


class _Domain:
    def __init__(self, domain_pddl: str) -> None:
        outer_list, actions = _attribute(domain_pddl, "(:action")
        self.action_names: list[str] = []
        self.action_params: list[dict[str, Any]] = []
        for _, (name, parts) in zip(outer_list, actions.items(), strict=False):
            if len(parts) != 3:
                raise AssertionError(f"action {name} must have parameters, precondition, effect")
            self.action_names.append(name)
            self.action_params.append(_parameter_types(parts[0]))
        self.conditions: dict[str, list[str]] = {}
        for name in self.action_names:
            body = domain_pddl.split(f"(:action {name}")[1]
            for suffix, tag in (("pre", ":precondition"), ("post", ":effect")):
                condition = body.split(tag)[1].strip()
                if condition.startswith("(and"):
                    clauses = _conjuncts(condition)
                else:
                    clauses = {condition.split(")")[0].strip() + ")"}
                self.conditions[f"{name}_{suffix}"] = sorted(
                    clauses, key=lambda clause: 0 if clause.startswith(_NOT) else 1
                )


def _bind(domain: _Domain, action: str) -> tuple[dict[str, str], str]:
    words = action[1:-1].split(" ")
    name, objects = words[0].strip(), words[1:]
    index = domain.action_names.index(name)
    if len(objects) != len(domain.action_params[index]):
        raise AssertionError("wrong number of arguments")
    return dict(zip(domain.action_params[index], objects, strict=False)), name


def _ground(clause: str, binding: dict[str, str]) -> str:
    for param, obj in binding.items():
        clause = re.sub(rf"\?{param}(?=[^\w-])", obj, clause)
    return clause


def _holds(state: list[str], clause: str) -> bool:
    return clause not in state if clause.startswith(_NOT) else clause in state


def _apply(state: list[str], effects: list[str], binding: dict[str, str]) -> list[str]:
    for effect in effects:
        effect = _ground(effect, binding)
        _, negated = _attribute(effect, _NOT)
        if negated:
            if len(negated) != 1:
                raise AssertionError("malformed negated effect")
            if negated[0] in state:
                state.remove(negated[0])
        elif effect.strip() not in state:
            state.append(effect)
    return state


def symbolic_planning_test(response: Any, eval_context: Any) -> int:
    """1 iff the plan is executable from the initial state and reaches the goal."""
    domain = _Domain(eval_context["domain_pddl"])
    if isinstance(response, str):
        candidates = response.split("\n")
    elif isinstance(response, (tuple, list)):
        candidates = list(response)
    else:
        raise ValueError(f"unsupported plan type {type(response).__name__}")
    plan = [line.strip() for line in candidates if line.startswith("(")]
    try:
        task_pddl = eval_context["task_pddl"]
        state = _attribute(task_pddl, "(:init")[1]
        goal = _attribute(task_pddl, "(and")[1]
    except IndexError:
        return 0
    try:
        for action in plan:
            binding, name = _bind(domain, action)
            if not all(
                _holds(state, _ground(c, binding)) for c in domain.conditions[f"{name}_pre"]
            ):
                return 0
            state = _apply(state, domain.conditions[f"{name}_post"], binding)
        return 1 if all(_holds(state, clause) for clause in goal) else 0
    except (ValueError, AssertionError):
        return 0
