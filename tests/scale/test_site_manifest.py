"""The site manifest on disk: what is saved is read back exactly, and anything else is not read at all.

A manifest that cannot be trusted must read as None (the next build then starts from scratch),
never as a manifest with wrong files in it. A manifest saved as changes on top of the base of the
one read before it reads back as exactly what was saved, as a manifest saved whole does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder.incremental import site_manifest as manifest
from site_builder.incremental.site_manifest import FileRecord, PageRecord, SiteManifest, listing_digest, read_header


def a_manifest(files: int = 12_000) -> SiteManifest:
    """More files than one frame holds, a path that is not UTF-8 (kept as surrogates), and a
    signature with two pages."""
    records = {f"runs/r{n}.html": FileRecord(f"runs/r{n}.html", f"{n:064x}", n, 1_700_000_000_000_000_000 + n)
               for n in range(files)}
    odd = "runs/caf\udce9.html"
    records[odd] = FileRecord(odd, "f" * 64, 3, 5)
    pages = {"s1": [PageRecord("run", "Run 1 · “quoted”", "runs/r1.html", "runs/r2.html")],
             "s2": [PageRecord("kernel", "K", "runs/r3.html", "runs/r4.html"),
                    PageRecord("kernel", "K 2", odd, "runs/r5.html")]}
    return SiteManifest("fingerprint", "renderer", records, pages)


@pytest.fixture
def saved(tmp_path: Path) -> tuple[SiteManifest, Path]:
    written = a_manifest()
    path = tmp_path / "sites" / "key.tsv"
    written.save(path)
    return written, path


def test_a_saved_manifest_reads_back_equal(saved) -> None:
    written, path = saved
    assert SiteManifest.read(path) == written
    header = read_header(path)
    assert header is not None and header.fingerprint == "fingerprint" and header.files == len(written.files)
    assert header.listing == written.listing


def base_of(path: Path) -> Path:
    (base,) = path.parent.glob("*.base")
    return base


def saved_as_changes(path: Path) -> tuple[SiteManifest, SiteManifest]:
    """(the manifest read from ``path``, a changed one saved on top of its base): a file changed, one
    gone, one new; a signature's pages changed, one signature gone, one new."""
    before = SiteManifest.read(path)
    assert before is not None
    files = dict(before.files)
    files["runs/r7.html"] = FileRecord("runs/r7.html", "a" * 64, 70, 71)
    del files["runs/r8.html"]
    files["new/page.html"] = FileRecord("new/page.html", "b" * 64, 1, 2)
    pages = dict(before.pages)
    pages["s1"] = [PageRecord("run", "Run 1 again", "runs/r1.html", "runs/r2.html")]
    del pages["s2"]
    pages["s3"] = [PageRecord("gpu", "G", "new/page.html", "runs/r9.html")]
    after = SiteManifest("fingerprint 2", "renderer", files, pages)
    after.save(path, since=before)
    return before, after


@pytest.mark.parametrize("where", [0.25, 0.5, 0.75, 0.999])
def test_a_damaged_byte_anywhere_in_the_base_makes_it_unreadable(saved, where: float) -> None:
    _, path = saved
    base = base_of(path)
    content = bytearray(base.read_bytes())
    content[int(len(content) * where)] ^= 0x01
    base.write_bytes(bytes(content))
    assert SiteManifest.read(path) is None


@pytest.mark.parametrize("where", [0.5, 0.75, 0.999])
def test_a_damaged_byte_anywhere_in_the_changes_makes_it_unreadable(saved, where: float) -> None:
    _, path = saved
    saved_as_changes(path)
    content = bytearray(path.read_bytes())
    body = content.index(b"\nbase\t") + 1
    body = content.index(b"\n", body) + 1
    content[body + int((len(content) - body) * where)] ^= 0x01
    path.write_bytes(bytes(content))
    assert SiteManifest.read(path) is None


def test_a_manifest_saved_as_changes_reads_back_equal_on_the_same_base(saved) -> None:
    _, path = saved
    base = base_of(path)
    base_bytes = base.read_bytes()
    _, after = saved_as_changes(path)
    assert base_of(path) == base and base.read_bytes() == base_bytes  # the base is not written again
    assert path.stat().st_size < 2_000  # the changes only
    assert SiteManifest.read(path) == after
    header = read_header(path)
    assert header is not None and header.listing == after.listing and header.files == len(after.files)


