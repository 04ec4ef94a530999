"""A safe stand-in for the Python `eval` the official numerical match runs on answer text.

The official `general_single_numerical_match` hands strings such as "1/2", "3*3.14", "[1, 2]" or "E"
(sympy's printing of Euler's number) to Python's `eval` in a subprocess and keeps the value when it is
a number, list or tuple. We never `eval` data: this module walks the expression's AST and supports what
such answers contain - literals, containers, arithmetic/bitwise/comparison/boolean operators,
subscripts, the module-level constant `E = 2.718` of the official scorer, the `math` module and a few
numeric builtins. Anything else (unknown names such as `sqrt` or `x`, attribute access, lambdas)
is an error, exactly where the official `eval` raises a NameError. The walk is iterative: a chain
such as "1*1*...*1" is as deep as its length, and `eval` reads thousands of links where Python
recursion stops near one thousand. Results that would take the official 5 s subprocess limit
(huge powers and shifts) are reported as a timeout.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Generator
from typing import Any

OFFICIAL_E = 2.718
_MAX_INT_BITS = 1_000_000
_MAX_SEQUENCE_LENGTH = 10_000_000

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda left, right: left in right,
    ast.NotIn: lambda left, right: left not in right,
}
_NAMES: dict[str, Any] = {
    "E": OFFICIAL_E,
    "math": math,
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "pow": pow,
    "int": int,
    "float": float,
    "sum": sum,
    "len": len,
    "sorted": sorted,
}


class EvaluationTimeout(Exception):
    """The official subprocess would have been killed after 5 s."""


def _int_bits(value: Any) -> int:
    return abs(value).bit_length() if isinstance(value, int) else 0


def _guard_binary(op: ast.operator, left: Any, right: Any) -> None:
    huge_power = isinstance(op, ast.Pow) and isinstance(left, int) and isinstance(right, int)
    if huge_power and right > 0 and abs(left) > 1 and _int_bits(left) * right > _MAX_INT_BITS:
        raise EvaluationTimeout
    if isinstance(op, ast.LShift) and isinstance(right, int) and right > _MAX_INT_BITS:
        raise EvaluationTimeout
    if isinstance(op, ast.Mult):
        for sequence, count in ((left, right), (right, left)):
            sized = isinstance(sequence, (str, bytes, list, tuple)) and isinstance(count, int)
            if sized and len(sequence) * count > _MAX_SEQUENCE_LENGTH:
                raise EvaluationTimeout


_Step = Generator[ast.AST, Any, Any]


class _Evaluator:
    """Each node's rule is a plain method (leaves) or a generator that yields the child nodes it
    needs and receives their values, so `evaluate` walks a 2,000-deep chain such as "1*1*...*1"
    without Python recursion, as Python's own `eval` does."""

    def evaluate(self, root: ast.AST) -> Any:
        stack: list[_Step] = []
        started = self._start(root)
        value: Any = None
        if not isinstance(started, Generator):
            return started
        stack.append(started)
        while stack:
            try:
                child = stack[-1].send(value)
            except StopIteration as finished:
                stack.pop()
                value = finished.value
                continue
            started = self._start(child)
            if isinstance(started, Generator):
                stack.append(started)
                value = None
            else:
                value = started
        return value

    def _start(self, node: ast.AST) -> Any:
        rule = getattr(self, "visit_" + type(node).__name__, None)
        if rule is None:
            raise ValueError(f"unsupported syntax: {type(node).__name__}")
        return rule(node)

    def visit_Expression(self, node: ast.Expression) -> _Step:
        return (yield node.body)

    def visit_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def _values(self, nodes: list[ast.expr]) -> _Step:
        """The values of `nodes`, evaluated left to right."""
        values = []
        for item in nodes:
            values.append((yield item))
        return values

    def visit_Tuple(self, node: ast.Tuple) -> _Step:
        return tuple((yield from self._values(node.elts)))

    def visit_List(self, node: ast.List) -> _Step:
        return (yield from self._values(node.elts))

    def visit_Set(self, node: ast.Set) -> _Step:
        items = set()
        for item in node.elts:
            items.add((yield item))
        return items

    def visit_Dict(self, node: ast.Dict) -> _Step:
        result = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise ValueError("dict unpacking is not supported")
            result[(yield key)] = yield value
        return result

    def visit_BinOp(self, node: ast.BinOp) -> _Step:
        left = yield node.left
        right = yield node.right
        _guard_binary(node.op, left, right)
        return _BINARY[type(node.op)](left, right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> _Step:
        return _UNARY[type(node.op)]((yield node.operand))

    def visit_BoolOp(self, node: ast.BoolOp) -> _Step:
        result = yield node.values[0]
        for value in node.values[1:]:
            if isinstance(node.op, ast.And) and not result:
                return result
            if isinstance(node.op, ast.Or) and result:
                return result
            result = yield value
        return result

    def visit_Compare(self, node: ast.Compare) -> _Step:
        left = yield node.left
        for op, comparator in zip(node.ops, node.comparators, strict=False):
            right = yield comparator
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def visit_IfExp(self, node: ast.IfExp) -> _Step:
        return (yield node.body) if (yield node.test) else (yield node.orelse)

    def visit_Subscript(self, node: ast.Subscript) -> _Step:
        value = yield node.value
        return value[(yield node.slice)]

    def visit_Slice(self, node: ast.Slice) -> _Step:
        parts = []
        for part in (node.lower, node.upper, node.step):
            parts.append(None if part is None else (yield part))
        return slice(*parts)

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id not in _NAMES:
            raise NameError(f"name {node.id!r} is not defined")
        return _NAMES[node.id]

    def visit_Attribute(self, node: ast.Attribute) -> _Step:
        owner = yield node.value
        if owner is not math or node.attr.startswith("_"):
            raise ValueError("attribute access is not supported")
        return getattr(math, node.attr)

    def visit_Call(self, node: ast.Call) -> _Step:
        function = yield node.func
        if not callable(function) or node.keywords:
            raise ValueError("unsupported call")
        return function(*(yield from self._values(node.args)))


def evaluate_expression(text: str) -> Any:
    """Value of a Python expression made of the supported parts; raises like `eval` would (or
    `EvaluationTimeout`)."""
    return _Evaluator().evaluate(ast.parse(text.strip(" \t"), mode="eval"))
