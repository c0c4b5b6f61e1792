"""The stat index: a data file's content hash, found by its ``lstat`` when the file is unchanged.

Fingerprinting and loading both need the sha256 of every data file's bytes; reading every file of a
large repository to get them costs more than everything else a no-op build does. So, as git's index
does, each file's hash is kept with the stat data it had when it was hashed, and a file whose stat
data is the same is not read again. What is stored, and why it is safe:

- The key is the file's path relative to the data folder; the value is (inode, size, mtime_ns,
  ctime_ns, sha256 of the bytes). All four must equal the file's ``lstat`` for the hash to be used.
  ctime cannot be set by a program (``touch -d`` and ``os.utime`` reset mtime, and set ctime to
  now), so an edit that keeps the size and restores the mtime is still seen.
- "Racy" files are never stored: a file whose mtime or ctime is less than ``MARGIN_NS`` (3 s)
  before the moment its hash was taken could be written again within the same timestamp tick
  (a second or two on some file systems; a jiffy on Linux) after it was read, and keep every
  stat field. Such a file is hashed again every time until it is older than that.
- Only regular files are stored (``lstat``, never following a link); anything else is read.
- The index is versioned (its format and the Python version) and carries a CRC of its body; an
  index that fails either, or cannot be read or written, is simply not used.

Within one process, the index for a data folder is shared (``for_data``). A build's load takes
each file's hash from the fingerprint taken just before over the same listing
(``fingerprint.DataFiles``), so it loads the bytes that fingerprint covers (a file changed in
between is seen by the next build, whose fingerprint differs); a load without that listing
compares each file's stat with the entry here itself.

Storage: ``<cache folder>/stat-<tag>.index`` beside the parse cache (see ``parse_cache``): one header
line, then ``marshal`` of {path: (ino, size, mtime_ns, ctime_ns, digest)} (marshal holds only
plain values and never runs code). It is rewritten (temporary file, then rename) when an entry
was added or changed; entries of files not seen in this process are dropped when they are many.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import stat as stat_module
import sys
import time
import zlib
from pathlib import Path

FORMAT = b"kernelindex-stat-index 1"
# A file modified less than this long before it was hashed is not trusted to show a later
# change in its stat data (timestamp granularity: ext4 a jiffy, FAT 2 s; NFS clocks drift).
MARGIN_NS = 3_000_000_000
_VERSION = FORMAT + f" {sys.version_info[:3]} marshal {marshal.version}".encode()

Entry = tuple[int, int, int, int, bytes]

_OPEN: dict[tuple[str, str], "StatIndex"] = {}


def _key(data_dir: Path, cache_dir: Path | None) -> tuple[str, str]:
    """(the data folder, resolved; its index file): what ``_OPEN`` knows an index by."""
    from .parse_cache import default_cache_dir

    resolved = str(data_dir.resolve())
    folder = cache_dir or default_cache_dir(data_dir)
    tag = hashlib.sha256(resolved.encode()).hexdigest()[:16]
    return resolved, str(folder / f"stat-{tag}.index")


def _now_ns() -> int:
    return time.time_ns()


def signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


class StatIndex:
    """relative path -> sha256 digest of the file's bytes, for files whose stat is unchanged."""

    def __init__(self, file: Path | None):
        self.file = file
        self._entries: dict[str, Entry] = {}
        self._seen: set[str] = set()
        self._dirty = False

    @classmethod
    def for_data(cls, data_dir: Path, cache_dir: Path | None = None) -> "StatIndex":
        """The index of ``data_dir``, shared by every caller in this process."""
        key = _key(data_dir, cache_dir)
        index = _OPEN.get(key)
        if index is None:
            index = _OPEN[key] = cls(Path(key[1]))
            index.read()
        return index

    @classmethod
    def opened(cls, data_dir: Path, cache_dir: Path | None = None) -> "StatIndex | None":
        """The index of ``data_dir`` if a caller in this process has opened it (``for_data``), else None."""
        return _OPEN.get(_key(data_dir, cache_dir))

    def read(self) -> None:
        if self.file is None:
            return
        try:
            with open(self.file, "rb") as handle:
                content = handle.read()
        except OSError:
            return
        header, _, body = content.partition(b"\n")
        version, _, crc = header.rpartition(b" ")
        if version != _VERSION or crc != b"%08x" % zlib.crc32(body):
            return
        try:
            entries = marshal.loads(body)
        except (ValueError, EOFError, TypeError):
            return
        if isinstance(entries, dict):
            self._entries = entries

    def lookup(self, relative: str, st: os.stat_result) -> bytes | None:
        """The stored digest when ``st`` (an ``lstat`` of the file) matches the entry; else None."""
        self._seen.add(relative)
        entry = self._entries.get(relative)
        if entry is None or entry[:4] != (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns):
            return None
        return entry[4]

    def record(self, relative: str, st: os.stat_result | None, raw: bytes) -> bytes:
        """The digest of ``raw``, the bytes read after ``st`` was taken; stored when not racy."""
        digest = hashlib.sha256(raw).digest()
        self._seen.add(relative)
        margin = _now_ns() - MARGIN_NS
        if (st is not None and stat_module.S_ISREG(st.st_mode) and st.st_size == len(raw)
                and st.st_mtime_ns < margin and st.st_ctime_ns < margin):
            entry = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, digest)
            if self._entries.get(relative) != entry:
                self._entries[relative] = entry
                self._dirty = True
        elif self._entries.pop(relative, None) is not None:
            self._dirty = True
        return digest

    def save(self) -> None:
        """Write the index when it changed. Never raises."""
        unseen = len(self._entries) - len(self._seen & self._entries.keys()) if self._entries else 0
        if unseen > max(1000, len(self._seen) // 4):
            self._entries = {path: entry for path, entry in self._entries.items() if path in self._seen}
            self._dirty = True
        if not self._dirty or self.file is None:
            return
        body = marshal.dumps(self._entries)
        temporary = self.file.with_name(f"{self.file.name}.{os.getpid()}.tmp")
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            with open(temporary, "wb") as handle:
                handle.write(_VERSION + b" %08x\n" % zlib.crc32(body) + body)
            os.replace(temporary, self.file)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            return
        self._dirty = False
