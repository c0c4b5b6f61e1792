"""Pydantic models for every KernelIndex kind: the single source of truth for the data format."""

from .common import API_VERSION, DTYPE_BYTES, DType, check_slug
from .digest import canonical_json, spec_digest
from .kinds import KIND_FOLDERS, KIND_MODELS, model_for

__all__ = [
    "API_VERSION", "DTYPE_BYTES", "DType", "KIND_FOLDERS", "KIND_MODELS",
    "canonical_json", "check_slug", "model_for", "spec_digest",
]
