"""load -> validate: every YAML file under ``data/`` becomes a validated model, or problems.

Each file is checked on its own here (YAML, kind, folder, schema); checks across files (names,
references, duplicates) happen in ``link``. Every problem in every file is collected in one pass.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from schemas.common import TOKEN_PATTERN, quoted
from schemas.kinds import HTTPS_URL_PATTERN, KIND_FOLDERS, RELATIVE_PATH_PATTERN, Envelope, model_for

from .problems import Problem
from .yaml_reading import load_bytes, locate

DATA_SUFFIXES = (".yaml", ".yml")

# What a pattern means, in words: "should match pattern '^https://[^\s<>...'" helps nobody.
PATTERN_MESSAGES = {
    HTTPS_URL_PATTERN: "is not an https:// URL (no spaces, quotes or angle brackets)",
    RELATIVE_PATH_PATTERN: "is not a relative path of letters, digits, '.', '_' and '-' (no '..', no leading '/')",
    TOKEN_PATTERN: "is not a token: use lowercase a-z, 0-9 and '_', starting with a letter",
}


@dataclass(slots=True)  # one per data file, so each is made smaller and quicker with slots
class Document:
    """One validated data file."""

    file: str  # its path as listed; ``path`` makes the Path only when asked (rarely: a problem, a CLI lookup)
    display: str  # the path as errors print it, relative to the working directory where possible
    kind: str
    model: Envelope
    # ``model.metadata.name``, kept here when the model is made: read from the model later, link's
    # first look at each would reach into a model long out of the processor's caches.
    name: str
    # The parse cache's key for the file (sha256 of its path and bytes) when a bulk load read it;
    # link keys the digests it keeps between builds by it.
    content_key: str | None = None

    @property
    def path(self) -> Path:
        return Path(self.file)

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
    """Data files in a stable order (sorted paths), so every run of the builder sees the same order.

    The files ``data_dir.rglob("*")`` finds (symlinked folders are not entered, unreadable ones
    skipped) that are files with a data suffix, found with ``os.scandir``: its entries know
    whether they are folders without a ``stat`` each, one system call fewer per data file.
    """
    paths: list[str] = []
    if data_dir.is_dir():
        _walk(str(data_dir), paths)
    for path in paths:
        yield Path(path)


def _walk(folder: str, paths: list[str]) -> None:
    """Files below ``folder`` in the order Paths sort (part by part: "a/b" before "a-c"): each
    folder's entries sorted by name, a subfolder's files where its name falls. That is the order
    of sorting every path by its parts, without splitting every path and comparing the lists."""
    try:
        with os.scandir(folder) as entries:
            found = {entry.name: entry for entry in entries}
    except PermissionError:
        return
    for name in sorted(found):
        entry = found[name]
        try:
            if entry.is_dir() and not entry.is_symlink():
                _walk(entry.path, paths)
                continue
        except OSError:
            pass
        if _suffix(name) in DATA_SUFFIXES and _is_file(entry):
            paths.append(entry.path)


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()  # follows a symlink, as Path.is_file does
    except OSError:
        return False


def _suffix(name: str) -> str:
    """``Path(name).suffix``: '.yaml' for 'a.yaml', nothing for '.yaml' or 'a.'."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def _error_location(error: dict[str, Any]) -> tuple[Any, ...]:
    """Where an error is: pydantic's loc, and below it the part a LocatedValueError names."""
    location = tuple(part for part in error["loc"] if not _is_union_tag(part))
    cause = (error.get("ctx") or {}).get("error")
    return location + tuple(getattr(cause, "location", ()))


def _pydantic_message(error: dict[str, Any]) -> str:
    location = ".".join(str(part) for part in _error_location(error))
    if error["type"] == "extra_forbidden":
        if "suggestion" in error:
            return f"unknown key {location!r}; did you mean {error['suggestion']!r}?"
        return f"unknown key {location!r}"
    if error["type"] == "missing":
        return f"missing required key {location!r}"
    if error["type"] == "string_pattern_mismatch" and error["ctx"]["pattern"] in PATTERN_MESSAGES:
        return f"{location}: {quoted(error['input'])} {PATTERN_MESSAGES[error['ctx']['pattern']]}"
    message = error["msg"]
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    return f"{location}: {message}" if location else message


