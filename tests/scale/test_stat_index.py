"""The stat index changes how many files are read, never what a fingerprint or a load sees."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from site_builder.incremental import stat_index as statindex
from site_builder.incremental.fingerprint import build_fingerprint
from site_builder.load import load_documents
from site_builder.incremental.stat_index import StatIndex

from .test_cache import fingerprint as load_fingerprint


@pytest.fixture
def trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test count as old enough to be stored (else every one is racy)."""
    monkeypatch.setattr(statindex, "_now_ns", lambda: time.time_ns() + 3600 * 10**9)
    monkeypatch.setattr(statindex, "_OPEN", {})


def fresh_index(data: Path) -> StatIndex:
    """The index as the next process reads it from disk."""
    statindex._OPEN.clear()
    return StatIndex.for_data(data)


def data_fingerprint(data: Path, cache: bool = True) -> str:
    return build_fingerprint(data, as_of="2026-06-30", base_url="", cache=cache)


def _first_run(data: Path) -> Path:
    return sorted((data / "runs").rglob("*.yaml"))[0]


def _same_size_edit(path: Path) -> None:
    """Change one digit, keep the size, and put the old mtime back (as ``touch -d`` could)."""
    before = path.stat()
    text = path.read_bytes()
    position = text.index(b"median: ") + len(b"median: ")
    digit = text[position:position + 1]
    path.write_bytes(text[:position] + (b"1" if digit != b"1" else b"2") + text[position + 1:])
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_fingerprint_with_and_without_the_index_agree(synthetic: Path, trusted: None) -> None:
    reference = data_fingerprint(synthetic, cache=False)
    assert data_fingerprint(synthetic) == reference  # fills the index
    index = fresh_index(synthetic)
    assert index.file.exists() and len(index._entries) > 300
    assert data_fingerprint(synthetic) == reference  # from the index


