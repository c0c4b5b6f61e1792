"""The parts of ``data/`` the harness needs, read as plain dicts (no pydantic on GPU machines).

The site builder validates and links the data; the harness only needs names: which workloads a
kernel has (their axes and dtype), which implementations and environments already exist, and
whether its protocols and source are present. Validation of what the harness writes is done by
the site builder where it is installed (``harness.validation``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .run_yaml import load_file

FOLDERS = {
    "OperationSpec": "kernels", "WorkloadCase": "workloads", "WorkloadSuite": "workloads",
    "SoftwareProject": "projects", "ImplementationRevision": "implementations",
    "BenchmarkProtocol": "protocols", "ExecutionEnvironment": "environments", "Source": "sources",
    "Hardware": "hardware",
}


@dataclass
class Doc:
    path: Path
    kind: str
    name: str
    raw: dict

    @property
    def spec(self) -> dict:
        return self.raw.get("spec") or {}

    @property
    def metadata(self) -> dict:
        return self.raw.get("metadata") or {}


@dataclass
class DataIndex:
    root: Path
    docs: dict[str, dict[str, Doc]] = field(default_factory=dict)

    def of(self, kind: str) -> dict[str, Doc]:
        return self.docs.get(kind, {})

    def get(self, kind: str, name: str) -> Doc | None:
        return self.of(kind).get(name)

    def has(self, kind: str, name: str) -> bool:
        return name in self.of(kind)

    def workload(self, name: str) -> Doc | None:
        return self.get("WorkloadCase", name) or self.get("WorkloadSuite", name)

    def workloads_of(self, operation: str) -> list[Doc]:
        """Cases and suites of one operation, in name order (a stable plan)."""
        docs = [d for kind in ("WorkloadCase", "WorkloadSuite") for d in self.of(kind).values()
                if d.spec.get("operation") == operation]
        return sorted(docs, key=lambda d: (d.kind != "WorkloadCase", d.name))

    def implementations_of(self, operation: str) -> dict[str, Doc]:
        return {n: d for n, d in self.of("ImplementationRevision").items() if d.spec.get("operation") == operation}

    def add(self, doc: Doc) -> None:
        self.docs.setdefault(doc.kind, {})[doc.name] = doc


def read_data(root: Path) -> DataIndex:
    """Every kind the harness uses; run files are not read (there may be 100,000 of them)."""
    index = DataIndex(root=Path(root))
    for kind, folder in FOLDERS.items():
        base = index.root / folder
        if not base.is_dir():
            continue
        for path in sorted(list(base.rglob("*.yaml")) + list(base.rglob("*.yml"))):
            raw = _safe_load(path)
            if not isinstance(raw, dict) or raw.get("kind") != kind:
                continue
            name = (raw.get("metadata") or {}).get("name")
            if isinstance(name, str):
                index.add(Doc(path=path, kind=kind, name=name, raw=raw))
    return index


def _safe_load(path: Path) -> Any:
    try:
        return load_file(path)
    except Exception:  # a broken file is the validator's to report, not the harness's
        return None