def _merge_misspelt_keys(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A misspelt required key fails twice (unknown ``statuz``, missing ``status``): report it once."""
    missing = [tuple(item["loc"]) for item in items if item["type"] == "missing"]
    matched: set[tuple[Any, ...]] = set()
    merged = []
    for item in items:
        if item["type"] == "extra_forbidden":
            parent, key = tuple(item["loc"][:-1]), str(item["loc"][-1])
            candidates = {str(loc[-1]): loc for loc in missing if loc[:-1] == parent and loc not in matched}
            close = difflib.get_close_matches(key, list(candidates), n=1)
            if close:
                matched.add(candidates[close[0]])
                item = {**item, "suggestion": close[0]}
        merged.append(item)
    return [item for item in merged if not (item["type"] == "missing" and tuple(item["loc"]) in matched)]


def _is_union_tag(part: Any) -> bool:
    # pydantic names the union member it tried ("int", "str", "function-after[...]") inside loc.
    return isinstance(part, str) and (part in {"int", "str", "float", "bool"} or "[" in part)


class Folders:
    """Which folder under the data folder a regular file sits in, each folder resolved once.

    ``Path.resolve`` makes a system call per part of the path: for a file under
    ``data/runs/<workload>/`` resolving the file and the data folder cost more than validating
    its model. A file that is not a symbolic link resolves to its resolved folder plus its own
    name, so the folders are resolved once each for the whole load (``load_file`` refuses links
    before it asks). Made per load, never kept: folders may move between loads.
    """

    def __init__(self, data_dir: Path):
        self.root = data_dir.resolve()
        self.tops: dict[str, str | None] = {}

    def top(self, path: Path) -> str | None:
        """``path.resolve().relative_to(data_dir.resolve()).parts[0]`` for a regular file; None
        when it resolves outside the data folder."""
        folder = os.path.dirname(path)  # cheaper than path.parent, a new Path
        if folder not in self.tops:
            self.tops[folder] = _first_part_below(path.parent.resolve(), self.root)
        top = self.tops[folder]
        return path.name if top == "" else top


def _first_part_below(location: Path, root: Path) -> str | None:
    """The first part of ``location`` below ``root``: "" for ``root`` itself, None outside it."""
    try:
        parts = location.relative_to(root).parts
    except ValueError:
        return None
    return parts[0] if parts else ""


def validate_object(raw: Any, path: Path, display: str, data_dir: Path, text: str | None = None,
                    folders: Folders | None = None) -> tuple[Document | None, list[Problem]]:
    """``folders``: where regular files sit, for a caller that has checked ``path`` is not a link."""
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
    top = folders.top(path) if folders is not None else _first_part_below(path.resolve(), data_dir.resolve())
    if top is not None and top != folder:
        # The rest of the file is checked against the wrong model: its errors would only be noise.
        return None, [at(f"a {kind} belongs under {folder}/, not {top}/", "kind")]
    try:
        document = model.model_validate(raw)
    except ValidationError as error:
        for item in _merge_misspelt_keys(error.errors(include_url=False)):
            problems.append(at(_pydantic_message(item), *_error_location(item)))
        return None, problems
    if path.stem != document.metadata.name:
        problems.append(at(f"file name must be {document.metadata.name}.yaml (metadata.name)", "metadata", "name"))
    if problems:
        return None, problems
    return Document(file=os.fspath(path), display=display, kind=kind, model=document, name=document.metadata.name), []


def load_file(path: Path, data_dir: Path, raw_bytes: bytes | None = None,
              display: str | None = None, folders: Folders | None = None) -> tuple[Document | None, list[Problem]]:
    """``raw_bytes``, ``display``: the file's bytes and ``display_path`` when the caller has them
    already (a bulk loader reads and hashes the bytes, and resolves each folder only once);
    ``folders``: the bulk loader's ``Folders`` of ``data_dir``, for the same reason."""
    display = display if display is not None else display_path(path)
    if path.is_symlink():
        # A link in a pull request could pull any file on the build machine into the site. (Named by
        # its folder and own name: resolving the link would name its target instead.)
        shown = str(Path(display_path(path.parent)) / path.name)
        return None, [Problem(shown, 1, 1, "a data file must be a regular file, not a symbolic link")]
    if raw_bytes is None:
        raw_bytes = path.read_bytes()
    raw, problems = load_bytes(raw_bytes, display)
    if problems:
        return None, problems
    return validate_object(raw, path, display, data_dir, folders=folders)


def load_documents(data_dir: Path, paths: Iterable[Path] | None = None, *, cache: bool = True,
                   jobs: int | None = None) -> tuple[list[Document], list[Problem]]:
    """Every file, in path order. ``cache``: reuse models of files whose bytes are unchanged (see
    ``cache``); ``jobs``: processes that parse (default: one per core, for large repositories)."""
    from .parallel.bulk_load import load_many
    from .incremental.parse_cache import ParseCache

    paths = list(paths if paths is not None else iter_data_files(data_dir))
    return load_many(data_dir, paths, ParseCache.for_data(data_dir) if cache else None, jobs)
