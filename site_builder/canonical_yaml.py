"""The one canonical YAML form of a data file, shared by `kernelindex fmt`, importers and the harness.

    canonical_yaml(document, path)   a dict (plain, or ruamel's commented one) -> canonical text
    format_text(text, path)          a file's text -> canonical text, comments kept

The form:
- a first line ``# yaml-language-server: $schema=<relative path to schemas/json/<Kind>.authoring.schema.json>``
  so editors validate and complete as people type;
- keys in order: apiVersion, kind, metadata, spec; inside metadata and spec the order of the
  Pydantic model's fields (name, title, description, labels, ...); user-keyed maps (axes,
  labels, peakTflops) keep their written order; keys the model does not know go last;
- 2-space indentation, sequences indented under their key (``  - item``);
- block style, except: a short flat list of scalars is always written in flow style
  (``[q, k]``), and a short flat mapping of scalars that its author wrote in flow style
  (``{role: variable}``) stays so. "Short" means its line fits in ``LINE_WIDTH`` columns.
  A long list of numbers (raw samples) is one flow line, never wrapped;
- strings quoted only when YAML needs it (plus the YAML 1.1 booleans yes/no/on/off, so older
  parsers do not read them as booleans); multi-line strings as literal blocks (``|``); folded
  blocks (``>-``) that a person wrote are kept, with their line breaks;
- timestamps and dates as quoted ISO strings (``'2025-08-07T21:42:12Z'``), exactly as written;
- numbers as Python prints them: decimal integers, shortest round-trip floats (``1.50`` -> ``1.5``);
- no trailing spaces, one trailing newline.

Invariant (tested): ``format_text(canonical_yaml(d, p), p) == canonical_yaml(d, p)``, so files an
importer writes with ``canonical_yaml`` pass ``kernelindex fmt --check`` untouched.
"""

from __future__ import annotations

import copy
import io
import os
import re
import threading
import types
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor, SafeConstructor
from ruamel.yaml.error import YAMLError
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString, FoldedScalarString, LiteralScalarString, SingleQuotedScalarString,
)

from schemas.common import format_utc
from schemas.kinds import KIND_FOLDERS, model_for

from .problems import Problem
from .yaml_reading import MAX_FILE_BYTES, load_bytes

SCHEMA_COMMENT_PREFIX = "# yaml-language-server: $schema="
LINE_WIDTH = 100
TOP_LEVEL_ORDER = ("apiVersion", "kind", "metadata", "spec")

# Plain words that YAML 1.1 parsers read as booleans or null (y and n too: the 1.1 spec and Go's
# yaml.v2 read them as booleans, though PyYAML does not).
_YAML11_SPECIAL = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}
_FLOW_SAFE = set(" _./()+-*=")
_PLAIN_FLOAT = re.compile(r"^-?[0-9]+\.[0-9]+$")


def plain_ok(text: str, flow: bool = False) -> bool:
    """Whether a string is written without quotes: the one quoting rule of the canonical form.

    Stricter than YAML needs, so every YAML 1.1 and 1.2 parser reads the word back as the same
    string: it starts with an ASCII letter, '_' or '/' (so nothing that looks like a number, a
    date or an indicator), is printable on one line, and holds no ': ' or ' #'. Inside flow
    collections, only letters, digits, spaces and ``_ . / ( ) + - * =``.
    """
    if not text or not (text[0].isascii() and (text[0].isalpha() or text[0] in "_/")):
        return False
    if text[-1] == " " or text[-1] == ":" or not text.isprintable():
        return False
    if ": " in text or " #" in text or text.lower() in _YAML11_SPECIAL:
        return False
    # Inside [..] and {..} parsers disagree about many indicators ("A?]" breaks libyaml): only
    # letters, digits and a few separators go unquoted there.
    return not flow or all(char.isalnum() or char in _FLOW_SAFE for char in text)


class FormatError(Exception):
    """The text cannot be formatted (it does not parse, or is not one mapping)."""

    def __init__(self, problem: Problem):
        self.problem = problem
        super().__init__(str(problem))


