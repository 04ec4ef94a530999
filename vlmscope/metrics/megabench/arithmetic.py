"""A safe stand-in for the Python `eval` the official numerical match runs on answer text.

The official `general_single_numerical_match` hands strings such as "1/2", "3*3.14", "[1, 2]" or "E"
(sympy's printing of Euler's number) to Python's `eval` in a subprocess and keeps the value when it is
a number, list or tuple. We never `eval` data: this module walks the expression's AST and supports what
such answers contain - literals, containers, arithmetic/bitwise/comparison/boolean operators,
subscripts, the module-level constant `E = 2.718` of the official scorer, the `math` module and a few
numeric builtins. Anything else (unknown names such as `sqrt` or `x`, attribute access, lambdas)
is an error, exactly where the official `eval` raises a NameError. Results that would take the
official 5 s subprocess limit (huge powers and shifts) are reported as a timeout.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
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


class _Evaluator(ast.NodeVisitor):
    def generic_visit(self, node: ast.AST) -> Any:
        raise ValueError(f"unsupported syntax: {type(node).__name__}")

    def visit_Expression(self, node: ast.Expression) -> Any:
        return self.visit(node.body)

    def visit_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def visit_Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self.visit(item) for item in node.elts)

    def visit_List(self, node: ast.List) -> Any:
        return [self.visit(item) for item in node.elts]

    def visit_Set(self, node: ast.Set) -> Any:
        return {self.visit(item) for item in node.elts}

    def visit_Dict(self, node: ast.Dict) -> Any:
        result = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise ValueError("dict unpacking is not supported")
            result[self.visit(key)] = self.visit(value)
        return result

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        left, right = self.visit(node.left), self.visit(node.right)
        _guard_binary(node.op, left, right)
        return _BINARY[type(node.op)](left, right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        return _UNARY[type(node.op)](self.visit(node.operand))

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        result = self.visit(node.values[0])
        for value in node.values[1:]:
            if isinstance(node.op, ast.And) and not result:
                return result
            if isinstance(node.op, ast.Or) and result:
                return result
            result = self.visit(value)
        return result

    def visit_Compare(self, node: ast.Compare) -> Any:
        left = self.visit(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=False):
            right = self.visit(comparator)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        return self.visit(node.body) if self.visit(node.test) else self.visit(node.orelse)

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        return self.visit(node.value)[self.visit(node.slice)]

    def visit_Slice(self, node: ast.Slice) -> Any:
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if part is None else self.visit(part) for part in parts))

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id not in _NAMES:
            raise NameError(f"name {node.id!r} is not defined")
        return _NAMES[node.id]

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        owner = self.visit(node.value)
        if owner is not math or node.attr.startswith("_"):
            raise ValueError("attribute access is not supported")
        return getattr(math, node.attr)

    def visit_Call(self, node: ast.Call) -> Any:
        function = self.visit(node.func)
        if not callable(function) or node.keywords:
            raise ValueError("unsupported call")
        return function(*(self.visit(arg) for arg in node.args))


def evaluate_expression(text: str) -> Any:
    """Value of a Python expression made of the supported parts; raises like `eval` would (or
    `EvaluationTimeout`)."""
    return _Evaluator().visit(ast.parse(text.strip(" \t"), mode="eval"))
