"""Every field that holds a URL accepts https:// only, so no javascript: or data: link reaches a page."""

from __future__ import annotations

import json

import pytest
from pydantic import TypeAdapter, ValidationError

from schemas.jsonschema import SCHEMA_DIR
from schemas.kinds import HTTPS_URL_PATTERN, HttpsUrl

URL_NAMES = ("url", "repository", "homepage", "href", "link", "website")


def _url_properties(node, path=""):
    """(path, schema) of every property whose name says it holds a URL, through $defs and unions."""
    if isinstance(node, dict):
        for name, sub in (node.get("properties") or {}).items():
            if any(word in name.lower() for word in URL_NAMES):
                yield f"{path}.{name}", sub
        for key, value in node.items():
            yield from _url_properties(value, f"{path}.{key}" if key != "properties" else path)
    elif isinstance(node, list):
        for item in node:
            yield from _url_properties(item, path)


def _patterns(schema) -> set[str]:
    found = set()
    if isinstance(schema, dict):
        if "pattern" in schema:
            found.add(schema["pattern"])
        for value in schema.values():
            found |= _patterns(value)
    elif isinstance(schema, list):
        for item in schema:
            found |= _patterns(item)
    return found


@pytest.mark.parametrize("schema_file", sorted(p.name for p in SCHEMA_DIR.glob("*.authoring.schema.json")))
def test_every_url_field_requires_https(schema_file):
    # Walks the published JSON Schemas, so a URL field added later without the pattern fails here.
    schema = json.loads((SCHEMA_DIR / schema_file).read_text(encoding="utf-8"))
    for path, sub in _url_properties(schema):
        assert _patterns(sub) == {HTTPS_URL_PATTERN}, f"{schema_file}{path} is a URL without the https pattern"


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JAVASCRIPT:alert(1)", " https://x.invalid/", "data:text/html,x", "http://x.invalid/",
    "//x.invalid/", "https://x.invalid/<script>", "https://x.invalid/\"onclick=\"x", "https://x.invalid/ a",
    "https:x.invalid", "vbscript:x", "file:///etc/passwd", "https://" + "a" * 600,
])
def test_https_url_refuses(url):
    with pytest.raises(ValidationError):
        TypeAdapter(HttpsUrl).validate_python(url)


def test_https_url_accepts_a_real_one():
    url = "https://github.com/linkedin/Liger-Kernel/blob/ead96b6/benchmark/data/all_benchmark_data.csv?plain=1#L2"
    assert TypeAdapter(HttpsUrl).validate_python(url) == url
