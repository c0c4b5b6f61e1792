"""Random edits to a synthetic repository: the incremental rebuild is byte-identical to a build
from scratch (``--no-cache``), whatever was edited.

The rebuild keeps pages whose signature is unchanged: a kernel's pages are signed by its runs, a
page of many kernels' runs by what its plan shows (``incremental.page_signatures``,
``context.tasks``). A page that read past its plan, or a rule that missed an input, would keep a
stale page, and only a rebuild after that kind of edit would show it. So the
edits here reach every kind of input: a run's timing, status, removal, a new run (faster or
slower, later), a run superseding another, an implementation's title, a kernel's description, a
datasheet's bandwidth (every floor on that GPU) and a run's retraction.
"""

from __future__ import annotations

import os
import random
import shutil
from datetime import date
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from site_builder.build import build_site  # noqa: E402
from site_builder.canonical_yaml import canonical_yaml, load_plain  # noqa: E402

AS_OF = date(2026, 6, 30)


def _read(path: Path) -> dict:
    return load_plain(path.read_text(encoding="utf-8"))


def _write(path: Path, document: dict) -> None:
    path.write_text(canonical_yaml(document, path), encoding="utf-8")


def _runs(data: Path) -> list[Path]:
    return sorted((data / "runs").rglob("*.yaml"))


def _scale_latency(run: dict, factor: float) -> None:
    """Every latency of the run (its timing and its measurements in ns) times ``factor``."""
    spec = run["spec"]
    if spec.get("timing"):  # a run may publish measurements only (peak memory, a score)
        latency = spec["timing"]["latencyNs"]
        spec["timing"]["latencyNs"] = {name: max(1, round(value * factor)) for name, value in latency.items()}
    for measurement in spec.get("measurements") or []:
        if measurement.get("unit") == "ns":
            measurement["value"] = max(1, round(measurement["value"] * factor))


def _retime(data: Path, pick: random.Random) -> None:
    path = pick.choice(_runs(data))
    run = _read(path)
    _scale_latency(run, pick.choice([0.25, 0.9, 1.1, 4.0]))
    _write(path, run)


def _fail(data: Path, pick: random.Random) -> None:
    path = pick.choice(_runs(data))
    run = _read(path)
    run["spec"]["status"] = "incorrect_numerical"
    _write(path, run)


def _remove(data: Path, pick: random.Random) -> None:
    runs = _runs(data)
    superseded = {_read(path)["spec"].get("supersedes") for path in runs}
    pick.choice([path for path in runs if path.stem not in superseded]).unlink()


def _add(data: Path, pick: random.Random, supersede: bool = False) -> None:
    path = pick.choice(_runs(data))
    run = _read(path)
    name = f"{path.stem}-again"
    if (path.parent / f"{name}.yaml").exists():
        return
    run["metadata"]["name"] = name
    _scale_latency(run, pick.choice([0.5, 2.0]))
    run["spec"]["observedAt"] = "2026-06-01T00:00:00Z"
    native = run["spec"].get("sourceNative") or {}
    if "externalId" in native:  # a source's id names one run: the copy is another
        native["externalId"] += "/again"
    if supersede:
        run["spec"]["supersedes"] = path.stem
    _write(path.parent / f"{name}.yaml", run)


def _supersede(data: Path, pick: random.Random) -> None:
    _add(data, pick, supersede=True)


def _retitle_implementation(data: Path, pick: random.Random) -> None:
    path = pick.choice(sorted((data / "implementations").rglob("*.yaml")))
    implementation = _read(path)
    implementation["metadata"]["title"] = f"{implementation['metadata'].get('title') or 'untitled'} (renamed)"
    _write(path, implementation)


def _describe_kernel(data: Path, pick: random.Random) -> None:
    path = pick.choice(sorted((data / "kernels").glob("*.yaml")))
    kernel = _read(path)
    kernel["metadata"]["description"] = "Described again, so that every page quoting it changes."
    _write(path, kernel)


def _bandwidth(data: Path, pick: random.Random) -> None:
    path = pick.choice(sorted((data / "hardware").glob("*.yaml")))
    hardware = _read(path)
    hardware["spec"]["bandwidthGBps"]["value"] = round(hardware["spec"]["bandwidthGBps"]["value"] * 1.5)
    _write(path, hardware)


def _retract(data: Path, pick: random.Random) -> None:
    path = pick.choice(_runs(data))
    run = _read(path)
    run["metadata"]["retraction"] = {"date": "2026-06-01", "reason": "Measured on a throttled GPU."}
    _write(path, run)


EDITS = {edit.__name__.lstrip("_"): edit for edit in (
    _retime, _fail, _remove, _add, _supersede, _retitle_implementation, _describe_kernel, _bandwidth, _retract)}


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# Few examples, each three builds; no shrinking (each step would be three more builds): the failing
# edits are printed as they are.
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate])
@given(edits=st.lists(st.tuples(st.sampled_from(sorted(EDITS)), st.integers(0, 2**32)), min_size=2, max_size=4))
def test_a_rebuild_after_random_edits_matches_a_build_from_scratch(synthetic_source: Path,
                                                                    tmp_path_factory: pytest.TempPathFactory,
                                                                    edits: list[tuple[str, int]]) -> None:
    work = tmp_path_factory.mktemp("edits")
    data, site = work / "data", work / "site"
    shutil.copytree(synthetic_source, data)
    cache = os.environ.get("KERNELINDEX_CACHE_DIR")
    os.environ["KERNELINDEX_CACHE_DIR"] = str(work / "cache")
    try:
        build_site(data, site, AS_OF)
        for name, seed in edits:
            EDITS[name](data, random.Random(seed))
        rebuilt = build_site(data, site, AS_OF)
        assert not rebuilt.up_to_date and rebuilt.reused > 0, edits  # a rebuild, not a build from scratch
        build_site(data, work / "clean", AS_OF, cache=False)
        incremental, clean = _files(site), _files(work / "clean")
        assert incremental.keys() == clean.keys(), edits
        stale = [path for path in clean if incremental[path] != clean[path]]
        assert not stale, (edits, stale[:5])
    finally:
        if cache is None:
            os.environ.pop("KERNELINDEX_CACHE_DIR", None)
        else:
            os.environ["KERNELINDEX_CACHE_DIR"] = cache