# --------------------------------------------------------------------------------------------
# Loading: timestamps and dates stay the strings their author wrote, so formatting never
# reinterprets a time (ruamel would otherwise turn `2025-08-07T21:42:12Z` into a datetime and
# print it back in its own way).


class _RoundTripStrTimestamps(RoundTripConstructor):
    pass


_RoundTripStrTimestamps.add_constructor("tag:yaml.org,2002:timestamp", _RoundTripStrTimestamps.construct_yaml_str)


class _SafeStrTimestamps(SafeConstructor):
    pass


_SafeStrTimestamps.add_constructor("tag:yaml.org,2002:timestamp", _SafeStrTimestamps.construct_yaml_str)

_local = threading.local()


def _round_trip() -> YAML:
    if not hasattr(_local, "rt"):
        yaml = YAML(typ="rt")
        yaml.Constructor = _RoundTripStrTimestamps
        yaml.width = 1 << 30  # never fold long strings or wrap flow lists: the style pass decides layout
        yaml.indent(mapping=2, sequence=4, offset=2)
        yaml.allow_duplicate_keys = False
        _local.rt = yaml
    return _local.rt


def _safe() -> YAML:
    if not hasattr(_local, "safe"):
        yaml = YAML(typ="safe", pure=False)
        yaml.Constructor = _SafeStrTimestamps
        yaml.allow_duplicate_keys = False
        _local.safe = yaml
    return _local.safe


def load_plain(text: str) -> Any:
    """Plain Python values of a YAML text, with timestamps as strings (the formatter's view of meaning)."""
    return _safe().load(text)


def _load_plain_fast(text: str) -> Any:
    """``load_plain``'s values, built from the C parser's events (``fastyaml``: several times
    faster, and the stock loader decides whatever it does not cover)."""
    if not hasattr(_local, "events"):
        from .fastyaml import EventLoader

        yaml = _safe()
        _local.events = EventLoader(yaml) if yaml.Parser.__name__ == "CParser" else yaml
    return _local.events.load(text)


# --------------------------------------------------------------------------------------------
# Key order from the models


