"""Reading YAML safely and fast, and finding where a value sits in a file when we must report it.

Files are parsed with ruamel.yaml's C safe loader (no tags, no Python objects). The slower
round-trip loader runs only when an error needs a line and column, or when the formatter must keep
comments. Hostile input is refused before it can cost anything: oversized files, byte order marks,
bytes that are not UTF-8, anchors and aliases (the "billion laughs" expansion), deep nesting.
"""

from __future__ import annotations

import threading
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from .problems import Problem

MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 24

_local = threading.local()


def _safe_yaml() -> YAML:
    if not hasattr(_local, "safe"):
        yaml = YAML(typ="safe", pure=False)
        yaml.allow_duplicate_keys = False
        _local.safe = yaml
    return _local.safe


def _round_trip_yaml() -> YAML:
    if not hasattr(_local, "rt"):
        yaml = YAML(typ="rt")
        yaml.allow_duplicate_keys = True  # only used to locate values in files already checked
        _local.rt = yaml
    return _local.rt


def _position(raw: bytes, offset: int) -> tuple[int, int]:
    before = raw[:offset]
    line = before.count(b"\n") + 1
    column = offset - (before.rfind(b"\n") + 1) + 1
    return line, column


def decode(raw: bytes, path: str) -> tuple[str | None, list[Problem]]:
    if len(raw) > MAX_FILE_BYTES:
        return None, [Problem(path, 1, 1, f"file is {len(raw):,} bytes; the limit is {MAX_FILE_BYTES:,}")]
    if raw.startswith(b"\xef\xbb\xbf"):
        return None, [Problem(path, 1, 1, "file starts with a UTF-8 byte order mark; save it without one")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line, column = _position(raw, error.start)
        return None, [Problem(path, line, column, f"bytes are not UTF-8 (0x{raw[error.start]:02x})")]
    for index, char in enumerate(text):
        if char == "\x00":
            line, column = _position(raw, len(text[:index].encode("utf-8")))
            return None, [Problem(path, line, column, "NUL byte in a text file")]
    return text, []


def _yaml_problem(error: YAMLError, path: str) -> Problem:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    if isinstance(error, MarkedYAMLError):
        what = error.problem or error.context or "invalid YAML"
        if "duplicate key" in str(error):
            what = f"duplicate key {str(error).split('found duplicate key', 1)[1].split(' with value', 1)[0].strip()}"
    else:
        what = str(error).splitlines()[0]
    return Problem(path, line, column, f"YAML: {what}")


def _check_no_aliases(text: str, path: str) -> list[Problem]:
    # Cheap pre-test: anchors need '&' and aliases '*'; most files have neither.
    if "&" not in text and "*" not in text:
        return []
    from ruamel.yaml.events import AliasEvent

    try:
        for event in _safe_yaml().parse(text):
            anchor = getattr(event, "anchor", None)
            if isinstance(event, AliasEvent) or anchor:
                mark = event.start_mark
                return [Problem(path, mark.line + 1, mark.column + 1,
                                "YAML anchors and aliases are not allowed in data files")]
    except YAMLError as error:
        return [_yaml_problem(error, path)]
    return []


def _depth(value: Any, limit: int) -> int:
    stack = [(value, 1)]
    deepest = 0
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)
    return deepest


def load_text(text: str, path: str) -> tuple[Any, list[Problem]]:
    problems = _check_no_aliases(text, path)
    if problems:
        return None, problems
    try:
        value = _safe_yaml().load(text)
    except YAMLError as error:
        return None, [_yaml_problem(error, path)]
    except RecursionError:
        return None, [Problem(path, 1, 1, "YAML is nested too deeply")]
    if _depth(value, MAX_DEPTH) > MAX_DEPTH:
        return None, [Problem(path, 1, 1, f"YAML is nested deeper than {MAX_DEPTH} levels")]
    return value, []


def load_bytes(raw: bytes, path: str) -> tuple[Any, list[Problem]]:
    text, problems = decode(raw, path)
    if text is None:
        return None, problems
    return load_text(text, path)


def locate(text: str, location: tuple[Any, ...]) -> tuple[int, int]:
    """Line and column (1-based) of the deepest part of ``location`` that exists in the file.

    For a missing key, that is the mapping that should hold it. Keys point at the key itself, so
    an editor jumps to the line a person must change.
    """
    try:
        node = _round_trip_yaml().load(text)
    except Exception:
        return 1, 1
    line, column = 0, 0
    for part in location:
        try:
            if isinstance(part, str) and hasattr(node, "lc") and isinstance(node, dict) and part in node:
                line, column = node.lc.key(part)
                node = node[part]
            elif isinstance(part, int) and hasattr(node, "lc") and isinstance(node, list) and 0 <= part < len(node):
                line, column = node.lc.item(part)
                node = node[part]
            else:
                break
        except Exception:
            break
    return line + 1, column + 1
