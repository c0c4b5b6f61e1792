"""GPUs for the synthetic repository: the checkout's own datasheets when there are any, else ours.

Runs must sit above the physical floor the builder derives from a datasheet, so the generator
needs the same bandwidth and peak figures the builder will read. When ``data/hardware`` holds
valid datasheets (and the sources they cite), they are copied into the synthetic repository and
used; otherwise equivalent datasheets are generated from the public figures below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

RETRIEVED = "2026-01-15"


@dataclass(frozen=True)
class Gpu:
    slug: str  # the Hardware file's metadata.name
    vendor: str
    product: str  # what an environment's hardware.product says (the datasheet's first match)
    form_factor: str | None
    architecture: str
    memory_bytes: int
    bandwidth_gbps: float
    peaks: dict[str, float]  # TFLOP/s per operand class
    released: date
    weight: float  # share of runs, relative
    short: str  # used in run names
    datasheet: dict | None = field(default=None, compare=False)  # generated datasheet document, if ours

    def peak(self, *classes: str) -> float:
        """The first of ``classes`` the datasheet lists (e.g. fp8, falling back to bf16)."""
        for name in classes:
            if name in self.peaks:
                return self.peaks[name]
        return min(self.peaks.values())


# slug, vendor, datasheet product, env product, form factor, arch, memory, GiB, GB/s, peaks, released, weight, short, source
_BUILTIN = (
    ("nvidia-h100-sxm", "nvidia", "NVIDIA H100 SXM5", "NVIDIA H100", "80GB HBM3", "sm_90", "80 GB HBM3", 80, 3350,
     {"fp64": 67, "fp32": 67, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4, "fp8": 1978.9}, "2023-03-21", 30, "h100",
     ("nvidia-h100-datasheet", "NVIDIA H100 Tensor Core GPU datasheet", "https://www.nvidia.com/en-us/data-center/h100/")),
    ("nvidia-h100-pcie", "nvidia", "NVIDIA H100 PCIe", "NVIDIA H100 PCIe", "80GB HBM2e", "sm_90", "80 GB HBM2e", 80, 2000,
     {"fp64": 51, "fp32": 51, "tf32": 378, "bf16": 756, "fp16": 756, "fp8": 1513}, "2023-03-21", 7, "h100-pcie",
     ("nvidia-h100-datasheet", "NVIDIA H100 Tensor Core GPU datasheet", "https://www.nvidia.com/en-us/data-center/h100/")),
    ("nvidia-h200-sxm", "nvidia", "NVIDIA H200 SXM", "NVIDIA H200", "141GB HBM3e", "sm_90", "141 GB HBM3e", 141, 4800,
     {"fp64": 67, "fp32": 67, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4, "fp8": 1978.9}, "2024-06-01", 12, "h200",
     ("nvidia-h200-datasheet", "NVIDIA H200 Tensor Core GPU datasheet", "https://www.nvidia.com/en-us/data-center/h200/")),
    ("nvidia-b200", "nvidia", "NVIDIA B200", "NVIDIA B200", "180GB HBM3e", "sm_100", "180 GB HBM3e", 180, 7700,
     {"fp64": 37, "fp32": 75, "tf32": 1100, "bf16": 2250, "fp16": 2250, "fp8": 4500, "fp4": 9000}, "2025-01-15", 10, "b200",
     ("nvidia-hgx-b200-specs", "NVIDIA HGX B200 specifications", "https://www.nvidia.com/en-us/data-center/hgx/")),
    ("nvidia-a100-sxm-80gb", "nvidia", "NVIDIA A100 SXM 80 GB", "NVIDIA A100-SXM4-80GB", None, "sm_80", "80 GB HBM2e", 80, 2039,
     {"fp64": 19.5, "fp32": 19.5, "tf32": 156, "bf16": 312, "fp16": 312}, "2021-01-01", 20, "a100",
     ("nvidia-a100-datasheet", "NVIDIA A100 Tensor Core GPU datasheet", "https://www.nvidia.com/en-us/data-center/a100/")),
    ("nvidia-rtx-4090", "nvidia", "NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090", None, "sm_89", "24 GB GDDR6X", 24, 1008,
     {"fp32": 82.6, "tf32": 82.6, "bf16": 165.2, "fp16": 165.2, "fp8": 330.3}, "2022-10-12", 8, "rtx4090",
     ("nvidia-ada-whitepaper", "NVIDIA Ada GPU architecture whitepaper", "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf")),
    ("nvidia-rtx-3090", "nvidia", "NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090", None, "sm_86", "24 GB GDDR6X", 24, 936,
     {"fp32": 35.6, "tf32": 35.6, "bf16": 71, "fp16": 71}, "2020-09-24", 5, "rtx3090",
     ("nvidia-ampere-ga102-whitepaper", "NVIDIA Ampere GA102 GPU architecture whitepaper", "https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf")),
    ("nvidia-l40s", "nvidia", "NVIDIA L40S", "NVIDIA L40S", None, "sm_89", "48 GB GDDR6", 48, 864,
     {"fp32": 91.6, "tf32": 183, "bf16": 362.05, "fp16": 362.05, "fp8": 733}, "2023-08-08", 5, "l40s",
     ("nvidia-l40s-datasheet", "NVIDIA L40S datasheet", "https://www.nvidia.com/en-us/data-center/l40s/")),
    ("amd-mi300x", "amd", "AMD Instinct MI300X", "AMD Instinct MI300X", None, "gfx942", "192 GB HBM3", 192, 5300,
     {"fp64": 81.7, "fp32": 163.4, "tf32": 653.7, "bf16": 1307.4, "fp16": 1307.4, "fp8": 2614.9}, "2023-12-06", 5, "mi300x",
     ("amd-mi300x-datasheet", "AMD Instinct MI300X accelerator data sheet", "https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html")),
)

_PRIORITY = {"nvidia-h100-sxm", "nvidia-b200", "nvidia-a100-sxm-80gb"}


def _source_document(slug: str, title: str, url: str) -> dict:
    return {
        "apiVersion": "kernelindex.dev/v1alpha1",
        "kind": "Source",
        "metadata": {"name": slug, "title": title},
        "spec": {"title": title, "url": url, "retrieved": RETRIEVED, "publisher": title.split()[0]},
    }


def builtin_gpus() -> tuple[list[Gpu], dict[str, dict]]:
    """Generated datasheets and the sources they cite."""
    gpus: list[Gpu] = []
    sources: dict[str, dict] = {}
    for (slug, vendor, sheet_product, product, form, arch, memory, gib, bw, peaks, released, weight, short,
         (source, source_title, url)) in _BUILTIN:
        sources[source] = _source_document(source, source_title, url)
        cite = {"source": source}
        match = {"product": product, **({"formFactor": form} if form else {})}
        datasheet = {
            "apiVersion": "kernelindex.dev/v1alpha1",
            "kind": "Hardware",
            "metadata": {"name": slug, "title": sheet_product},
            "spec": {
                "vendor": vendor, "product": sheet_product, "architecture": arch, "memory": memory,
                "matches": [match],
                "bandwidthGBps": {"value": bw, "cite": cite},
                "peakTflops": {name: {"value": value, "cite": cite} for name, value in peaks.items()},
                "priority": slug in _PRIORITY,
            },
        }
        gpus.append(Gpu(slug, vendor, product, form, arch, gib << 30, float(bw), dict(peaks),
                        date.fromisoformat(released), weight, short, datasheet))
    return gpus, sources


def checkout_gpus(data_dir: Path) -> tuple[list[Gpu], list[Path]]:
    """Datasheets from a real data folder, with the files to copy; empty when there are none usable.

    A datasheet is used only if it validates, every source it cites validates too (so a
    half-written file in the checkout cannot make the synthetic repository invalid) and it lists
    at least one peak rate (some, like the A10G's, cite a bandwidth only).
    """
    from ..load import load_file

    sources = {}
    for path in sorted((data_dir / "sources").glob("*.yaml")):
        document, problems = load_file(path, data_dir)
        if document is not None and not problems:
            sources[document.name] = path
    gpus: list[Gpu] = []
    copies: list[Path] = []
    for path in sorted((data_dir / "hardware").glob("*.yaml")):
        document, problems = load_file(path, data_dir)
        if document is None or problems:
            continue
        spec = document.model.spec
        cites = {spec.bandwidthGBps.cite.source} | {rate.cite.source for rate in spec.peakTflops.values()}
        if not cites <= set(sources) or not spec.peakTflops:
            continue  # compute-bound runs are drawn against a peak: a bandwidth-only datasheet cannot serve
        match = spec.matches[0]
        released, weight, short = _lifetime(f"{document.name} {match.product} {match.formFactor or ''}", spec.priority)
        gpus.append(Gpu(document.name, spec.vendor, match.product, match.formFactor, spec.architecture,
                        0, spec.bandwidthGBps.value, {k: v.value for k, v in spec.peakTflops.items()},
                        released, weight, short or document.name))
        copies.append(path)
    copies.extend(sources[name] for name in sorted(sources))
    return gpus, copies


def _lifetime(identity: str, priority: bool) -> tuple[date, float, str | None]:
    """Release date, share of runs and short name of a real datasheet's GPU, recognised by name."""
    text = identity.lower().replace(" ", "-")
    for row in _BUILTIN:
        short = row[12]
        words = short.replace("rtx", "").split("-")
        if all(word in text for word in words) and ("pcie" in words or "pcie" not in text):
            return date.fromisoformat(row[10]), float(row[11]), short
    return date(2022, 1, 1), (10.0 if priority else 4.0), None
