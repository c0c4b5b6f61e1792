"""Writing one value as many different YAML texts: block or flow, any key order, with comments.

Every text written here must load back to the same value; the property tests check that the
loader, the models and the digests cannot tell them apart.
"""

from __future__ import annotations

import json
import random
from typing import Any


def scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return quoted(value)


def _needs_escape(char: str) -> bool:
    # Outside YAML's printable set, or a line break YAML would fold inside a quoted scalar.
    code = ord(char)
    printable = code in (0x09,) or 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000
    return not printable or code in (0x2028, 0x2029)


def quoted(value: str) -> str:
    """A YAML double-quoted scalar. JSON's escapes are YAML's, except that YAML refuses the surrogate
    pairs JSON writes for characters above U+FFFF: those are written as themselves."""
    body = json.dumps(value, ensure_ascii=False)[1:-1]
    return '"' + "".join(f"\\u{ord(c):04x}" if _needs_escape(c) else c for c in body) + '"'


def emit(value: Any, rng: random.Random, *, flow: float = 0.3, comments: bool = True) -> str:
    """``value`` as YAML; ``flow`` is the chance that a collection is written in flow style."""
    lines: list[str] = []
    if comments and rng.random() < 0.5:
        lines.append("# written by tests/property/yamltext.py")
    _block(value, 0, rng, flow, comments, lines)
    return "\n".join(lines) + "\n"


def _keys(mapping: dict, rng: random.Random) -> list:
    keys = list(mapping)
    rng.shuffle(keys)
    return keys


# Plain keys that YAML would read as something other than a string.
_NOT_PLAIN = {"null", "true", "false", "~", ""}


def _key(key: str, rng: random.Random) -> str:
    if key in _NOT_PLAIN or not key.replace("_", "a").isalnum() or not key.isascii() or rng.random() < 0.2:
        return quoted(key)
    return key


def _flow(value: Any, rng: random.Random) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(key, rng)}: {_flow(value[key], rng)}" for key in _keys(value, rng)) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(item, rng) for item in value) + "]"
    return scalar(value)


def _is_collection(value: Any) -> bool:
    return isinstance(value, (dict, list)) and len(value) > 0


def _block(value: Any, indent: int, rng: random.Random, flow: float, comments: bool, lines: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict):
        for key in _keys(value, rng):
            item = value[key]
            if comments and rng.random() < 0.1:
                lines.append(f"{pad}# a comment about {key}")
            head = f"{pad}{_key(key, rng)}:"
            if _is_collection(item) and rng.random() >= flow:
                lines.append(head)
                _block(item, indent + 2, rng, flow, comments, lines)
            else:
                tail = f"  # {key}" if comments and rng.random() < 0.1 else ""
                lines.append(f"{head} {_flow(item, rng)}{tail}")
    elif isinstance(value, list):
        for item in value:
            if _is_collection(item) and rng.random() >= flow:
                # "- " then the first line of the nested block on the same line, the rest indented.
                nested: list[str] = []
                _block(item, indent + 2, rng, flow, False, nested)
                lines.append(f"{pad}- {nested[0].lstrip()}")
                lines.extend(nested[1:])
            else:
                lines.append(f"{pad}- {_flow(item, rng)}")
    else:
        lines.append(pad + scalar(value))
