"""benchmarks/build.py records the file system it measured on: its cost of creating files (ext4
without a journal scans recently deleted inodes) decides a cold build's system time."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_build", ROOT / "benchmarks" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def _mounts(tmp_path: Path, *lines: str) -> str:
    listing = tmp_path / "mounts"
    listing.write_text("".join(line + " 0 0\n" for line in lines), encoding="utf-8")
    return str(listing)


def test_the_deepest_mount_holding_the_folder_is_the_one_reported(tmp_path):
    bench = _bench()
    journals = tmp_path / "jbd2"
    (journals / "vdb-8").mkdir(parents=True)
    mounts = _mounts(tmp_path, "/dev/vda / ext4 rw,relatime", "/dev/vdb /work ext4 rw,noatime",
                     "tmpfs /workshop tmpfs rw")
    found = bench.file_system(Path("/work/site"), mounts, str(journals))
    assert found == {"type": "ext4", "mount_point": "/work", "options": "rw,noatime", "journal": True}
    # A path that merely starts with the same letters belongs to its own mount, not /work's.
    assert bench.file_system(Path("/workshop/x"), mounts, str(journals))["type"] == "tmpfs"


def test_an_ext4_without_a_jbd2_thread_has_no_journal(tmp_path):
    bench = _bench()
    found = bench.file_system(Path("/data"), _mounts(tmp_path, "/dev/vda / ext4 rw,discard"), str(tmp_path / "none"))
    assert found["journal"] is False
    assert "without a journal" in bench._file_system_sentence(found)
    assert bench.file_system(Path("/data"), str(tmp_path / "no-such-file")) == {}
