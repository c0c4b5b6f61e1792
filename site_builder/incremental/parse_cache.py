"""The parse cache: a file's validated model, found by the hash of its path and bytes.

Parsing YAML and validating it costs far more than turning a model's stored JSON back into the
model. So a file whose bytes have not changed since the last load is not parsed again. What is
stored, and why it is safe:

- The key is sha256 of the file's path relative to the data folder and the sha256 of its bytes.
  The path is part of it because a file's checks depend on where it sits (its kind's folder, its
  name's file name). The bytes' hash of a file whose ``lstat`` is unchanged since it was last
  hashed comes from the stat index (``stat_index``, whose rules say when that is safe), and the
  file is not read at all; in a build, the fingerprint taken just before has those hashes
  already (``fingerprint.DataFiles``), and the load neither stats nor reads such a file.
- The value is the model's JSON (``exclude_unset``, so the fields a file set stay the ones it set),
  stored only when that JSON turns back into an equal model. Only valid files are stored: a file
  with a problem is parsed every time, so its error message is always produced by the same code.
- The whole cache is versioned by a hash of the code that decides validity (the schemas, the
  loader, this module) and of the library versions: change any of them and every entry is stale.
- Entries are written in blocks of up to ``BLOCK_ENTRIES``, each with a CRC of its bytes: a block
  that fails it (a write cut short, a damaged disk) is ignored whole, its files are parsed again,
  and the next save rewrites the file without it. An entry that fails to validate is ignored and
  its file parsed again. A cache that cannot be read or written is simply not used. (A CRC per
  block, not per entry: checked once when the file is read, so a lookup is one dict lookup, where
  a CRC per entry would be checked again at every one of a load's lookups, two per file.)

Storage is one append-only file per data folder (``<parent of data>/.cache/kernelindex/``, or
``$KERNELINDEX_CACHE_DIR``): a header line, then blocks, each a line ``@ <crc32> <length>`` and
``length`` bytes of entries, one line each: ``<key> <kind> <json>``. Reading every entry is one read
of one file, not one open per entry, because a large repository has hundreds of thousands. New
entries are appended as a block; when most entries in the file are stale, it is rewritten with the
live ones (write to a temporary file, then rename).
"""

from __future__ import annotations

import hashlib
import os
import sys
import zlib
from itertools import compress
from pathlib import Path

FORMAT = b"kernelindex-parse-cache 2"
ENV_DIR = "KERNELINDEX_CACHE_DIR"
# The kind of an entry that holds an entity's digest (a run's, see ``link._run_digest``, and since
# the other kinds' too, ``link._give_digests``) rather than a model.
RUN_DIGEST_KIND = "=run-digest"
_RUN_DIGEST_PREFIX = RUN_DIGEST_KIND.encode("ascii") + b" "
# Where an entry's kind starts: after its 64-digit key and a space.
_KIND_AT = 65
# A digest entry's value, b"sha256:" and 64 hexadecimal digits, and the length of its whole line.
_RUN_DIGEST_VALUE = _RUN_DIGEST_PREFIX + b"sha256:"
_RUN_DIGEST_LENGTH = _KIND_AT + len(_RUN_DIGEST_PREFIX) + 71
# Entries per block: a damaged block costs at most this many files parsed again.
BLOCK_ENTRIES = 1000
_BLOCK_MARK = b"@"

# The modules whose code decides whether a file is valid and what its model holds.
# link is one of them because runs' digests are cached too (see ``link._run_digest``).
_VERSIONED_MODULES = ("schemas", "site_builder.yaml_reading", "site_builder.fastyaml", "site_builder.load",
                      "site_builder.incremental.parse_cache", "site_builder.parallel.bulk_load", "site_builder.link",
                      "site_builder.incremental.stat_index")


def _code_version() -> bytes:
    import importlib

    import pydantic_core
    import ruamel.yaml

    digest = hashlib.sha256()
    digest.update(FORMAT)
    digest.update(f"{sys.version}|{pydantic_core.__version__}|{ruamel.yaml.__version__}".encode())
    for name in _VERSIONED_MODULES:
        module = importlib.import_module(name)
        location = Path(module.__file__)  # type: ignore[arg-type]
        files = sorted(location.parent.glob("*.py")) if location.name == "__init__.py" else [location]
        for file in files:
            digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest().encode()