def test_unchanged_files_are_not_read(synthetic: Path, trusted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    data_fingerprint(synthetic)
    load_documents(synthetic, cache=True, jobs=1)  # fills the parse cache
    fresh_index(synthetic)
    recorded: list[str] = []
    original = StatIndex.record
    monkeypatch.setattr(StatIndex, "record", lambda self, *args: recorded.append(args[0]) or original(self, *args))
    data_fingerprint(synthetic)
    load_documents(synthetic, cache=True, jobs=1)
    assert recorded == []


def test_a_same_size_edit_with_the_old_mtime_is_seen(synthetic: Path, trusted: None) -> None:
    before = data_fingerprint(synthetic)
    load_fingerprint(synthetic, cache=True)
    fresh_index(synthetic)
    time.sleep(0.05)  # past the file system's timestamp tick: the edit's ctime differs
    _same_size_edit(_first_run(synthetic))
    after = data_fingerprint(synthetic)
    assert after != before and after == data_fingerprint(synthetic, cache=False)
    fresh_index(synthetic)
    assert load_fingerprint(synthetic, cache=True) == load_fingerprint(synthetic, cache=False)


def test_added_and_deleted_files_change_the_fingerprint(synthetic: Path, trusted: None) -> None:
    before = data_fingerprint(synthetic)
    run = _first_run(synthetic)
    copy = run.with_name("zz-" + run.name)
    copy.write_bytes(run.read_bytes())
    added = data_fingerprint(synthetic)
    assert added != before and added == data_fingerprint(synthetic, cache=False)
    copy.unlink()
    assert data_fingerprint(synthetic) == before
    run.unlink()
    removed = data_fingerprint(synthetic)
    assert removed not in (before, added) and removed == data_fingerprint(synthetic, cache=False)


def test_a_file_replaced_by_a_link_is_not_served_from_the_index(synthetic: Path, trusted: None, tmp_path: Path) -> None:
    data_fingerprint(synthetic)
    run = _first_run(synthetic)
    target = tmp_path / "elsewhere.yaml"
    target.write_bytes(run.read_bytes())
    run.unlink()
    run.symlink_to(target)
    assert data_fingerprint(synthetic) == data_fingerprint(synthetic, cache=False)
    assert load_fingerprint(synthetic, cache=True) == load_fingerprint(synthetic, cache=False)


def test_racy_files_are_not_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file hashed within the margin of its last change could change again in the same
    timestamp tick and keep every stat field: its hash is never stored, so it is read again."""
    monkeypatch.setattr(statindex, "_OPEN", {})
    path = tmp_path / "a.yaml"
    path.write_bytes(b"one")
    st = os.lstat(path)
    index = StatIndex(tmp_path / "stat.index")
    index.record("a.yaml", st, b"one")
    # The same stat (a rewrite in the same tick), other bytes: the index must not answer.
    assert index.lookup("a.yaml", st) is None
    monkeypatch.setattr(statindex, "_now_ns", lambda: st.st_ctime_ns + statindex.MARGIN_NS + 1)
    index.record("a.yaml", st, b"one")
    assert index.lookup("a.yaml", st) is not None


def test_a_damaged_index_is_ignored(synthetic: Path, trusted: None) -> None:
    reference = data_fingerprint(synthetic, cache=False)
    data_fingerprint(synthetic)
    file = fresh_index(synthetic).file
    content = bytearray(file.read_bytes())
    # Flip a byte inside a stored digest (the body's last bytes): the CRC no longer matches.
    content[-3] ^= 0xFF
    file.write_bytes(bytes(content))
    assert len(fresh_index(synthetic)._entries) == 0
    assert data_fingerprint(synthetic) == reference
    file.write_bytes(b"garbage")
    assert len(fresh_index(synthetic)._entries) == 0
    assert data_fingerprint(synthetic) == reference


def test_a_shared_listing_loads_what_a_fresh_one_does(synthetic: Path, trusted: None) -> None:
    from schemas.digest import canonical_json
    from site_builder.incremental.fingerprint import DataFiles
    from site_builder.load import iter_data_files
    from site_builder.repository import load_catalog

    def everything(catalog) -> list:
        return sorted((e.kind, e.name, e.digest, e.document.display, str(e.document.path), e.document.content_key,
                       canonical_json(e.manifest()), e.model.model_dump_json(exclude_unset=True))
                      for kind in catalog.by_kind.values() for e in kind.values())

    pycache = synthetic / "runs" / "__pycache__"
    pycache.mkdir()
    (pycache / "notes.txt").write_text("not data\n")
    files = DataFiles(synthetic)
    paths, relatives, digests = files.data_files()
    assert list(map(Path, paths)) == list(iter_data_files(synthetic))
    assert relatives == [Path(path).relative_to(synthetic).as_posix() for path in paths]
    assert digests == [None] * len(paths)  # nothing hashed from this listing yet
    assert build_fingerprint(synthetic, as_of="x", base_url="", files=files) == \
        build_fingerprint(synthetic, as_of="x", base_url="", cache=False)
    reference = everything(load_catalog(synthetic, cache=False))
    assert everything(load_catalog(synthetic, files=files)) == reference  # cold
    files = DataFiles(synthetic)
    build_fingerprint(synthetic, as_of="x", base_url="", files=files)
    assert everything(load_catalog(synthetic, files=files)) == reference  # warm, from the index


def test_a_load_after_the_fingerprint_neither_stats_nor_reads_a_file(synthetic: Path, trusted: None,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The fingerprint hashed every file of the listing: the load keys the parse cache by those hashes."""
    import hashlib

    from site_builder.parallel import bulk_load as bulkload
    from site_builder.incremental.fingerprint import DataFiles
    from site_builder.repository import load_catalog

    load_catalog(synthetic)  # fills the parse cache
    files = DataFiles(synthetic)
    build_fingerprint(synthetic, as_of="x", base_url="", files=files)
    paths, _, digests = files.data_files()
    assert digests == [hashlib.sha256(Path(path).read_bytes()).digest() for path in paths]

    def refused(*_: object) -> None:
        raise AssertionError("a file the fingerprint hashed was stat'ed or read again")

    monkeypatch.setattr(bulkload, "_content_digest", refused)
    monkeypatch.setattr(bulkload, "read_regular_file", refused)
    catalog = load_catalog(synthetic, files=files)
    assert sum(len(kind) for kind in catalog.by_kind.values()) == len(paths)


def test_a_link_in_the_listing_has_no_digest_and_is_refused(synthetic: Path, trusted: None, tmp_path: Path) -> None:
    from site_builder.incremental.fingerprint import DataFiles
    from site_builder.problems import DataError
    from site_builder.repository import load_catalog

    load_catalog(synthetic)  # fills the parse cache
    run = _first_run(synthetic)
    outside = tmp_path / "outside.yaml"
    outside.write_bytes(run.read_bytes())
    run.unlink()
    run.symlink_to(outside)
    files = DataFiles(synthetic)
    build_fingerprint(synthetic, as_of="x", base_url="", files=files)
    paths, _, digests = files.data_files()
    assert digests[paths.index(str(run))] is None
    with pytest.raises(DataError, match="not a symbolic link"):
        load_catalog(synthetic, files=files)