@lru_cache(maxsize=None)
def _shape(annotation: Any) -> tuple | None:
    """What a field holds, as far as ordering cares: a model, a list of X, a dict of X, or nothing."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _shape(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        shapes = [shape for shape in map(_shape, get_args(annotation)) if shape is not None]
        return shapes[0] if len(shapes) == 1 else None
    if origin is list:
        inner = _shape(get_args(annotation)[0])
        return ("list", inner) if inner else None
    if origin is dict:
        inner = _shape(get_args(annotation)[1])
        return ("dict", inner) if inner else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return ("model", annotation)
    return None


@lru_cache(maxsize=None)
def _fields(model: type[BaseModel]) -> tuple[tuple[str, ...], dict[str, tuple]]:
    names = tuple(model.model_fields)
    shapes = {name: shape for name, info in model.model_fields.items() if (shape := _shape(info.annotation))}
    return names, shapes


def _reorder(node: CommentedMap, order: tuple[str, ...]) -> None:
    rank = {key: index for index, key in enumerate(order)}
    current = list(node.keys())
    wanted = sorted(current, key=lambda key: (rank.get(key, len(rank)), current.index(key)))
    if wanted != current:
        # Comments are stored per key, so they travel with the key they follow.
        for key in wanted:
            node.move_to_end(key)


def _apply_shape(node: Any, shape: tuple) -> None:
    kind, inner = shape
    if kind == "model" and isinstance(node, dict):
        names, shapes = _fields(inner)
        _reorder(node, names)
        for key, child in shapes.items():
            if key in node:
                _apply_shape(node[key], child)
    elif kind == "list" and isinstance(node, list):
        for item in node:
            _apply_shape(item, inner)
    elif kind == "dict" and isinstance(node, dict):
        for item in node.values():
            _apply_shape(item, inner)


def _order_document(document: CommentedMap) -> None:
    _reorder(document, TOP_LEVEL_ORDER)
    model = model_for(document.get("kind"))
    if model is None:
        return
    for part in ("metadata", "spec"):
        shape = _shape(model.model_fields[part].annotation)
        if shape and part in document:
            _apply_shape(document[part], shape)


# --------------------------------------------------------------------------------------------
# Scalars and layout


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list)) and not (isinstance(value, str) and "\n" in value)


def _scalar_width(value: Any) -> int:
    # An estimate of the printed width; it only has to be a pure function of the value.
    if value is None:
        return 4
    if isinstance(value, bool):
        return 5
    text = str(value)
    return len(text) if plain_ok(text, flow=True) else len(text) + 2


def _flow_width(node: Any) -> int:
    if isinstance(node, dict):
        parts = [len(str(key)) + 2 + _scalar_width(value) for key, value in node.items()]
    else:
        parts = [_scalar_width(value) for value in node]
    return 2 + sum(parts) + 2 * max(len(parts) - 1, 0)


def _has_inner_comments(node: Any) -> bool:
    ca = getattr(node, "ca", None)
    return bool(ca and (ca.items or (ca.comment and any(ca.comment))))


def _normalise_scalar(value: Any, flow: bool) -> Any:
    if isinstance(value, (FoldedScalarString, LiteralScalarString)):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, (int, float)):
        # Numbers are printed one way (Python's shortest repr, decimal integers): ruamel's
        # round-trip ScalarFloat can print an exponent form back with a different last digit.
        return int(value) if isinstance(value, int) else float(value)
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"datetime {value.isoformat()} has no timezone")
        value = format_utc(value)
    elif isinstance(value, date):
        value = value.isoformat()
    if isinstance(value, str):
        if "\n" in value:
            # A literal block reads best, but cannot hold lines that start or end with spaces
            # (and the formatter strips trailing spaces): those stay one double-quoted line.
            lines = value.split("\n")
            if all(line == line.strip() and line.isprintable() for line in lines):
                return LiteralScalarString(value)
            return DoubleQuotedScalarString(value)
        # Decide quoting here, not in ruamel's emitter, so the fast emitter below agrees with it.
        if plain_ok(value, flow):
            return str(value)
        # Single quotes where they can hold the text; control and odd space characters need escapes.
        return SingleQuotedScalarString(value) if value.isprintable() else DoubleQuotedScalarString(value)
    return value


def _layout(node: Any, column: int, flow: bool = False) -> None:
    """Pick flow or block style for each collection below ``node`` and normalise its scalars.

    ``column`` is where the keys (or the item text) of ``node`` start.
    """
    if isinstance(node, dict):
        for key in list(node.keys()):
            value = node[key]
            if isinstance(value, (dict, list)):
                _place(value, column, column + len(str(key)) + 2)
            else:
                node[key] = _normalise_scalar(value, flow)
    else:
        for index, value in enumerate(node):
            if isinstance(value, (dict, list)):
                # An item's text starts at `column`; a block mapping there keeps its keys at `column`.
                _place(value, column - 2, column)
            else:
                node[index] = _normalise_scalar(value, flow)


def _place(node: CommentedMap | CommentedSeq, column: int, start: int) -> None:
    """Style one collection whose text would begin at ``start``; its parent's keys sit at ``column``."""
    flat = all(_is_scalar(value) for value in (node.values() if isinstance(node, dict) else node))
    fits = start + _flow_width(node) <= LINE_WIDTH
    if not node:
        flow = True
    elif not flat or _has_inner_comments(node):
        flow = False
    elif isinstance(node, list):
        # Long lists of numbers (raw samples: up to 100,000, the schema's limit) stay on one flow
        # line: a line each would add an indent and a dash per number, no easier to read.
        flow = fits or all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in node)
    else:
        flow = fits and node.fa.flow_style() is True
    if flow:
        node.fa.set_flow_style()
        _layout(node, start, flow=True)
        return
    node.fa.set_block_style()
    # Block children: a mapping's keys are indented by 2; a sequence's items by 4 ("  - ").
    _layout(node, column + (2 if isinstance(node, dict) else 4))


