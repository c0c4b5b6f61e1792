"""YAML in and out for the harness.

Reading uses whichever loader is present (ruamel.yaml on developer machines and CI, PyYAML on a bare
GPU image). Writing goes through the one canonical writer, ``site_builder.canonical_yaml`` (the writer
behind ``kernelindex fmt``, the importers and the scaffold), so every file the harness writes
already passes ``kernelindex fmt --check``. That writer needs ruamel.yaml and pydantic: a GPU
machine without them gets them as wheels (``harness/scripts/gpu_wheels.sh``).
"""

from __future__ import annotations

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


def dump(document: dict, path: Path | str | None = None, header: str | None = None) -> str:
    """The canonical text of one data file; ``header`` becomes comment lines below the schema
    comment (where ``kernelindex fmt`` keeps them). ``path`` (where the file will live) picks the
    schema comment, as for every other canonical file."""
    from site_builder.canonical_yaml import canonical_yaml  # needs ruamel.yaml + pydantic (see above)

    text = canonical_yaml(document, path)
    if not header:
        return text
    comments = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    first, newline, rest = text.partition("\n")
    if first.startswith("# yaml-language-server:"):
        return first + newline + comments + rest
    return comments + text


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
