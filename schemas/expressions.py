"""Integer axis expressions such as ``head_dim = hidden // q_heads``, parsed and evaluated without eval().

The grammar is deliberately tiny: integer literals, axis names, ``+ - * // %``, unary minus and
parentheses. Python's ``ast`` only parses the text (it executes nothing); every node outside that
grammar is refused, and evaluation walks the tree with integer arithmetic of our own.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass

MAX_EXPRESSION_LENGTH = 200
_ALLOWED_CHARS = re.compile(r"^[A-Za-z0-9_+\-*/%() ]*$")

_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
}


class ExpressionError(ValueError):
    """The text is not in the grammar, names an unknown axis, or divides by zero."""


@dataclass(frozen=True)
class Expression:
    text: str
    tree: ast.expr

    @property
    def names(self) -> frozenset[str]:
        return frozenset(node.id for node in ast.walk(self.tree) if isinstance(node, ast.Name))

    def evaluate(self, values: Mapping[str, int]) -> int:
        return _evaluate(self.tree, values)


def parse_expression(text: str) -> Expression:
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError("empty expression")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise ExpressionError(f"expression longer than {MAX_EXPRESSION_LENGTH} characters")
    if not _ALLOWED_CHARS.fullmatch(text):
        raise ExpressionError(f"{text!r}: only integers, axis names, + - * // % and parentheses are allowed")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise ExpressionError(f"{text!r} is not a valid expression") from None
    _check(tree, text)
    return Expression(text=text.strip(), tree=tree)


def _check(node: ast.AST, text: str) -> None:
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        _check(node.left, text)
        _check(node.right, text)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _check(node.operand, text)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        pass
    elif isinstance(node, ast.Name):
        pass
    else:
        raise ExpressionError(f"{text!r}: {type(node).__name__} is not allowed (use // for integer division)")


def _evaluate(node: ast.expr, values: Mapping[str, int]) -> int:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise ExpressionError(f"unknown axis {node.id!r}")
        return values[node.id]
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, values)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _evaluate(node.left, values), _evaluate(node.right, values)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
            raise ExpressionError("division by zero")
        return _BINARY[type(node.op)](left, right)
    raise ExpressionError(f"{type(node).__name__} is not allowed")  # unreachable after _check
