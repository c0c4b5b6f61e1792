"""Fixtures for the harness tests: a tiny data folder built from the real kernel files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")  # kernels run on the CPU through Triton's interpreter

REPO = Path(__file__).resolve().parents[2]

TINY_CASES = {
    "llama4-rope": [("llama4-rope-tiny", {"batch": 2, "seq": 8, "hidden": 64, "q_heads": 4, "kv_heads": 2}, "fp32")],
    "fused-neighborhood-attention": [("fused-neighborhood-attention-tiny",
                                      {"batch": 1, "seq": 16, "hidden": 32, "heads": 2, "kernel_size": 3, "dilation": 2}, "fp32")],
}
# A scaled-down M-RoPE operation (the real one fixes hidden_size 3584): same axes, small constants.
MROPE_SMALL = {"hidden_size": 64, "num_heads": 4, "num_kv_heads": 2, "head_dim": 16, "num_kv_groups": 2}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_data(root: Path, *, suite_cases=((8, 1), (12, 2))) -> Path:
    """A valid data folder: the repository's kernels (headline workloads dropped), projects and
    sources, plus tiny workloads of every kernel and a two-case M-RoPE suite."""
    from harness.run_yaml import dump, load_file

    for folder in ("projects", "sources"):
        shutil.copytree(REPO / "data" / folder, root / folder, ignore=shutil.ignore_patterns("*.csv", "*.md"))
    for path in sorted((REPO / "data" / "kernels").glob("*.yaml")):
        body = load_file(path)
        body["metadata"].pop("headlineWorkload", None)
        if body["metadata"]["name"] == "multimodal-rotary-embedding-attention":
            for axis, value in MROPE_SMALL.items():
                body["spec"]["axes"][axis]["value"] = value
        _write(root / "kernels" / path.name, dump(body))
    for kernel, cases in TINY_CASES.items():
        for name, axes, dtype in cases:
            _write(root / "workloads" / kernel / f"{name}.yaml", dump({
                "apiVersion": "kernelindex.dev/v1alpha1", "kind": "WorkloadCase", "metadata": {"name": name},
                "spec": {"operation": kernel, "axes": axes, "dtype": dtype,
                         "correctness": {"comparator": "allclose", "maxAbsoluteError": 1e-5}}}))
    _write(root / "workloads" / "multimodal-rotary-embedding-attention" / "mrope-tiny-suite.yaml", dump({
        "apiVersion": "kernelindex.dev/v1alpha1", "kind": "WorkloadSuite",
        "metadata": {"name": "mrope-tiny-suite", "title": "two tiny cases"},
        "spec": {"operation": "multimodal-rotary-embedding-attention",
                 "cases": [{"axes": {"seq_len": s, "batch_size": b}} for s, b in suite_cases],
                 "dtype": "bf16", "correctness": {"comparator": "sol_execbench"},
                 "aggregation": {"metric": "latency", "statistic": "mean"}}}))
    return root


@pytest.fixture
def tiny_data(tmp_path) -> Path:
    return make_data(tmp_path / "data")