def _to_commented(value: Any) -> Any:
    if isinstance(value, dict):
        result = CommentedMap()
        for key, item in value.items():
            result[key] = _to_commented(item)
        return result
    if isinstance(value, (list, tuple)):
        return CommentedSeq(_to_commented(item) for item in value)
    return value


# --------------------------------------------------------------------------------------------
# The fast emitter. ruamel's emitter is general, and its cost per file adds up when ``fmt`` or an
# importer goes over a whole repository; this one writes the same bytes for the common case (plain
# values, one-line strings, no None, floats without exponents) with far less work, and gives up
# (returns None) on anything else. tests/contrib check that the two agree.


class _NotSimple(Exception):
    pass


def _simple_scalar(value: Any, flow: bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value)
        if _PLAIN_FLOAT.match(text):
            return text
        raise _NotSimple
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise _NotSimple
        value = format_utc(value)
    elif isinstance(value, date):
        value = value.isoformat()
    if isinstance(value, str) and value.isprintable():
        return value if plain_ok(value, flow) else "'" + value.replace("'", "''") + "'"
    raise _NotSimple


def _simple_key(key: Any) -> str:
    if isinstance(key, str) and len(key) < 128 and plain_ok(key, flow=True):
        return key
    raise _NotSimple


def _emit_value(head: str, value: Any, column: int, lines: list[str], guide: list[str] | None) -> None:
    """``head`` is the line so far (indent, "- ", key and ':'); ``column`` is the key's column."""
    start = len(head) + 1
    if isinstance(value, dict):
        if not value:
            lines.append(head + " {}")
            return
        if guide is not None and all(_is_scalar(item) for item in value.values()) and start + _flow_width(value) <= LINE_WIDTH:
            # A short flat mapping keeps its author's style: flow exactly when the file has it so.
            flow = head + " {" + ", ".join(f"{_simple_key(key)}: {_simple_scalar(item, True)}" for key, item in value.items()) + "}"
            if len(lines) < len(guide) and guide[len(lines)] == flow:
                lines.append(flow)
                return
        lines.append(head)
        _emit_map(value, column + 2, lines, guide)
    elif isinstance(value, list):
        flat = all(_is_scalar(item) for item in value)
        numeric = all(isinstance(item, (int, float)) and not isinstance(item, bool) for item in value)
        if not value or (flat and (start + _flow_width(value) <= LINE_WIDTH or numeric)):
            lines.append(head + " [" + ", ".join(_simple_scalar(item, True) for item in value) + "]")
            return
        lines.append(head)
        _emit_seq(value, column + 2, lines, guide)
    elif value is None:
        raise _NotSimple
    else:
        lines.append(head + " " + _simple_scalar(value, False))


def _emit_map(node: dict, column: int, lines: list[str], guide: list[str] | None, dash: bool = False) -> None:
    for index, (key, value) in enumerate(node.items()):
        indent = " " * (column - 2) + "- " if dash and index == 0 else " " * column
        _emit_value(indent + _simple_key(key) + ":", value, column, lines, guide)


def _emit_seq(node: list, dash_column: int, lines: list[str], guide: list[str] | None) -> None:
    for item in node:
        if isinstance(item, dict) and item:
            if guide is not None and all(_is_scalar(value) for value in item.values()) and dash_column + 2 + _flow_width(item) <= LINE_WIDTH:
                flow = " " * dash_column + "- {" + ", ".join(
                    f"{_simple_key(key)}: {_simple_scalar(value, True)}" for key, value in item.items()) + "}"
                if len(lines) < len(guide) and guide[len(lines)] == flow:
                    lines.append(flow)
                    continue
            _emit_map(item, dash_column + 2, lines, guide, dash=True)
        elif isinstance(item, (dict, list)) or item is None:
            raise _NotSimple
        else:
            lines.append(" " * dash_column + "- " + _simple_scalar(item, False))


