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


def test_site_weight_counts_what_the_build_wrote_by_kind(tmp_path):
    bench = _bench()
    for path, size in (("runs/a.html", 300), ("runs/b.html", 100), ("api/v1/runs/a.json", 50),
                       ("kernels/k.html", 20), ("kernels/k/w.html", 10), ("index.html", 5)):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(b"x" * size)
    weight = bench.site_weight(tmp_path)
    assert (weight["bytes"], weight["files"]) == (485, 6)
    assert weight["largest_document"] == [300, "runs/a.html"]
    assert weight["kinds"] == {"runs": [2, 400], "runs (JSON)": [1, 50], "kernels": [1, 20],
                               "kernels (workload pages)": [1, 10], "other files at the top": [1, 5]}
    result = {"runs": 1000, "files": 1, "steps": {}, "site": weight}
    assert "| 1,000 | 0.0 | 6 | runs/a.html (0.00 MB) | runs 2, 0.0 (0.2);" in bench.weight_table([result])
    assert bench.table([result]).splitlines()[-1].endswith("| 0.0 | 6 |")
