"""Fixtures for the finding tests (issue 9): a tiny hand-written search index, the bundled data's
leaderboard, and one build of the bundled site with a base URL (so the sitemap is written)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from tests.bundled import bundled_data
from tests.scratch import scratch_folder

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
AS_OF = date(2026, 12, 2)  # after the newest observation in data/
BASE_URL = "https://kernelindex.example/site"
NODE = shutil.which("node")


def tiny_index() -> dict:
    """Two operations, three GPUs, a handful of groups: every table of the layout, small enough to read.

    rope (family rope, axes seq, hidden): seq 1024/2048/8192 at hidden 4096 on h100-sxm (forward),
    seq 2048 at hidden 4096 on b200, seq 2048 at hidden 1024 on h100-sxm; norm (family
    normalization, axes m, n) on h100-pcie; a suite of rope on b200.
    """
    return {
        "v": 1, "asOf": "2026-01-01",
        "fam": ["normalization", "rope"],
        "mdl": ["llama-x"],
        "dt": ["bf16", "fp32"],
        "lang": ["python", "triton", "unknown"],
        "lic": ["Apache-2.0", "MIT"],
        "ev": ["reported", "reproducible", "verified", "replicated"],
        "met": ["latency:median:ns", "memory:median:MiB"],
        "pas": ["backward", "forward"],
        "gpu": [["b200", "NVIDIA B200", ["b200"]],
                ["h100-pcie", "NVIDIA H100 PCIe", ["h100", "h100-pcie", "h100pcie", "pcie"]],
                ["h100-sxm", "NVIDIA H100 SXM", ["h100", "h100-sxm", "h100sxm", "sxm"]]],
        "op": [["rope", "Rotary embedding", 1, [0], ["rotary"], ["seq", "hidden"],
                {"hidden": 1, "seq": 0, "s": 0}, 9],
               ["rms-norm", "RMSNorm", 0, [], ["rms_norm"], ["m", "n"], {"m": 0, "n": 1, "rows": 0}, 2]],
        "im": [["Liger", 1, 1, 3], ["Transformers", 0, 0, 5], ["Secret", 2, -1, 0]],
        "wl": [[0, 0, [1024, 4096]], [0, 0, [2048, 4096]], [0, 0, [8192, 4096]], [0, 0, [2048, 1024]],
               [0, 1, [2048, 4096]], [0, -1, "suite of 3 cases · mean latency"], [1, 0, [4096, 4096]]],
        "ln": [[0, 2, 1, 0], [0, 0, 1, 0], [0, 2, 0, 0], [1, 1, -1, 0], [0, 0, -1, 0], [0, 2, 1, 1]],
        "lb": ["forward", "", "backward", "forward · memory", "!Custom label"],
        "co": [
            [0, 0, 0, "a000000000000000", [0, 1000, 0, 1, 2000, 4]],
            [1, 0, 0, "a100000000000000", [0, 1800, 4, 2, 1900, 0, 1, 3000, 1]],
            [1, 1, 1, "a200000000000000", [1, 900, 2]],
            [1, 2, 2, "a300000000000000", [0, 2500, 0]],
            [1, 5, 3, "a350000000000000", [0, 64, 0]],
            [2, 0, 0, "a400000000000000", [0, 7000, 0, 2, 7000, 0]],
            [3, 0, 4, "a500000000000000", [1, 500, 0]],
            [4, 0, 0, "a600000000000000", [0, 3500, 0]],
            [5, 4, 1, "a700000000000000", [2, 12000, 0]],
            [6, 3, 1, "a800000000000000", [0, 100, 4, 1, 120, 0]],
        ],
    }


@pytest.fixture
def index() -> dict:
    return tiny_index()


@pytest.fixture(scope="session")
def board():
    from site_builder.derive.leaderboard import derive_leaderboard
    from site_builder.repository import load_catalog
    if not any((DATA / "runs").rglob("*.yaml")):
        pytest.skip("data/runs/ is empty: the bundled data has not landed yet")
    return derive_leaderboard(load_catalog(bundled_data(), AS_OF), AS_OF)


@pytest.fixture
def pages_listed(board):
    """The API index as rendering hands it to ``discover_outputs``: every run page listed with
    where its JSON is (here a stand-in group's), which the run directory reads."""
    from site_builder import urls
    from site_builder.mirrors import MirrorIndex
    mirrors = MirrorIndex()
    for name in sorted(board.runs):
        mirrors.add_document("run", name, urls.run(name), f"api/v1/groups/g.json#/runs/{name}")
    return mirrors


@pytest.fixture(scope="session")
def bundled_index(board) -> dict:
    from site_builder.search.index import build_search_index, index_json
    return json.loads(index_json(build_search_index(board)))


@pytest.fixture(scope="package")
def site(tmp_path_factory) -> Iterator[Path]:
    from site_builder.build import build_site
    if not any((DATA / "runs").rglob("*.yaml")):
        pytest.skip("data/runs/ is empty: the bundled data has not landed yet")
    with scratch_folder(tmp_path_factory, "discover") as folder:
        build_site(bundled_data(), folder / "site", as_of=AS_OF, base_url=BASE_URL)
        yield folder / "site"


def run_node(script: Path, vectors: dict, tmp_path: Path) -> dict:
    """Run tests/discover/run_vectors.js over ``vectors`` with ``script``; its JSON report."""
    if NODE is None:
        pytest.skip("node is not installed: the JavaScript side is checked in the browser tests only")
    path = tmp_path / "vectors.json"
    path.write_text(json.dumps(vectors), encoding="utf-8")
    done = subprocess.run([NODE, str(Path(__file__).parent / "run_vectors.js"), str(script), str(path)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise AssertionError(f"node failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)
