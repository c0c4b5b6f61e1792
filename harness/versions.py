"""Versions of the packages behind each implementation key (labels on runs, pins in files)."""

from __future__ import annotations

from importlib import metadata

# version key -> distribution name
PACKAGES = {"liger": "liger-kernel", "transformers": "transformers", "torch": "torch", "kernelindex": "kernelindex"}
# implementation key -> the version key it is pinned to / labelled with
IMPLEMENTATION_PACKAGE = {"liger": "liger", "transformers": "transformers", "torch-compile": "torch"}


def package_version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def peer_versions() -> dict[str, str]:
    found = {key: package_version(package) for key, package in PACKAGES.items()}
    return {key: version for key, version in found.items() if version}
