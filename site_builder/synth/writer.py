"""A small, fixed-format YAML writer for generated data files.

ruamel.yaml's general emitter would make generating a large repository, a file per run, a long
wait before any scale measurement can start; this writer only knows the shapes the generator
produces (mappings, lists, strings, numbers, booleans) and writes them in one fixed style: block
mappings, flow lists of scalars, and short flow mappings of scalars. Any string that a YAML reader
could take for something else (a number, a date, a boolean, a comment) is double-quoted,
JSON-style, which is also valid YAML.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Plain (unquoted) only when nothing in YAML 1.1 or 1.2 could read it as another type or syntax.
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/ ]*$")
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf"}
_FLOW_WIDTH = 90


_STRINGS: dict[str, str] = {}  # names repeat across thousands of files: decide quoting once each


def scalar(value: Any) -> str:
    if type(value) is str:
        text = _STRINGS.get(value)
        if text is None:
            text = _string(value)
            if len(_STRINGS) < 100_000:  # bounded: unique strings (run names) would only grow it
                _STRINGS[value] = text
        return text
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        # "1e-05" is a float in YAML 1.2 only with a dot in the mantissa for some readers.
        if "e" in text and "." not in text.split("e")[0]:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"
        return text
    return _string(str(value))


def _string(text: str) -> str:
    if _PLAIN.match(text) and text.lower() not in _RESERVED and not text.endswith(" ") and "  " not in text:
        return text
    return json.dumps(text, ensure_ascii=False)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _flow(value: Any) -> str | None:
    """One-line form of a list of scalars or a small mapping of scalars, when it fits."""
    if isinstance(value, list) and all(_is_scalar(item) for item in value):
        text = "[" + ", ".join(scalar(item) for item in value) + "]"
        if all(isinstance(item, int) for item in value):
            return text  # numbers (raw samples) read fine on one long line
    elif isinstance(value, dict) and len(value) <= 4 and all(_is_scalar(item) for item in value.values()):
        text = "{" + ", ".join(f"{key}: {scalar(item)}" for key, item in value.items()) + "}"
    else:
        return None
    return text if len(text) <= _FLOW_WIDTH else None


def _mapping(value: dict[str, Any], indent: str, out: list[str]) -> None:
    for key, item in value.items():
        if _is_scalar(item):
            out.append(f"{indent}{key}: {scalar(item)}\n")
            continue
        flow = _flow(item) if indent else None  # top-level sections stay in block style
        if flow is not None:
            out.append(f"{indent}{key}: {flow}\n")
        elif isinstance(item, dict):
            out.append(f"{indent}{key}:\n")
            _mapping(item, indent + "  ", out)
        else:
            out.append(f"{indent}{key}:\n")
            _sequence(item, indent + "  ", out)


def _sequence(value: list[Any], indent: str, out: list[str]) -> None:
    for item in value:
        if _is_scalar(item):
            out.append(f"{indent}- {scalar(item)}\n")
        elif isinstance(item, dict) and item:
            # The first key shares the dash's line; the rest line up under it.
            lines: list[str] = []
            _mapping(item, indent + "  ", lines)
            lines[0] = indent + "- " + lines[0][len(indent) + 2:]
            out.extend(lines)
        else:
            flow = _flow(item)
            out.append(f"{indent}- {flow if flow is not None else json.dumps(item)}\n")


def dump(document: dict[str, Any], comment: str | None = None) -> str:
    out: list[str] = [f"# {comment}\n"] if comment else []
    _mapping(document, "", out)
    return "".join(out)