def test_changes_saved_on_changes_read_back_equal_and_a_new_base_comes_once_they_are_many(saved) -> None:
    _, path = saved
    first_base = base_of(path)
    saved_as_changes(path)
    current = SiteManifest.read(path)
    for round_ in range(3):  # each round changes a few more records, on the same base
        assert current is not None
        files = dict(current.files)
        files[f"runs/r{round_}.html"] = FileRecord(f"runs/r{round_}.html", "c" * 64, round_, round_)
        following = SiteManifest("f", "r", files, {**current.pages, f"s{round_}": []})
        following.save(path, since=current)
        current = SiteManifest.read(path)
        assert current == SiteManifest("f", "r", files, {s: p for s, p in following.pages.items() if p})
        assert base_of(path) == first_base and read_header(path).listing == following.listing  # type: ignore[union-attr]
    assert current is not None
    many = {**current.files, **{f"more/{n}": FileRecord(f"more/{n}", "d" * 64, n, n) for n in range(2_000)}}
    SiteManifest("f", "r", many, current.pages).save(path, since=current)
    assert base_of(path) != first_base and not first_base.exists()  # a new base, the old one removed
    assert SiteManifest.read(path) == SiteManifest("f", "r", many, current.pages)


def test_a_manifest_whose_base_is_gone_is_not_read(saved) -> None:
    _, path = saved
    base_of(path).unlink()
    assert SiteManifest.read(path) is None


@pytest.mark.parametrize("cut", [1, 9, 1000])
def test_a_manifest_cut_short_or_with_bytes_after_it_is_unreadable(saved, cut: int) -> None:
    _, path = saved
    content = path.read_bytes()
    path.write_bytes(content[:-cut])
    assert SiteManifest.read(path) is None
    path.write_bytes(content + b"\0" * cut)
    assert SiteManifest.read(path) is None


@pytest.mark.parametrize("section", ["files", "pages"])
def test_a_manifest_whose_rows_have_the_wrong_shape_is_not_read(saved, section: str, monkeypatch) -> None:
    # Frames intact, but a row one value short: not a manifest this build wrote.
    written, path = saved
    real_write_frames = manifest._write_frames
    calls = []

    def one_row_short(out, rows, chunk=5_000):
        rows = list(rows)
        calls.append(section)
        if len(calls) == (1 if section == "files" else 2):  # the base's files, then its pages
            rows[-1] = rows[-1][:-1]
        real_write_frames(out, rows, chunk)

    monkeypatch.setattr(manifest, "_write_frames", one_row_short)
    written.save(path)
    assert len(calls) == 6 and SiteManifest.read(path) is None


def test_a_manifest_written_by_another_python_is_not_read(saved, monkeypatch: pytest.MonkeyPatch) -> None:
    # marshal's format belongs to the Python that wrote it.
    _, path = saved
    monkeypatch.setattr(manifest, "_BODY", "marshal 4 python 3.99.0")
    assert SiteManifest.read(path) is None


def test_a_manifest_of_the_previous_format_is_not_read(tmp_path: Path) -> None:
    # Format 4: the whole body after six header lines, and a listing hashed over sorted lines.
    path = tmp_path / "old.tsv"
    empty_sections = manifest._FRAME.pack(0, 0) * 2
    path.write_bytes(f"kernelindex-site-manifest 4\nfingerprint\tf\nrenderer\tr\nlisting\tl\nfiles\t0\n"
                     f"body\t{manifest._BODY}\n".encode() + empty_sections)
    assert SiteManifest.read(path) is None and read_header(path) is None


def test_the_listing_of_a_folder_equals_the_manifests_listing_of_its_files(tmp_path: Path) -> None:
    site = tmp_path / "site"
    for name, text in (("a.html", "1"), ("a/b.html", "22"), ("a-b/c.json", "333"), ("ab.html", "")):
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    records = {}
    for path in sorted(site.rglob("*")):
        if path.is_file():
            stat = path.stat()
            name = str(path.relative_to(site))
            records[name] = FileRecord(name, "0" * 64, stat.st_size, stat.st_mtime_ns)
    assert listing_digest(site) == SiteManifest("f", "r", records).listing
    (site / "ab.html").write_text("changed")
    assert listing_digest(site) != SiteManifest("f", "r", records).listing
