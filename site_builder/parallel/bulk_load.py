"""Load many data files fast: cache hits in this process, misses across a pool of processes.

The per-file rules live in ``load.load_file``; this module only decides where that work runs and
how often. The result is the same list of documents and problems, in the same (path) order, as
loading every file one after the other: workers return results by position and they are merged
in that order, whatever order the workers finish in.

A worker returns the model as JSON (the same bytes the cache stores), and this process turns it
back into a model, so a cold load and a warm one build their models the same way.
"""

from __future__ import annotations

import gc
import os
import pickle
import sys
from stat import S_ISREG
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from pydantic import ValidationError

from schemas.kinds import KIND_MODELS, Envelope

from ..gc_pause import paused_gc
from ..incremental.parse_cache import ParseCache, entry_key, entry_key_of_digest
from ..load import Document, Folders, display_path, load_file
from ..problems import Problem
from ..incremental.stat_index import StatIndex

# Below this many files to parse, starting processes costs more than it saves.
POOL_THRESHOLD = 400
CHUNK = 250

Result = tuple[Document | None, Sequence[Problem]]


def read_file(path: str | Path) -> bytes:
    """The file's bytes with the fewest system calls: open, read until a short read, close."""
    return _read_descriptor(os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)))


def read_regular_file(path: str | Path) -> bytes | None:
    """``read_file``, or None when ``path`` is a symbolic link (``O_NOFOLLOW``): the cache never
    stands in for a link, whose refusal ``load_file`` reports. Saves an ``lstat`` per file."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | os.O_NOFOLLOW)
    except OSError:
        return None  # a link (ELOOP), or unreadable: the full load says which
    return _read_descriptor(descriptor)


def _read_descriptor(descriptor: int) -> bytes:
    """Everything from an open file, which is closed afterwards."""
    try:
        chunks = [os.read(descriptor, 1 << 16)]
        while len(chunks[-1]) == 1 << 16:
            chunks.append(os.read(descriptor, 1 << 20))
        return b"".join(chunks) if len(chunks) > 1 else chunks[0]
    finally:
        os.close(descriptor)


def model_json(model: Envelope) -> str | None:
    """The model as JSON that validates back into an equal model with the same fields set; else None.

    (A timestamp with microseconds, for one, is written with milliseconds: such a model is not
    stored, and travels between processes pickled instead.)
    """
    payload = model.model_dump_json(exclude_unset=True)
    try:
        restored = type(model).model_validate_json(payload)
    except ValidationError:
        return None
    if restored != model or restored.model_dump_json(exclude_unset=True) != payload:
        return None
    return payload


def model_from_json(kind: str, payload: bytes | str) -> Envelope | None:
    model = KIND_MODELS.get(kind)
    if model is None:
        return None
    try:
        return model.model_validate_json(payload)
    except (ValidationError, ValueError):
        return None


class _Displays:
    """``display_path`` for many files in few folders: each folder is resolved once, not each file."""

    def __init__(self) -> None:
        self.cwd = Path.cwd().resolve()
        self.folders: dict[str, str | None] = {}

    def __call__(self, file: str) -> str:
        path = Path(file)
        if path.is_symlink():
            return display_path(path)  # the link itself resolves elsewhere
        return self.regular(file)

    def _base(self, folder: Path) -> str | None:
        try:
            return str(folder.resolve().relative_to(self.cwd))
        except ValueError:
            return None

    def regular(self, file: str) -> str:
        """For a file known not to be a symbolic link (opened with ``O_NOFOLLOW``)."""
        folder, slash, name = file.rpartition("/")
        if os.sep != "/" or not (slash and folder):  # not cut by string (a new Path each): 'a.yaml', '/a.yaml'
            path = Path(file)
            folder, name = str(path.parent), path.name
        if folder not in self.folders:
            self.folders[folder] = self._base(Path(folder))
        base = self.folders[folder]
        if base is None:
            return file
        return name if base == "." else f"{base}/{name}"


def _relative(file: str, data_dir: Path, prefix: str | None = None) -> str:
    """``file`` relative to ``data_dir``, as a POSIX path. ``prefix``: ``str(data_dir) + "/"``;
    a path that starts with it is cut by string, not by ``Path.relative_to`` (4 us a file)."""
    if prefix is not None and os.sep == "/" and file.startswith(prefix):
        return file[len(prefix):]
    path = Path(file)
    try:
        return path.relative_to(data_dir).as_posix()
    except ValueError:
        return str(path.resolve())


def _content_digest(file: str, relative: str, hashes: StatIndex) -> bytes | None:
    """The sha256 of the file's bytes: from the stat index when its ``lstat`` is unchanged, else
    read (and kept there). None for a link, whose refusal ``load_file`` reports, and for a file
    gone or unreadable: the full load says which."""
    try:
        st = os.lstat(file)
    except OSError:
        return None
    digest = hashes.lookup(relative, st) if S_ISREG(st.st_mode) else None
    if digest is None:
        raw = read_regular_file(file)
        if raw is None:
            return None
        digest = hashes.record(relative, st, raw)
    return digest


def _parse_one(file: str, data_dir: Path, relative: str, displays: _Displays,
               folders: Folders) -> tuple[str, Result, str | None]:
    """(cache key, result, model JSON when storable): the bytes hashed are the bytes parsed."""
    raw = read_regular_file(file)
    if raw is not None:
        display = displays.regular(file)
    else:  # a link, whose refusal load_file reports, or unreadable: read as before, to fail as before
        raw, display = read_file(file), displays(file)
    key = entry_key(relative, raw)
    document, problems = load_file(Path(file), data_dir, raw, display, folders)
    payload = None
    if document is not None:
        document.content_key = key
        payload = model_json(document.model)
    return key, (document, problems), payload


def _parse_chunk(data_dir: str, items: list[tuple[int, str, str]]) -> list[tuple]:
    """In a worker: parse files, return (index, key, kind, display, JSON or pickled model, problems)."""
    out = []
    root = Path(data_dir)
    displays, folders = _Displays(), Folders(root)
    for index, path, relative in items:
        key, (document, problems), payload = _parse_one(path, root, relative, displays, folders)
        if document is None:
            out.append((index, key, None, None, None, None, problems))
        elif payload is not None:
            out.append((index, key, document.kind, document.display, payload, None, problems))
        else:
            out.append((index, key, document.kind, document.display, None, pickle.dumps(document.model), problems))
    return out


def _start_worker() -> None:
    """Forked while the collector is paused: a worker switches it back on, since parsing does make
    cyclic garbage (YAML nodes) and a worker keeps none of what it builds. What it inherited from
    this process (modules, the list of files: several hundred thousand objects) is frozen first:
    collections would otherwise walk all of it again and again, writing to every page it sits on
    (a private copy of each, in each worker), though none of it is ever garbage there."""
    gc.freeze()
    gc.enable()


def _pool_context():
    import multiprocessing

    # fork starts a worker in milliseconds with every module already imported; elsewhere spawn.
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    return multiprocessing.get_context(method)


def worker_count(requested: int | None = None) -> int:
    """``requested``, or else the cores this process may run on: how many worker processes to start."""
    if requested is not None:
        return max(1, requested)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def load_many(data_dir: Path, paths: Sequence[str | os.PathLike[str]], cache: ParseCache | None = None,
              jobs: int | None = None, relatives: list[str] | None = None, digests: list[bytes | None] | None = None,
              save: bool = True) -> tuple[list[Document], list[Problem]]:
    """``relatives``, ``digests``: each path relative to ``data_dir`` and the sha256 of its bytes,
    when the caller has them (``fingerprint.DataFiles``, whose fingerprint hashed the files), None
    where it has none; a file without one is stat'ed here, then found in the stat index or read.
    ``save``: False when the caller adds to the cache and then saves it (``save_caches``): checking
    what is stale in 200,000 entries costs a tenth of a second each time."""
    with paused_gc():
        documents, problems = _load_many(data_dir, [os.fspath(path) for path in paths], cache, jobs, relatives, digests)
    if cache is not None and save:
        save_caches(data_dir, cache)
    return documents, problems


def save_caches(data_dir: Path, cache: ParseCache) -> None:
    """Write the parse cache and the stat index beside it (each only when it changed; the index
    only when this process opened it: another may have hashed the files, and saved it)."""
    cache.save()
    index = StatIndex.opened(data_dir, cache.file.parent)
    if index is not None:
        index.save()


def _load_many(data_dir: Path, files: list[str], cache: ParseCache | None, jobs: int | None,
               relatives: list[str] | None, digests: list[bytes | None] | None) -> tuple[list[Document], list[Problem]]:
    results: list[Result | None] = [None] * len(files)
    displays = _Displays()
    if relatives is None:
        prefix = str(data_dir) + "/"
        relatives = [_relative(file, data_dir, prefix) for file in files]

    if cache is not None and len(cache):
        misses = _load_cached(data_dir, files, relatives, digests, cache, displays, results)
    else:
        misses = list(range(len(files)))

    workers = worker_count(jobs)
    if workers > 1 and len(misses) >= POOL_THRESHOLD:
        remaining = _parse_in_pool(data_dir, files, relatives, misses, results, cache, workers)
    else:
        remaining = misses
    folders = Folders(data_dir)
    for index in remaining:
        key, result, payload = _parse_one(files[index], data_dir, relatives[index], displays, folders)
        results[index] = result
        if cache is not None and payload is not None:
            cache.put(key, result[0].kind, payload)  # type: ignore[union-attr]

    documents = [document for document, _ in results if document is not None]  # type: ignore[misc]
    problems = [problem for _, found in results for problem in found]  # type: ignore[misc]
    return documents, problems


def _load_cached(data_dir: Path, files: list[str], relatives: list[str], digests: list[bytes | None] | None,
                 cache: ParseCache, displays: _Displays, results: list[Result | None]) -> list[int]:
    """Fill ``results`` with the files the cache holds; returns the indexes of the others, to parse.

    The hot path of a rebuild (100,000 files, nearly all hits), so each step is done for all files
    at once where it can be: the keys made and looked up by ``map`` (in C), and each hit's model made
    by its kind's validator, called directly (``model_validate_json`` wraps it in a Python call that
    cost a fifth of the validation); a hit takes no list of problems of its own (``_NO_PROBLEMS``)."""
    if digests is None or None in digests:  # files the caller did not hash: stat'ed, found in the stat index or read
        hashes = StatIndex.for_data(data_dir, cache.file.parent)
        digests = [digest if digest is not None else _content_digest(file, relative, hashes)
                   for file, relative, digest in zip(files, relatives, digests or [None] * len(files))]
    known: Sequence[int] = range(len(files))
    misses: list[int] = []
    if None in digests:  # a link, or a file gone or unreadable: parsed, to say which
        known = [index for index, digest in enumerate(digests) if digest is not None]
        misses = [index for index, digest in enumerate(digests) if digest is None]
        files, relatives, digests = ([items[index] for index in known] for items in (files, relatives, digests))
    keys = list(map(entry_key_of_digest, relatives, digests))
    regular = displays.regular
    for index, file, key, entry in zip(known, files, keys, cache.entries(keys)):
        model = None
        if entry is not None:
            kind, payload = entry
            validate = _VALIDATORS.get(kind)
            if validate is not None:
                try:
                    model = validate(payload)
                except (ValidationError, ValueError):
                    pass
            if model is None:
                cache.forget(key)
        if model is None:
            misses.append(index)
            continue
        results[index] = (Document(file, regular(file), model.kind, model, model.metadata.name, key), _NO_PROBLEMS)
    misses.sort()
    return misses


# Each kind's validator, by the kind's name as the cache's lines hold it (bytes).
_VALIDATORS = {kind.encode("ascii"): model.__pydantic_validator__.validate_json for kind, model in KIND_MODELS.items()}
_NO_PROBLEMS: tuple[Problem, ...] = ()


def _parse_in_pool(data_dir: Path, files: list[str], relatives: list[str], misses: list[int],
                   results: list[Result | None], cache: ParseCache | None, workers: int) -> list[int]:
    """Parse ``misses`` in worker processes; returns the indexes left to parse here (after a crash).
    Workers name the files (``_Displays``) as they open them, which tells them which are links."""
    chunks = [[(index, files[index], relatives[index]) for index in misses[start:start + CHUNK]]
              for start in range(0, len(misses), CHUNK)]
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context(), initializer=_start_worker) as pool:
            for chunk in pool.map(_parse_chunk, [str(data_dir)] * len(chunks), chunks):
                for index, key, kind, display, payload, pickled, problems in chunk:
                    document = None
                    if kind is not None:
                        model = model_from_json(kind, payload) if payload is not None else pickle.loads(pickled)
                        document = Document(file=files[index], display=display, kind=kind, model=model,
                                            name=model.metadata.name, content_key=key)
                        if cache is not None and payload is not None:
                            cache.put(key, kind, payload)
                    results[index] = (document, problems)
    except BrokenProcessPool:
        pass  # a worker died (a parser crash): parse what is left here, where the error surfaces
    return [index for index in misses if results[index] is None]
