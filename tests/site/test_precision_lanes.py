"""Precision lanes: a run that declares TF32 on an fp32 workload never ranks among strict runs
unless the workload's correctness policy admits TF32 (DESIGN.md "Precision lanes")."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

from site_builder.derive.facts import precision_lane, precision_lane_key
from site_builder.derive.leaderboard import derive_leaderboard, precision_label
from site_builder.repository import load_catalog

REPO = Path(__file__).resolve().parents[2]
KERNEL = "fused-neighborhood-attention"
WORKLOAD = "fused-neighborhood-attention-b2-s128-h512-nh8-k7-d2-fp32"
AS_OF = date(2027, 1, 1)


def _data(tmp_path: Path, admit: bool = False) -> Path:
    data = tmp_path / "data"
    shutil.copytree(REPO / "data", data, ignore=shutil.ignore_patterns("*.csv", "*.md", "runs"))
    runs = data / "runs" / "kernelindex-harness" / KERNEL
    runs.mkdir(parents=True)
    for path in (REPO / "data" / "runs" / "kernelindex-harness" / KERNEL).glob("fna-*-b2-s128-h512-nh8-k7-d2-fp32-forward-h200-*.yaml"):
        shutil.copyfile(path, runs / path.name)
    for path in (REPO / "data" / "runs" / "kernelindex-harness" / KERNEL).glob("fna-*-b2-s128-h512-nh8-k7-d2-fp32-forward-strict-h200-*.yaml"):
        shutil.copyfile(path, runs / path.name)
    if admit:
        workload = data / "workloads" / KERNEL / f"{WORKLOAD}.yaml"
        text = workload.read_text(encoding="utf-8")
        assert "  correctness:\n" in text
        workload.write_text(text.replace("  correctness:\n", "  correctness:\n    admittedModes: [tf32]\n", 1), encoding="utf-8")
    return data


def _forward(board):
    return [c for c in board.workload_cohorts[WORKLOAD] if c.protocol == "kernelindex-harness-v1"]


def test_tf32_runs_rank_in_their_own_lane(tmp_path):
    board = derive_leaderboard(load_catalog(_data(tmp_path), AS_OF, cache=False), AS_OF)
    cohorts = {c.precision: c for c in _forward(board)}
    assert set(cohorts) == {"", "tf32"}
    strict, tf32 = cohorts[""], cohorts["tf32"]
    assert {r.run.implementation for r in tf32.rows} == {"kernelindex-triton-fused-neighborhood-attention", "liger-fused-neighborhood-attention"}
    assert all(r.run.precision == ("tf32",) for r in tf32.rows)
    assert all(r.run.precision == () for r in strict.rows) and len(strict.rows) >= 2
    assert "TF32 lane" in tf32.label and "TF32" not in strict.label
    # a strict group keeps the public comparison key; the lane's key is another
    assert tf32.key == precision_lane_key(strict.key, "tf32")
    assert board.default_cohort(WORKLOAD).precision == ""  # a reader lands on the strict ranking


def test_a_policy_that_admits_tf32_ranks_both_together(tmp_path):
    board = derive_leaderboard(load_catalog(_data(tmp_path, admit=True), AS_OF, cache=False), AS_OF)
    (cohort,) = _forward(board)
    assert cohort.precision == "" and {r.run.precision for r in cohort.rows} == {(), ("tf32",)}
    assert "TF32" not in cohort.label


def test_lane_names():
    assert precision_lane(("tf32",), ()) == "tf32" and precision_lane(("tf32",), ("tf32",)) == ""
    assert precision_lane(("tf32", "fp16_accumulation"), ("tf32",)) == "fp16_accumulation"
    assert precision_label("tf32") == "TF32" and precision_label("fp16_accumulation+tf32") == "fp16 accumulation + TF32"


def test_a_run_without_precision_keeps_its_canonical_form_and_digest():
    """The new field is optional: a run that does not declare it dumps (and so hashes) exactly as
    before; one that declares it hashes differently, its modes sorted as a set."""
    from schemas.digest import canonical_json, spec_digest
    from schemas.kinds import BenchmarkRunSpec
    from site_builder.link import _normalise

    base = {"implementation": "i", "workload": "w", "protocol": "p", "environment": "e", "status": "passed",
            "timing": {"primaryStatistic": "median", "latencyNs": {"median": 1000}}, "observedAt": "2026-01-01T00:00:00Z"}
    plain = _normalise(BenchmarkRunSpec(**base).model_dump(mode="json", exclude_none=True))
    assert "precision" not in plain
    assert canonical_json(plain) == canonical_json(_normalise(BenchmarkRunSpec.model_validate(base).model_dump(mode="json", exclude_none=True)))
    declared = _normalise(BenchmarkRunSpec(**base, precision={"reducedModes": ["tf32", "tf32"]}).model_dump(mode="json", exclude_none=True))
    assert declared["precision"] == {"reducedModes": ["tf32"]}
    assert spec_digest("BenchmarkRun", declared) != spec_digest("BenchmarkRun", plain)
