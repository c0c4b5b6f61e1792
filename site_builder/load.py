"""load -> validate: every YAML file under ``data/`` becomes a validated model, or problems.

Each file is checked on its own here (YAML, kind, folder, schema); checks across files (names,
references, duplicates) happen in ``link``. Every problem in every file is collected in one pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from schemas.kinds import KIND_FOLDERS, Envelope, model_for

from .problems import Problem
from .yamlio import load_bytes, locate

DATA_SUFFIXES = (".yaml", ".yml")


@dataclass
class Document:
    """One validated data file."""

    path: Path
    display: str  # the path as errors print it, relative to the working directory where possible
    kind: str
    model: Envelope

    @property
    def name(self) -> str:
        return self.model.metadata.name

    def locate(self, *location: Any) -> tuple[int, int]:
        return locate(self.path.read_text(encoding="utf-8"), location)

    def problem(self, message: str, *location: Any) -> Problem:
        line, column = self.locate(*location)
        return Problem(self.display, line, column, message)


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def iter_data_files(data_dir: Path) -> Iterator[Path]:
    """Data files in a stable order (sorted paths), so every run of the builder sees the same order."""
    paths = [p for p in data_dir.rglob("*") if p.is_file() and p.suffix in DATA_SUFFIXES]
    yield from sorted(paths)


def _pydantic_message(error: dict[str, Any]) -> str:
    location = ".".join(str(part) for part in error["loc"] if not _is_union_tag(part))
    if error["type"] == "extra_forbidden":
        return f"unknown key {location!r}"
    if error["type"] == "missing":
        return f"missing required key {location!r}"
    message = error["msg"]
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    return f"{location}: {message}" if location else message


def _is_union_tag(part: Any) -> bool:
    # pydantic names the union member it tried ("int", "str", "function-after[...]") inside loc.
    return isinstance(part, str) and (part in {"int", "str", "float", "bool"} or "[" in part)


def validate_object(raw: Any, path: Path, display: str, data_dir: Path, text: str | None = None) -> tuple[Document | None, list[Problem]]:
    def at(message: str, *location: Any) -> Problem:
        source = text if text is not None else path.read_text(encoding="utf-8")
        line, column = locate(source, location)
        return Problem(display, line, column, message)

    if not isinstance(raw, dict):
        return None, [Problem(display, 1, 1, "a data file holds one mapping with apiVersion, kind, metadata and spec")]
    kind = raw.get("kind")
    model = model_for(kind)
    if model is None:
        known = ", ".join(sorted(KIND_FOLDERS))
        return None, [at(f"unknown kind {kind!r}; expected one of {known}", "kind")]
    problems: list[Problem] = []
    folder = KIND_FOLDERS[kind]
    try:
        relative = path.resolve().relative_to(data_dir.resolve())
        if relative.parts[0] != folder:
            problems.append(at(f"a {kind} belongs under {folder}/, not {relative.parts[0]}/", "kind"))
    except ValueError:
        pass
    try:
        document = model.model_validate(raw)
    except ValidationError as error:
        for item in error.errors(include_url=False):
            location = tuple(part for part in item["loc"] if not _is_union_tag(part))
            problems.append(at(_pydantic_message(item), *location))
        return None, problems
    if path.stem != document.metadata.name:
        problems.append(at(f"file name must be {document.metadata.name}.yaml (metadata.name)", "metadata", "name"))
    if problems:
        return None, problems
    return Document(path=path, display=display, kind=kind, model=document), []


def load_file(path: Path, data_dir: Path) -> tuple[Document | None, list[Problem]]:
    display = display_path(path)
    raw_bytes = path.read_bytes()
    raw, problems = load_bytes(raw_bytes, display)
    if problems:
        return None, problems
    return validate_object(raw, path, display, data_dir)


def load_documents(data_dir: Path, paths: Iterable[Path] | None = None) -> tuple[list[Document], list[Problem]]:
    documents: list[Document] = []
    problems: list[Problem] = []
    for path in paths if paths is not None else iter_data_files(data_dir):
        document, found = load_file(path, data_dir)
        problems.extend(found)
        if document is not None:
            documents.append(document)
    return documents, problems
