"""YAML in and out for the harness, with no dependency on the site builder.

The harness runs on GPU machines where only PyYAML is installed (no ruamel.yaml, no pydantic), and
on developer machines where only ruamel.yaml is. Reading uses whichever is present. Writing uses
the small emitter below, so a run file is byte-identical whichever machine wrote it: the same
results always give the same files (re-running a sweep rewrites files in place, never reorders).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any


def load_text(text: str) -> Any:
    try:
        from ruamel.yaml import YAML  # the site builder's loader (developer machines, CI)

        return YAML(typ="safe", pure=False).load(text)
    except ImportError:
        import yaml  # PyYAML: what the GPU image has

        return yaml.safe_load(text)


def load_file(path: Path) -> Any:
    return load_text(Path(path).read_text(encoding="utf-8"))


# A plain (unquoted) scalar is used only where every YAML 1.1 and 1.2 loader reads it back as the
# same string: no booleans, nulls, numbers, dates, indicators or ': ' / ' #' inside.
_PLAIN = re.compile(r"^[A-Za-z_/][A-Za-z0-9 _./@+()-]*$")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
_NUMBERISH = re.compile(r"^[-+.]?[0-9]|^\.(inf|nan)$", re.IGNORECASE)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"cannot write {value!r}: data files hold finite numbers only")
        text = repr(value)
        if "e" in text and "." not in text.split("e")[0]:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"  # YAML 1.1 floats need a dot (PyYAML reads 1e-05 as a string)
        return text
    if isinstance(value, str):
        if (_PLAIN.match(value) and value.lower() not in _RESERVED and not _NUMBERISH.match(value)
                and not value.endswith(" ") and "  " not in value):
            return value
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML double-quoted scalar
    raise TypeError(f"cannot write a {type(value).__name__} to YAML")


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def _flow_list(items: list, width: int) -> list[str]:
    """A list of scalars as one flow sequence, wrapped so long sample lists stay readable;
    continuation lines start with two spaces (the caller adds the key's indentation)."""
    parts = [_scalar(item) for item in items]
    lines, current = [], "["
    pad = "  "
    for index, part in enumerate(parts):
        piece = part + (", " if index < len(parts) - 1 else "]")
        if len(current) + len(piece) > width and current.strip() not in ("[", ""):
            lines.append(current.rstrip())
            current = pad
        current += piece
    if not parts:
        current = "[]"
    lines.append(current)
    return lines


def _emit(value: Any, indent: int, width: int) -> list[str]:
    pad = " " * indent
    out: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            key_text = _scalar(str(key))
            if _is_scalar(item):
                out.append(f"{pad}{key_text}: {_scalar(item)}")
            elif isinstance(item, dict) and not item:
                out.append(f"{pad}{key_text}: {{}}")
            elif isinstance(item, list) and all(_is_scalar(x) for x in item):
                flow = _flow_list(item, width - len(pad) - len(key_text) - 2)
                out.append(f"{pad}{key_text}: {flow[0]}")
                out.extend(pad + line for line in flow[1:])
            else:
                out.append(f"{pad}{key_text}:")
                out.extend(_emit(item, indent + 2, width))
        return out
    if isinstance(value, list):
        for item in value:
            if _is_scalar(item):
                out.append(f"{pad}- {_scalar(item)}")
                continue
            inner = _emit(item, indent + 2, width)
            out.append(f"{pad}- {inner[0].lstrip()}")
            out.extend(inner[1:])
        return out
    return [pad + _scalar(value)]


def dump(document: dict, header: str | None = None, width: int = 100) -> str:
    """Block-style YAML of ``document`` in its key order; ``header`` becomes leading comments."""
    lines = [f"# {line}" if line else "#" for line in (header or "").splitlines()]
    lines += _emit(document, 0, width)
    return "\n".join(lines) + "\n"


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` unless the file already holds exactly it; True if the file changed."""
    path = Path(path)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)  # atomic: a reader never sees half a file
    return True
