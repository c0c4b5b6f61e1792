"""The query parser: text such as ``rope h100 bf16 seq=4096`` to facets, over one search index.

The algorithm (templates/static/search.js implements the same, step by step):

1. Lower-case the text, close up spaces around ``=`` and ``:`` ("seq = 4096" is "seq=4096"), and
   split it on spaces and commas into tokens.
2. ``name=value`` binds an axis; the value is an integer, optionally with ``k`` (×1024): ``seq=4k``.
3. ``facet:value`` names a facet outright: op, family, model, gpu, dtype, lang, pass, metric,
   evidence, license, or ``is:`` installable/usable/source. An unknown facet with an integer value
   binds an axis (``seq:4096``).
4. A bare word is looked up in the vocabulary, kinds in this order, the first kind that knows it
   wins: family, op (name or alias, with - or _), model, gpu (aliases such as h100, pcie, rtx3090),
   dtype (bf16, fp32; bfloat16, float16, half, float32), lang, pass (forward, backward, full),
   metric (latency, memory), evidence (reported … replicated; "at least"), flag (installable,
   usable, source), license (SPDX id).
5. Any other word is free text: it keeps the operations whose name, title, aliases or models
   contain it. A word that matches nothing, and a bare number, is reported as not understood and
   otherwise ignored.
6. The operations in scope are the intersection of the op, family and model facets (each a union
   of its words) and of every free-text word; no such facet means every operation.

The vocabulary comes from the index alone, so the browser and Python parse alike.
"""

from __future__ import annotations

import re
from typing import Any

KINDS = ("family", "op", "model", "gpu", "dtype", "lang", "pass", "metric", "evidence", "flag", "license")
FACET_PREFIXES = {
    "op": "op", "operation": "op", "kernel": "op", "family": "family", "model": "model", "gpu": "gpu",
    "hw": "gpu", "dtype": "dtype", "lang": "lang", "language": "lang", "pass": "pass", "metric": "metric",
    "evidence": "evidence", "trust": "evidence", "license": "license", "is": "flag",
}
DTYPE_SYNONYMS = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32", "float64": "fp64",
                  "double": "fp64", "float8": "fp8"}
FLAGS = ("installable", "source", "usable")
MAX_DIGITS = 15  # integers beyond 2**53 would not survive a round trip through JavaScript

# ASCII classes only, so Python and JavaScript split and read numbers alike.
_VALUE = re.compile(r"([0-9]{1,%d})(k?)" % MAX_DIGITS)
_SPACED = re.compile(r"[ \t\n\r\f\v]*([=:])[ \t\n\r\f\v]*")
_SPLIT = re.compile(r"[ \t\n\r\f\v,]+")


def _variants(word: str) -> list[str]:
    return [word, word.replace("-", "_"), word.replace("_", "-")]