def emit_simple(document: dict[str, Any], guide: str | None = None) -> str | None:
    """The canonical body of a plain document, or None when only ruamel can write it.

    Plain values do not say whether a mapping was written in flow style; ``guide`` (the text the
    values came from) does: a short flat mapping is written in flow style where the guide has
    exactly that line at that place. Without a guide, mappings are block.
    """
    lines: list[str] = []
    try:
        _emit_map(_ordered_plain(document), 0, lines, guide.split("\n") if guide is not None else None)
    except _NotSimple:
        return None
    return "\n".join(lines) + "\n"


def _ordered_plain(document: dict[str, Any]) -> dict[str, Any]:
    # Ordering works on ruamel's maps (move_to_end); plain dicts are ordered by rebuilding them.
    if list(document)[:4] == list(TOP_LEVEL_ORDER) and _is_ordered(document):
        return document
    tree = _to_commented(document)
    _order_document(tree)
    return tree


def _is_ordered(document: dict[str, Any]) -> bool:
    model = model_for(document.get("kind"))
    if model is None:
        return True
    for part in ("metadata", "spec"):
        shape = _shape(model.model_fields[part].annotation)
        if shape and part in document and not _ordered_by(document[part], shape):
            return False
    return True


def _ordered_by(node: Any, shape: tuple) -> bool:
    kind, inner = shape
    if kind == "model" and isinstance(node, dict):
        names, shapes = _fields(inner)
        rank = {key: index for index, key in enumerate(names)}
        positions = [rank.get(key, len(rank)) for key in node]
        if positions != sorted(positions):
            return False
        return all(_ordered_by(node[key], child) for key, child in shapes.items() if key in node)
    if kind == "list" and isinstance(node, list):
        return all(_ordered_by(item, inner) for item in node)
    if kind == "dict" and isinstance(node, dict):
        return all(_ordered_by(item, inner) for item in node.values())
    return True


# --------------------------------------------------------------------------------------------
# The schema comment


def find_repository_root(path: Path) -> Path | None:
    """The nearest folder above ``path`` that holds ``schemas/json`` (the checkout's root)."""
    return _root_above(os.path.dirname(os.path.abspath(path)))


@lru_cache(maxsize=4096)
def _root_above(folder: str) -> Path | None:
    # Cached per folder: fmt asks once per file, and thousands of files share a few folders.
    if os.path.isdir(os.path.join(folder, "schemas", "json")):
        return Path(folder)
    parent = os.path.dirname(folder)
    return None if parent == folder else _root_above(parent)


def schema_comment(kind: Any, path: Path | str | None) -> str | None:
    """``# yaml-language-server: $schema=../../schemas/json/<Kind>.authoring.schema.json`` for a file at ``path``."""
    if path is None or model_for(kind) is None:
        return None
    path = Path(os.path.abspath(path))
    root = find_repository_root(path)
    if root is None:
        # Outside a checkout (a scratch copy of data/): assume data/ sits at the root, beside schemas/.
        folder = KIND_FOLDERS[kind]
        above = [parent for parent in path.parents if parent.name == folder]
        if not above:
            return None
        root = above[0].parent.parent
    target = root / "schemas" / "json" / f"{kind}.authoring.schema.json"
    relative = os.path.relpath(target, path.parent).replace(os.sep, "/")
    return SCHEMA_COMMENT_PREFIX + relative


def _strip_schema_comment(text: str) -> str:
    while text.startswith("# yaml-language-server:"):
        newline = text.find("\n")
        text = "" if newline < 0 else text[newline + 1:]
    return text


# --------------------------------------------------------------------------------------------
# Public entry points


