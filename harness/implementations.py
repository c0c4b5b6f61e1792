"""Which ImplementationRevision a family implementation key is recorded as, and the files the
harness adds for the implementations that live in this repository.

Peers measured by the harness share their names with the runs imported from published benchmarks
(``liger-llama4-rope``, ``transformers-llama4-rope``), so a run page can put a KernelIndex
measurement beside the reported one. Implementations that exist only here are named
``kernelindex-<key>-<kernel>``.
"""

from __future__ import annotations

from typing import Any

API_VERSION = "kernelindex.dev/v1alpha1"
PROJECT = "kernelindex"

# kernels/ package per operation (for the callable's path in the implementation file).
PACKAGES = {
    "llama4-rope": "llama4_rope",
    "fused-neighborhood-attention": "neighborhood_attention",
    "multimodal-rotary-embedding-attention": "mrope_attention",
}

# Names tried, in order, before the harness falls back to its own ``kernelindex-<key>-<kernel>``.
PEER_CANDIDATES = {
    "liger": ("liger-{kernel}",),
    "transformers": ("transformers-{kernel}", "huggingface-{kernel}"),
}

# What each key of ours is: language, file and symbol under kernels/<package>/, title, role.
OURS = {
    "kernelindex-triton": ("triton", "triton_impl.py", "forward", "KernelIndex Triton", None),
    "pytorch-reference": ("python", "reference.py", "reference", "KernelIndex PyTorch reference", "baseline"),
    "pytorch-sdpa": ("python", "reference.py", "sdpa", "KernelIndex PyTorch reference (SDPA)", None),
    "torch-compile": ("python", "reference.py", "reference", "torch.compile of the KernelIndex reference", None),
}

# Peers with no published implementation of this exact operation: the harness's adapter composes
# the peer's pieces (e.g. Liger's M-RoPE kernel + PyTorch SDPA), so it gets a name of its own.
PEER_PROJECTS = {"liger": ("liger-kernel", "Liger-Kernel", "BSD-2-Clause", "liger-kernel"),
                 "transformers": ("huggingface-transformers", "Hugging Face Transformers", "Apache-2.0", "transformers")}


def own_name(key: str, kernel: str) -> str:
    return f"kernelindex-{key}-{kernel}"


def implementation_name(key: str, kernel: str, existing: set[str]) -> str:
    """The slug runs of ``key`` on ``kernel`` are recorded under."""
    if key == "kernelindex-triton":
        return f"kernelindex-triton-{kernel}"
    for pattern in PEER_CANDIDATES.get(key, ()):
        name = pattern.format(kernel=kernel)
        if name in existing:
            return name
    return own_name(key, kernel)


def implementation_file(key: str, kernel: str, name: str, *, project_for_peer: str | None = None,
                        version: str | None = None, family_dtypes: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ImplementationRevision body for an implementation the harness measured and data/ lacks."""
    package = PACKAGES.get(kernel, kernel.replace("-", "_"))
    dtypes = sorted({_DTYPE_TOKENS[d] for d in family_dtypes if d in _DTYPE_TOKENS})
    if key in OURS:
        language, module, symbol, title, role = OURS[key]
        description = {
            "kernelindex-triton": "The Triton kernel bundled with KernelIndex, out of place, measured by the KernelIndex harness.",
            "pytorch-reference": "The exact-semantics PyTorch reference bundled with KernelIndex (eager), the harness's correctness oracle.",
            "pytorch-sdpa": "The PyTorch reference with `F.scaled_dot_product_attention` for the attention core.",
            "torch-compile": "`torch.compile` (default mode) of the KernelIndex PyTorch reference; compilation is outside the timed region.",
        }[key]
        spec: dict[str, Any] = {
            "project": PROJECT,
            "operation": kernel,
            "projectRevision": {"version": version} if version else {},
            "callable": {"language": language, "path": f"kernels/{package}/{module}", "symbol": symbol,
                         "interface": "kernelindex_family"},
        }
        if dtypes:
            spec["support"] = {"dtypes": dtypes}
        spec["buildVariants"] = [{"name": "source", "install": {
            "kind": "source", "command": "pip install -e '.[kernels]'"}}]
        spec["licensing"] = {"declared": "Apache-2.0", "concluded": "Apache-2.0"}
        metadata: dict[str, Any] = {"name": name, "title": title, "description": description}
        if role:
            metadata["labels"] = {"role": role}
        return {"apiVersion": API_VERSION, "kind": "ImplementationRevision", "metadata": metadata, "spec": spec}
    project, project_title, license_id, package_name = PEER_PROJECTS[key]
    spec = {
        "project": project_for_peer or project,
        "operation": kernel,
        "projectRevision": {"version": version} if version else {},
        "callable": {"language": "python", "path": f"kernels/{package}/peers.py", "symbol": "forward_peers",
                     "interface": "kernelindex_family"},
    }
    if version:
        spec["buildVariants"] = [{"name": "pip", "install": {"kind": "pip", "package": package_name, "version": version}}]
    spec["licensing"] = {"declared": license_id}
    return {
        "apiVersion": API_VERSION, "kind": "ImplementationRevision",
        "metadata": {"name": name, "title": f"{project_title} (KernelIndex adapter)",
                     "description": f"The KernelIndex harness's adapter built from {project_title}'s public pieces "
                                    f"for this operation (see `kernels/{package}/peers.py`)."},
        "spec": spec,
    }


_DTYPE_TOKENS = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float64": "fp64"}