_VERSION: bytes | None = None


def code_version() -> bytes:
    global _VERSION
    if _VERSION is None:
        _VERSION = _code_version()
    return _VERSION


def entry_key(relative: str, raw: bytes) -> str:
    return entry_key_of_digest(relative, hashlib.sha256(raw).digest())


def entry_key_of_digest(relative: str, digest: bytes) -> str:
    """``entry_key`` given the sha256 digest of the file's bytes (``stat_index`` keeps them)."""
    return hashlib.sha256(relative.encode("utf-8") + b"\0" + digest).hexdigest()


def default_cache_dir(data_dir: Path) -> Path:
    override = os.environ.get(ENV_DIR)
    if override:
        return Path(override)
    return data_dir.resolve().parent / ".cache" / "kernelindex"


class ParseCache:
    """Entries for one data folder: key -> (kind, model JSON); and runs' digests, whose kind is
    ``RUN_DIGEST_KIND``, by the key ``link`` makes of a run's file and references (``run_digest``)."""

    def __init__(self, file: Path):
        self.file = file
        # ASCII key -> the whole line b"<key> <kind> <json>" as read from the file (bytes keys, and
        # lines kept whole: reading the file then decodes and splits nothing per entry).
        self._stored: dict[bytes, bytes] = {}
        self._new: dict[bytes, bytes] = {}
        self._used: set[bytes] = set()
        # No intact file of this version yet (none, another version's, or a damaged block in it):
        # the next save writes a whole new one.
        self._fresh_file = True
        # Whether link asked for runs' digests: until it has, unused digest entries are not stale
        # (a load without a link must not drop them, or the next build hashes every run again).
        self._digests_asked = False

    @classmethod
    def for_data(cls, data_dir: Path, cache_dir: Path | None = None) -> "ParseCache":
        folder = cache_dir or default_cache_dir(data_dir)
        tag = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
        cache = cls(folder / f"parse-{tag}.cache")
        cache.read()
        return cache

    def read(self) -> None:
        try:
            with open(self.file, "rb") as handle:
                content = handle.read()
        except OSError:
            return
        header, _, body = content.partition(b"\n")
        if header != FORMAT + b" " + code_version():
            return  # another version's cache: every entry is stale
        self._stored, intact = _entries_of_intact_blocks(body)
        self._fresh_file = not intact

    def __len__(self) -> int:
        return len(self._stored) + len(self._new)

    def get(self, key: str) -> tuple[str, bytes] | None:
        """(kind, JSON) for ``key``, or None when absent."""
        entry = self._in_use(key.encode("ascii"))
        if entry is None:
            return None
        kind, payload = _parts(entry)
        return kind.decode("ascii", "replace"), payload

    def run_digest(self, key: str) -> str | None:
        """The run's digest stored under ``key`` (see ``link._run_digest``), or None when absent or
        not a digest. Asked once per run: it skips ``get``'s split and decoding."""
        entry = self._in_use(key.encode("ascii"))
        return _digest(entry) if entry is not None else None

    def entries(self, keys: list[str]) -> list[tuple[bytes, bytes] | None]:
        """``get`` for every key at once (the kind left as bytes): a warm load asks for one per data
        file, and lookups made by ``map`` spare a Python call for each."""
        return [_parts(line) if line is not None else None for line in self._lines(keys)]

    def run_digests(self, keys: list[str]) -> list[str | None]:
        """``run_digest`` for every key at once (``entries`` says why)."""
        return [_digest(line) if line is not None else None for line in self._lines(keys)]

    def _lines(self, keys: list[str]) -> list[bytes | None]:
        """``_in_use`` of each key, by ``map``."""
        names = [key.encode("ascii") for key in keys]
        lines = list(map(self._stored.get, names))
        self._used.update(compress(names, lines))
        return lines

    def _in_use(self, name: bytes) -> bytes | None:
        """The whole line stored under ``name`` (which is then in use), or None."""
        entry = self._stored.get(name)
        if entry is not None:
            self._used.add(name)
        return entry

    def asking_digests(self) -> None:
        """link is about to look up runs' digests: unused ones may be dropped at the next save."""
        self._digests_asked = True

    def put(self, key: str, kind: str, payload: str) -> None:
        name = key.encode("ascii")
        self._new[name] = name + b" " + kind.encode("ascii") + b" " + payload.encode("utf-8")
        self._used.add(name)

    def forget(self, key: str) -> None:
        """An entry that did not validate: leave it out of the next rewrite."""
        self._used.discard(key.encode("ascii"))

    def save(self) -> None:
        """Append new entries, or rewrite the file when it is new or mostly stale. Never raises."""
        new = {key: line for key, line in self._new.items() if key not in self._stored}
        stale = len(self._stale_keys())
        try:
            if self._fresh_file or stale > max(1000, len(self._used) // 4):
                self._rewrite()
            elif new:
                with open(self.file, "ab") as handle:
                    handle.write(_blocks(list(new.values())))
        except OSError:
            return
        self._stored.update(new)
        self._new.clear()

    def _stale_keys(self) -> set[bytes]:
        unused = self._stored.keys() - self._used
        if self._digests_asked:
            return unused
        return {key for key in unused if not self._stored[key].startswith(_RUN_DIGEST_PREFIX, _KIND_AT)}

    def _rewrite(self) -> None:
        stale = self._stale_keys()
        live = {key: line for key, line in self._stored.items() if key not in stale}
        live.update(self._new)
        self.file.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.file.with_name(f"{self.file.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as handle:
            handle.write(FORMAT + b" " + code_version() + b"\n")
            handle.write(_blocks([line for _, line in sorted(live.items())]))
        os.replace(temporary, self.file)
        self._stored = live
        self._fresh_file = False


def _parts(line: bytes) -> tuple[bytes, bytes]:
    """(kind, JSON) of a stored line, each cut from the line once (the JSON is most of it)."""
    end = line.find(b" ", _KIND_AT)
    return (line[_KIND_AT:end], line[end + 1:]) if end >= 0 else (line[_KIND_AT:], b"")


def _digest(line: bytes) -> str | None:
    """The digest a stored line holds, or None when it holds a model."""
    if len(line) != _RUN_DIGEST_LENGTH or not line.startswith(_RUN_DIGEST_VALUE, _KIND_AT):
        return None
    return line[-71:].decode("ascii")


def _blocks(lines: list[bytes]) -> bytes:
    """``lines`` as blocks of up to ``BLOCK_ENTRIES``, each after its mark: ``@ <crc32> <length>``."""
    out = []
    for start in range(0, len(lines), BLOCK_ENTRIES):
        block = b"".join(line + b"\n" for line in lines[start:start + BLOCK_ENTRIES])
        out.append(_BLOCK_MARK + b" %08x %d\n" % (zlib.crc32(block), len(block)) + block)
    return b"".join(out)


def _entries_of_intact_blocks(body: bytes) -> tuple[dict[bytes, bytes], bool]:
    """(key -> line of each entry in the blocks of ``body``, the file after its header, whose CRC
    holds, up to the first that is damaged or cut short: its length may be wrong too, so nothing
    after it is trusted; whether every block was intact). A later entry for a key wins."""
    entries: dict[bytes, bytes] = {}
    view = memoryview(body)
    position = 0
    while position < len(body):
        end = body.find(b"\n", position)
        fields = body[position:end].split(b" ") if end >= 0 else []
        if len(fields) != 3 or fields[0] != _BLOCK_MARK or not fields[2].isdigit():
            return entries, False
        start, stop = end + 1, end + 1 + int(fields[2])
        if stop > len(body) or fields[1] != b"%08x" % zlib.crc32(view[start:stop]):
            return entries, False
        # Each entry's line ends with a newline: the empty piece after the last is no entry.
        entries.update((line[:64], line) for line in body[start:stop].split(b"\n") if line)
        position = stop
    return entries, True