def _dump(document: CommentedMap, path: Path | str | None) -> str:
    _order_document(document)
    _layout(document, 0)
    buffer = io.StringIO()
    _round_trip().dump(document, buffer)
    lines = [line.rstrip() for line in buffer.getvalue().split("\n")]
    body = "\n".join(lines).strip("\n") + "\n"
    comment = schema_comment(document.get("kind"), path)
    return f"{comment}\n{body}" if comment else body


def canonical_yaml(document: dict[str, Any], path: Path | str | None = None) -> str:
    """The canonical text of one data file. Pass the file's ``path`` to get the schema comment.

    ``document`` is a plain dict (as an importer builds it; datetimes become quoted UTC strings)
    or a ruamel ``CommentedMap`` (whose comments are kept). It is not modified.
    """
    if isinstance(document, CommentedMap):
        return _dump(copy.deepcopy(document), path)
    if not isinstance(document, dict):
        raise TypeError("canonical_yaml expects a mapping with apiVersion, kind, metadata and spec")
    body = emit_simple(document)
    if body is None:
        return _dump(_to_commented(document), path)
    comment = schema_comment(document.get("kind"), path)
    return f"{comment}\n{body}" if comment else body


def write_canonical(path: Path, document: dict[str, Any], *, overwrite: bool = False) -> str:
    """Write ``document`` to ``path`` in canonical form (creating folders); returns the text.

    With ``overwrite=False`` an existing file is an error (FileExistsError), never replaced.
    """
    text = canonical_yaml(document, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if overwrite:
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    else:
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
    return text


def parse_for_format(raw: bytes, display: str) -> tuple[str, CommentedMap]:
    """Decode and parse a file's bytes for formatting; raises FormatError with file:line:col."""
    # The loader's own gate first: size, encoding, anchors and aliases, nesting, duplicate keys.
    _, problems = load_bytes(raw, display)
    if problems:
        raise FormatError(problems[0])
    text = raw.decode("utf-8")
    body = _strip_schema_comment(text)
    try:
        documents = list(_round_trip().load_all(body))
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise FormatError(Problem(display, line, column, f"YAML: {str(error).splitlines()[0]}")) from None
    if len(documents) != 1 or not isinstance(documents[0], CommentedMap):
        raise FormatError(Problem(display, 1, 1, "a data file holds one mapping with apiVersion, kind, metadata and spec"))
    return text, documents[0]


def format_bytes(raw: bytes, path: Path | str | None = None, display: str | None = None) -> tuple[str, str]:
    """(the file's text, its canonical text), keeping comments; raises FormatError."""
    text, tree = parse_for_format(raw, display or str(path or "<text>"))
    try:
        return text, _dump(tree, path)
    except ValueError as error:
        raise FormatError(Problem(display or str(path or "<text>"), 1, 1, str(error))) from None


def format_text(text: str, path: Path | str | None = None, display: str | None = None) -> str:
    """Canonical text for a file's text, keeping its comments; raises FormatError."""
    return format_bytes(text.encode("utf-8"), path, display)[1]


def quick_canonical(text: str, path: Path | str | None) -> bool:
    """True when ``text`` is canonical, decided without the slow round-trip parser.

    The file is split into its schema line, a header of full-line comments and the body; when
    the body is exactly what the fast emitter writes for the body's own values, the file is
    canonical (``format_text`` would return it unchanged). False means "don't know": files with
    comments inside, flow mappings or folded text take the slow path.
    """
    if len(text) > MAX_FILE_BYTES or not text.startswith(SCHEMA_COMMENT_PREFIX):
        return False
    schema_line, _, rest = text.partition("\n")
    body = rest
    while body.startswith("#"):
        body = body.partition("\n")[2]
    # Which parser read the values does not matter for the verdict: the body must equal, byte for
    # byte, what the emitter writes for them, and the emitter's text reads back as those values.
    try:
        plain = _load_plain_fast(body)
    except (YAMLError, ValueError, RecursionError):
        return False
    if not isinstance(plain, dict) or schema_comment(plain.get("kind"), path) != schema_line:
        return False
    return emit_simple(plain, guide=body) == body