def vocabulary(index: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """Kind -> word -> the values it names (op names, GPU slugs, dtypes …), from the index's tables."""
    vocab: dict[str, dict[str, list[str]]] = {kind: {} for kind in KINDS}

    def add(kind: str, word: str, value: str) -> None:
        values = vocab[kind].setdefault(word.lower(), [])
        if value not in values:
            values.append(value)

    for family in index["fam"]:
        add("family", family, family)
    for op in index["op"]:
        for word in [op[0], *op[4]]:
            for variant in _variants(word.lower()):
                add("op", variant, op[0])
    for model in index["mdl"]:
        add("model", model, model)
    for slug, _label, aliases in index["gpu"]:
        for alias in aliases:
            add("gpu", alias, slug)
    for dtype in index["dt"]:
        add("dtype", dtype, dtype)
    for synonym, dtype in DTYPE_SYNONYMS.items():
        if dtype in index["dt"]:
            add("dtype", synonym, dtype)
    for language in index["lang"]:
        if language != "unknown":
            add("lang", language, language)
    for name in index["pas"]:
        add("pass", name, name)
    for metric in index["met"]:
        add("metric", metric.split(":")[0], metric)
    for level in index["ev"]:
        add("evidence", level, level)
    for flag in FLAGS:
        add("flag", flag, flag)
    for license in index["lic"]:
        add("license", license, license)
    for words in vocab.values():
        for values in words.values():
            values.sort()
    return vocab


def parse_value(text: str) -> int | None:
    found = _VALUE.fullmatch(text)
    if not found:
        return None
    return int(found.group(1)) * (1024 if found.group(2) else 1)


def parse_query(index: dict[str, Any], text: str, vocab: dict[str, dict[str, list[str]]] | None = None) -> dict[str, Any]:
    vocab = vocab if vocab is not None else vocabulary(index)
    tokens = [t for t in _SPLIT.split(_SPACED.sub(r"\1", text.lower())) if t]
    facets: dict[str, set[str]] = {kind: set() for kind in KINDS if kind != "evidence"}
    evidence = -1
    free: list[set[str]] = []
    axes: list[list[Any]] = []
    terms: list[list[str]] = []
    unknown: list[str] = []

    def bind(key: str, value: int) -> None:
        key = key.replace("-", "_")
        for pair in axes:
            if pair[0] == key:
                axes.remove(pair)
                break
        axes.append([key, value])
        terms.append([token, "axis"])

    def take(kind: str, values: list[str]) -> None:
        nonlocal evidence
        if kind == "evidence":
            evidence = max(evidence, max(index["ev"].index(v) for v in values))
        else:
            facets[kind].update(values)
        terms.append([token, kind])

    for token in tokens:
        if "=" in token:
            key, _, raw = token.partition("=")
            value = parse_value(raw)
            if key and value is not None:
                bind(key, value)
            else:
                unknown.append(token)
            continue
        if ":" in token:
            prefix, _, raw = token.partition(":")
            kind = FACET_PREFIXES.get(prefix)
            if kind is not None and raw in vocab[kind]:
                take(kind, vocab[kind][raw])
            elif kind is None and prefix and parse_value(raw) is not None:
                bind(prefix, parse_value(raw))  # type: ignore[arg-type]
            else:
                unknown.append(token)
            continue
        if parse_value(token) is not None:
            unknown.append(token)  # a bare number: which axis?
            continue
        for kind in KINDS:
            if token in vocab[kind]:
                take(kind, vocab[kind][token])
                break
        else:
            matched = {op[0] for op in index["op"] if _contains(index, op, token)}
            if matched:
                free.append(matched)
                terms.append([token, "text"])
            else:
                unknown.append(token)

    constraints: list[set[str]] = []
    if facets["op"]:
        constraints.append(facets["op"])
    if facets["family"]:
        constraints.append({op[0] for op in index["op"] if index["fam"][op[2]] in facets["family"]})
    if facets["model"]:
        constraints.append({op[0] for op in index["op"] if any(index["mdl"][m] in facets["model"] for m in op[3])})
    constraints.extend(free)
    scope = None
    if constraints:
        common = set.intersection(*constraints)
        scope = [op[0] for op in index["op"] if op[0] in common]  # in the index's order
    return {
        "ops": scope,
        "gpu": sorted(facets["gpu"]),
        "dtype": sorted(facets["dtype"]),
        "lang": sorted(facets["lang"]),
        "pass": sorted(facets["pass"]),
        "metric": sorted(facets["metric"]),
        "license": sorted(facets["license"]),
        "evidence": index["ev"][evidence] if evidence >= 0 else None,
        "flags": sorted(facets["flag"]),
        "axes": axes,
        "terms": terms,
        "unknown": unknown,
    }


def _contains(index: dict[str, Any], op: list, word: str) -> bool:
    haystack = [op[0], op[1].lower(), *op[4], *(index["mdl"][m] for m in op[3])]
    return any(word in text for text in haystack)
