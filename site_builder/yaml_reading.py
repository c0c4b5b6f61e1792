"""Reading YAML safely and fast, and finding where a value sits in a file when we must report it.

Files are parsed with ruamel.yaml's C safe loader (no tags, no Python objects). The slower
round-trip loader runs only when an error needs a line and column, or when the formatter must keep
comments. Hostile input is refused before it can cost anything: oversized files, byte order marks,
bytes that are not UTF-8, anchors and aliases (the "billion laughs" expansion), deep nesting.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.resolver import VersionedResolver

from .problems import Problem

MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 24

_local = threading.local()


class _CParserResolver(VersionedResolver):
    """ruamel.yaml's resolver for the C parser, without its most expensive habit.

    For every scalar, ruamel asks which YAML version applies: it looks for the pure-Python
    scanner (absent with the C parser), then for a version set on the YAML object (never, here),
    and settles on 1.2, through two caught AttributeErrors each time, a large share of a load.
    With the C parser the answer is always 1.2 (a %YAML directive does not change it), so say so.
    """

    @property
    def processing_version(self) -> tuple[int, int]:
        return (1, 2)


def _safe_yaml() -> YAML:
    if not hasattr(_local, "safe"):
        yaml = YAML(typ="safe", pure=False)
        yaml.allow_duplicate_keys = False
        if yaml.Parser.__name__ == "CParser" and yaml.version is None:
            yaml.Resolver = _CParserResolver
        _local.safe = yaml
    return _local.safe


def _event_loader() -> Any:
    """The safe loader, built from parser events where it can be (``fastyaml``): same values."""
    if not hasattr(_local, "events"):
        from .fastyaml import EventLoader

        yaml = _safe_yaml()
        _local.events = EventLoader(yaml) if yaml.Parser.__name__ == "CParser" else yaml
    return _local.events


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
    index = text.find("\x00")
    if index >= 0:
        line, column = _position(raw, len(text[:index].encode("utf-8")))
        return None, [Problem(path, line, column, "NUL byte in a text file")]
    return text, []


def _yaml_problem(error: YAMLError, path: str) -> Problem:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    if isinstance(error, MarkedYAMLError):
        what = error.problem or error.context or "invalid YAML"
        if error.context and what.startswith("but "):
            # "but found another document" means nothing without its context.
            what = f"{error.context} {what}"
        if "duplicate key" in str(error):
            what = f"duplicate key {str(error).split('found duplicate key', 1)[1].split(' with value', 1)[0].strip()}"
    else:
        what = str(error).splitlines()[0]
    return Problem(path, line, column, f"YAML: {what}")


def _check_events(text: str, path: str) -> list[Problem]:
    """Refuse anchors, aliases and explicit tags before anything is built from them."""
    # Cheap pre-test: anchors need '&', aliases '*' and tags '!'; most files have none of them.
    if "&" not in text and "*" not in text and "!" not in text:
        return []
    from ruamel.yaml.events import AliasEvent

    try:
        for event in _safe_yaml().parse(text):
            mark = event.start_mark
            if isinstance(event, AliasEvent) or getattr(event, "anchor", None):
                return [Problem(path, mark.line + 1, mark.column + 1,
                                "YAML anchors and aliases are not allowed in data files")]
            # An explicit tag (!!binary, !!set, !!python/...) builds values no schema expects.
            tag = getattr(event, "tag", None)
            if tag:
                shown = tag.replace("tag:yaml.org,2002:", "!!", 1)
                return [Problem(path, mark.line + 1, mark.column + 1,
                                f"YAML tag {shown} is not allowed in data files; quote the value instead")]
    except YAMLError as error:
        return [_yaml_problem(error, path)]
    return []


# Python refuses to turn more than 4,300 digits into an int (CVE-2020-10735); find them to report them.
_LONG_NUMBER = re.compile(r"[-+]?[0-9][0-9_]{4000,}")


# The C composer recurses once per nesting level and crashes the process (a segmentation fault, not
# an exception) near 30,000 levels. Nesting needs a '[', '{', '-' or '?' per level, except nesting
# by indentation alone, which the size limit keeps under ~1,500 levels. So a file with fewer of
# those characters than this cannot crash it; one with more has its depth measured on the parser's
# events (iterative, safe) before anything is composed.
NESTING_SCAN_THRESHOLD = 1000


def _might_nest_deeply(text: str) -> bool:
    return sum(text.count(char) for char in "[{-?") > NESTING_SCAN_THRESHOLD


def _too_deep(text: str, path: str, limit: int) -> list[Problem]:
    """The first collection nested deeper than ``limit``, found on the parser's events."""
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    depth = 0
    try:
        for event in _safe_yaml().parse(text):
            if isinstance(event, CollectionStartEvent):
                depth += 1
                if depth > limit:
                    mark = event.start_mark
                    return [Problem(path, mark.line + 1, mark.column + 1, f"YAML is nested deeper than {limit} levels")]
            elif isinstance(event, CollectionEndEvent):
                depth -= 1
    except YAMLError as error:
        return [_yaml_problem(error, path)]
    return []


def _depth(value: Any, limit: int) -> int:
    """How deep ``value`` nests (a scalar is 1), or a number past ``limit`` once it is known to be.

    Level by level: no (node, depth) pair per node, as a depth-first walk would make."""
    level, depth = [value], 0
    while level:
        depth += 1
        if depth > limit:
            return depth
        below: list[Any] = []
        for node in level:
            if isinstance(node, dict):
                below.extend(node.values())
            elif isinstance(node, list):
                below.extend(node)
        level = below
    return depth


def load_text(text: str, path: str) -> tuple[Any, list[Problem]]:
    problems = _check_events(text, path)
    if not problems and _might_nest_deeply(text):
        problems = _too_deep(text, path, MAX_DEPTH)
    if problems:
        return None, problems
    try:
        value = _event_loader().load(text)
    except YAMLError as error:
        return None, [_yaml_problem(error, path)]
    except RecursionError:
        return None, [Problem(path, 1, 1, "YAML is nested too deeply")]
    except ValueError as error:
        # The constructor's own refusals (a number too long to convert) carry no position.
        match = _LONG_NUMBER.search(text)
        if match is None:
            return None, [Problem(path, 1, 1, f"YAML: {error}")]
        offset = len(text[:match.start()].encode("utf-8"))
        line, column = _position(text.encode("utf-8"), offset)
        return None, [Problem(path, line, column, "number has too many digits")]
    if _depth(value, MAX_DEPTH) > MAX_DEPTH:
        # Rare, so the second pass that finds the line and column costs nothing in the common case.
        return None, _too_deep(text, path, MAX_DEPTH) or [Problem(path, 1, 1, f"YAML is nested deeper than {MAX_DEPTH} levels")]
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
