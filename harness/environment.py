"""Environment capture: what the GPU and its software are, as an ExecutionEnvironment.

``gather_facts`` asks torch, NVML / nvidia-smi and the OS (the only part that needs a GPU);
``environment_from_facts`` is pure and decides what is identity (the spec: hardware, driver,
CUDA, torch, triton, Python, OS) and what is only informative (labels: kernel release, SM count,
L2, maximum clocks, power limit). Two GPUs of one host share an environment exactly when their
specs are equal, and so their runs share a comparison group only then. Clocks vary from moment
to moment: they are read before and after each measurement and recorded on the run.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
from typing import Any, Callable

from .datarepo import DataIndex

API_VERSION = "kernelindex.dev/v1alpha1"


# ------------------------------------------------------------------------------------------------
# Facts (needs torch and a GPU)


def gather_facts(device_index: int = 0) -> dict[str, Any]:
    """Every fact that can be read; a missing one is left out rather than stopping the sweep."""
    import torch

    props = torch.cuda.get_device_properties(device_index)
    try:
        uuid = _uuid_text(getattr(props, "uuid", None))
    except Exception:  # noqa: BLE001
        uuid = None
    facts: dict[str, Any] = {
        "name": props.name,
        "major": props.major, "minor": props.minor,
        "memory_bytes": int(props.total_memory),
        "sm_count": int(props.multi_processor_count),
        "l2_bytes": int(getattr(props, "L2_cache_size", 0) or 0),
        "uuid": uuid,
        "cuda": torch.version.cuda,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "os": _os_name(),
        "kernel_release": platform.release(),
        "visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    try:
        import triton

        facts["triton"] = triton.__version__
    except ImportError:
        pass
    try:
        facts.update(_nvml_facts(facts["uuid"]) or _smi_facts(facts["uuid"]))
    except Exception:  # noqa: BLE001
        pass
    return facts


def _uuid_text(value) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text if text.startswith("GPU-") else f"GPU-{text}"


def _os_name() -> str | None:
    try:
        with open("/etc/os-release", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.platform()


def _nvml_handle(uuid: str | None):
    import pynvml  # nvidia-ml-py

    pynvml.nvmlInit()
    if uuid:
        return pynvml, pynvml.nvmlDeviceGetHandleByUUID(uuid)
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)


def _nvml_facts(uuid: str | None) -> dict[str, Any]:
    try:
        pynvml, handle = _nvml_handle(uuid)
        driver = pynvml.nvmlSystemGetDriverVersion()
        facts = {
            "driver": driver.decode() if isinstance(driver, bytes) else driver,
            "physical_index": int(pynvml.nvmlDeviceGetIndex(handle)),
            "max_sm_clock_mhz": int(pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_SM)),
            "max_memory_clock_mhz": int(pynvml.nvmlDeviceGetMaxClockInfo(handle, pynvml.NVML_CLOCK_MEM)),
        }
        try:
            facts["power_limit_w"] = round(pynvml.nvmlDeviceGetEnforcedPowerLimit(handle) / 1000)
        except Exception:  # noqa: BLE001 - optional
            pass
        return facts
    except Exception:  # noqa: BLE001 - NVML missing or refused: fall back to nvidia-smi
        return {}


_SMI_FIELDS = ("uuid", "index", "driver_version", "clocks.max.sm", "clocks.max.mem", "power.limit")


def _smi_facts(uuid: str | None, run: Callable = subprocess.run) -> dict[str, Any]:
    try:
        output = run(["nvidia-smi", f"--query-gpu={','.join(_SMI_FIELDS)}", "--format=csv,noheader,nounits"],
                     capture_output=True, text=True, timeout=20, check=True).stdout
    except Exception:  # noqa: BLE001
        return {}
    rows = [[cell.strip() for cell in line.split(",")] for line in output.strip().splitlines()]
    rows = [row for row in rows if len(row) == len(_SMI_FIELDS)]
    row = next((r for r in rows if uuid and r[0] == uuid), rows[0] if len(rows) == 1 else None)
    if row is None:
        return {}
    facts: dict[str, Any] = {"driver": row[2], "physical_index": _int(row[1])}
    for key, cell in (("max_sm_clock_mhz", row[3]), ("max_memory_clock_mhz", row[4]), ("power_limit_w", row[5])):
        value = _int(cell)
        if value is not None:
            facts[key] = value
    return facts


def _int(text: str):
    try:
        return int(round(float(text)))
    except (TypeError, ValueError):
        return None


def clock_reader(uuid: str | None) -> Callable[[], dict[str, int]]:
    """A cheap reader of the current SM and memory clocks (NVML: microseconds; no nvidia-smi per call)."""
    try:
        pynvml, handle = _nvml_handle(uuid)
    except Exception:  # noqa: BLE001
        return lambda: {}

    def read() -> dict[str, int]:
        try:
            return {"sm_mhz": int(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)),
                    "memory_mhz": int(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM)),
                    "temperature_c": int(pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU))}
        except Exception:  # noqa: BLE001
            return {}

    return read


# ------------------------------------------------------------------------------------------------
# Facts -> ExecutionEnvironment (pure)

_PRODUCT = re.compile(r"^(NVIDIA (?:GeForce |Tesla |Quadro )?(?:RTX |GTX )?[A-Z]*\d+[A-Za-z]?)(?:[\s-]+(.+))?$")


def split_product(name: str) -> tuple[str, str | None]:
    """'NVIDIA H100 80GB HBM3' -> ('NVIDIA H100', '80GB HBM3'); 'NVIDIA H200' -> ('NVIDIA H200', None)."""
    match = _PRODUCT.match(name.strip())
    if not match:
        return name.strip(), None
    return match.group(1), match.group(2)


def environment_spec(facts: dict[str, Any]) -> dict[str, Any]:
    product, form_factor = split_product(facts["name"])
    hardware: dict[str, Any] = {"vendor": "nvidia", "product": product,
                                "architecture": f"sm_{facts['major']}{facts['minor']}"}
    if form_factor:
        hardware["formFactor"] = form_factor
    hardware["memoryBytes"] = int(facts["memory_bytes"])
    hardware["count"] = 1
    software: dict[str, Any] = {}
    if facts.get("os"):
        software["operatingSystem"] = facts["os"]
    if facts.get("driver"):
        software["driver"] = facts["driver"]
    if facts.get("cuda"):
        software["cudaToolkit"] = facts["cuda"]
    software["framework"] = {"name": "pytorch", "version": facts["torch"]}
    libraries = {key: facts[key] for key in ("python", "triton") if facts.get(key)}
    if libraries:
        software["libraries"] = libraries
    return {"hardware": hardware, "software": software}


def environment_labels(facts: dict[str, Any]) -> dict[str, str]:
    keys = ("kernel_release", "sm_count", "l2_bytes", "max_sm_clock_mhz", "max_memory_clock_mhz", "power_limit_w")
    return {key: str(facts[key]) for key in keys if facts.get(key) is not None}


def spec_key(spec: dict) -> str:
    return json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def environment_name(spec: dict, index: DataIndex | None = None) -> str:
    """An existing environment with exactly this spec keeps its name (so its runs stay in one
    comparison group); otherwise ``kernelindex-<product>-<8 hex of the spec>``."""
    if index is not None:
        wanted = spec_key(spec)
        for name, doc in sorted(index.of("ExecutionEnvironment").items()):
            if spec_key(_drop_none(doc.spec)) == wanted:
                return name
    digest = hashlib.sha256(spec_key(spec).encode()).hexdigest()[:8]
    return f"kernelindex-{_slug(spec['hardware']['product'])}-{digest}"


def _drop_none(value):
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def environment_file(name: str, spec: dict, labels: dict) -> dict[str, Any]:
    software = spec.get("software", {})
    parts = [spec["hardware"]["product"]]
    if software.get("driver"):
        parts.append(f"driver {software['driver']}")
    if software.get("cudaToolkit"):
        parts.append(f"CUDA {software['cudaToolkit']}")
    parts.append(f"torch {software['framework']['version']}")
    metadata: dict[str, Any] = {"name": name, "title": " · ".join(parts),
                                "description": "Captured by `kernelindex bench` on the machine that measured the runs naming it."}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": API_VERSION, "kind": "ExecutionEnvironment", "metadata": metadata, "spec": spec}
