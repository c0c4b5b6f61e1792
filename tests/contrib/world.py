"""A small, valid data repository for the contributor-tooling tests, written through canonical_yaml.

One kernel (Llama 4 RoPE), one workload (seq 2048, hidden 8192), one H100 environment with its
datasheet, and three implementations: Liger, a KernelIndex Triton kernel, and Transformers as the
baseline. Runs are added per test.
"""

from __future__ import annotations

from pathlib import Path

from site_builder.canonical_yaml import canonical_yaml

API = "kernelindex.dev/v1alpha1"
WORKLOAD = "llama4-rope-s2048"
PROTOCOL = "liger-bench-forward"
ENVIRONMENT = "liger-bench-h100"
# Inputs and outputs once, over 3,350 GB/s: the truthful floor of WORKLOAD on the H100.
FLOOR_NS = (2 * (33_554_432 + 8_388_608) + 2_097_152) / 3350


def doc(kind: str, metadata: dict, spec: dict) -> dict:
    return {"apiVersion": API, "kind": kind, "metadata": metadata, "spec": spec}


def base_documents() -> dict[str, dict]:
    """Relative path -> document."""
    source = {"source": "liger-kernel-bench"}
    cite = {"source": "nvidia-h100-datasheet"}
    tensor = lambda *shape, dtype="float": {"shape": list(shape), "dtype": dtype}  # noqa: E731
    return {
        "sources/liger-kernel-bench.yaml": doc("Source", {"name": "liger-kernel-bench", "title": "Liger-Kernel benchmarks"}, {
            "title": "Liger-Kernel benchmark data", "url": "https://github.com/linkedin/Liger-Kernel",
            "license": "BSD-2-Clause", "retrieved": "2026-11-29"}),
        "sources/nvidia-h100-datasheet.yaml": doc("Source", {"name": "nvidia-h100-datasheet"}, {
            "title": "NVIDIA H100 Tensor Core GPU datasheet", "url": "https://www.nvidia.com/en-us/data-center/h100/",
            "retrieved": "2026-11-29"}),
        "hardware/nvidia-h100-sxm.yaml": doc("Hardware", {"name": "nvidia-h100-sxm", "title": "NVIDIA H100 SXM"}, {
            "vendor": "nvidia", "product": "NVIDIA H100", "architecture": "sm_90", "memory": "80GB HBM3",
            "matches": [{"product": "NVIDIA H100", "formFactor": "80GB HBM3"}],
            "bandwidthGBps": {"value": 3350, "cite": cite},
            "peakTflops": {"bf16": {"value": 989.4, "cite": cite}}, "priority": True}),
        "kernels/llama4-rope.yaml": doc("OperationSpec", {
            "name": "llama4-rope", "title": "Llama 4 rotary position embedding", "headlineWorkload": WORKLOAD,
            "sources": ["liger-kernel-bench"]}, {
            "family": "rope",
            "axes": {"batch": {"role": "variable"}, "seq": {"role": "variable"}, "hidden": {"role": "variable"},
                     "q_heads": {"role": "variable"}, "kv_heads": {"role": "variable"},
                     "head_dim": {"role": "derived", "expression": "hidden // q_heads"},
                     "half_head_dim": {"role": "derived", "expression": "head_dim // 2"}},
            "inputs": [{"name": "q", "tensor": tensor("batch", "seq", "q_heads", "head_dim")},
                       {"name": "k", "tensor": tensor("batch", "seq", "kv_heads", "head_dim")},
                       {"name": "freqs_cis", "tensor": tensor("batch", "seq", "half_head_dim", dtype="complex64")}],
            "outputs": [{"name": "q_out", "tensor": tensor("batch", "seq", "q_heads", "head_dim")},
                        {"name": "k_out", "tensor": tensor("batch", "seq", "kv_heads", "head_dim")}]}),
        f"workloads/{WORKLOAD}.yaml": doc("WorkloadCase", {"name": WORKLOAD, "title": "seq 2048, hidden 8192"}, {
            "operation": "llama4-rope", "axes": {"batch": 1, "seq": 2048, "hidden": 8192, "q_heads": 32, "kv_heads": 8},
            "dtype": "bf16", "correctness": {"comparator": "allclose", "maxAbsoluteError": 0.01}}),
        "projects/liger-kernel.yaml": doc("SoftwareProject", {"name": "liger-kernel"}, {
            "name": "Liger-Kernel", "kind": "library", "repository": "https://github.com/linkedin/Liger-Kernel"}),
        "projects/transformers.yaml": doc("SoftwareProject", {"name": "transformers"}, {
            "name": "Transformers", "kind": "library", "repository": "https://github.com/huggingface/transformers"}),
        "projects/kernelindex.yaml": doc("SoftwareProject", {"name": "kernelindex"}, {"name": "KernelIndex"}),
        "implementations/liger-llama4-rope.yaml": doc("ImplementationRevision", {"name": "liger-llama4-rope"}, {
            "project": "liger-kernel", "operation": "llama4-rope", "callable": {"language": "triton"}}),
        "implementations/kernelindex-llama4-rope.yaml": doc("ImplementationRevision", {"name": "kernelindex-llama4-rope"}, {
            "project": "kernelindex", "operation": "llama4-rope", "callable": {"language": "triton"}}),
        "implementations/transformers-llama4-rope.yaml": doc("ImplementationRevision", {
            "name": "transformers-llama4-rope", "labels": {"role": "baseline"}}, {
            "project": "transformers", "operation": "llama4-rope", "callable": {"language": "python"}}),
        f"protocols/{PROTOCOL}.yaml": doc("BenchmarkProtocol", {"name": PROTOCOL, "title": "Liger benchmark · forward"}, {
            "harness": {"name": "Liger-Kernel benchmark scripts"},
            "measurement": {"timer": "cuda_events", "primaryStatistic": "median", "timedPass": "forward"}}),
        f"environments/{ENVIRONMENT}.yaml": doc("ExecutionEnvironment", {"name": ENVIRONMENT}, {
            "hardware": {"vendor": "nvidia", "product": "NVIDIA H100", "formFactor": "80GB HBM3", "architecture": "sm_90"}}),
        "runs/liger-kernel-bench/llama4-rope/liger-s2048.yaml": run("liger-s2048", "liger-llama4-rope", 81_300),
        "runs/liger-kernel-bench/llama4-rope/transformers-s2048.yaml": run("transformers-s2048", "transformers-llama4-rope", 206_500),
    }


def run(name: str, implementation: str, median_ns: int, observed_at: str = "2025-08-07T21:42:12Z") -> dict:
    return doc("BenchmarkRun", {"name": name}, {
        "implementation": implementation, "workload": WORKLOAD, "protocol": PROTOCOL, "environment": ENVIRONMENT,
        "status": "passed", "timing": {"primaryStatistic": "median", "latencyNs": {"median": median_ns}},
        "observedAt": observed_at})


def write(data_dir: Path, documents: dict[str, dict]) -> None:
    for relative, document in documents.items():
        path = data_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(canonical_yaml(document, path), encoding="utf-8")
