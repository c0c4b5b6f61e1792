"""JSON Schema files generated from the models, for editors (yaml-language-server) and readers."""

from __future__ import annotations

import json
from pathlib import Path

from .canonical import CANONICAL_MODELS
from .kinds import KIND_MODELS

SCHEMA_DIR = Path(__file__).parent / "json"
SCHEMA_BASE_URI = "https://kernelindex.dev/schemas/v1alpha1/"


def _schema_file_name(kind: str, form: str) -> str:
    return f"{kind}.{form}.schema.json"


def generate_schemas() -> dict[str, str]:
    """File name -> JSON text, for the authoring and canonical form of every kind."""
    files: dict[str, str] = {}
    for form, models in (("authoring", KIND_MODELS), ("canonical", CANONICAL_MODELS)):
        for kind, model in sorted(models.items()):
            name = _schema_file_name(kind, form)
            schema = model.model_json_schema(mode="validation")
            schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
            schema["$id"] = SCHEMA_BASE_URI + name
            schema["title"] = f"{kind} ({form} form)"
            files[name] = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    return files


def write_schemas(directory: Path = SCHEMA_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    expected = generate_schemas()
    for stale in directory.glob("*.schema.json"):
        if stale.name not in expected:
            stale.unlink()
    for name, text in expected.items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written
