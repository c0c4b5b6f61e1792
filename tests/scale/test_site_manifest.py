"""The site manifest on disk: what is saved is read back exactly, and anything else is not read at all.

A manifest that cannot be trusted must read as None (the next build then starts from scratch),
never as a manifest with wrong files in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from site_builder import manifest
from site_builder.manifest import FileRecord, PageRecord, SiteManifest, listing_digest, read_header


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


@pytest.mark.parametrize("where", [0.25, 0.5, 0.75, 0.999])
def test_a_damaged_byte_anywhere_in_the_body_makes_it_unreadable(saved, where: float) -> None:
    _, path = saved
    content = bytearray(path.read_bytes())
    content[int(len(content) * where)] ^= 0x01
    path.write_bytes(bytes(content))
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
        if (len(calls) == 1) == (section == "files"):
            rows[-1] = rows[-1][:-1]
        real_write_frames(out, rows, chunk)

    monkeypatch.setattr(manifest, "_write_frames", one_row_short)
    written.save(path)
    assert len(calls) == 2 and SiteManifest.read(path) is None


def test_a_manifest_written_by_another_python_is_not_read(saved, monkeypatch: pytest.MonkeyPatch) -> None:
    # marshal's format belongs to the Python that wrote it.
    _, path = saved
    monkeypatch.setattr(manifest, "_BODY", "marshal 4 python 3.99.0")
    assert SiteManifest.read(path) is None


def test_a_manifest_of_the_previous_format_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "old.tsv"
    path.write_text("kernelindex-site-manifest 3\nfingerprint\tf\nrenderer\tr\nlisting\tl\nfiles\t0\n[]\n{}\n")
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
