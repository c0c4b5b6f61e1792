"""JSON Schemas of the documents that are not page mirrors: the search index, the run directory and
the result of a comparison. Written by hand, because their compact positional layout is the point
and deserves a description per position."""

from __future__ import annotations

from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def _strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


def _tuple(description: str, *items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "description": description, "prefixItems": list(items), "items": False,
            "minItems": len(items)}


_INT = {"type": "integer"}
_INDEX = {"type": "integer", "minimum": -1}

SEARCH_INDEX_SCHEMA: dict[str, Any] = {
    "$schema": DIALECT,
    "title": "KernelIndex search index (head)",
    "description": (
        "What a query can ask about, as tables that refer to each other by position (0-based; -1 means none); "
        "the comparison groups are in one shard per operation (search-shard). A query is parsed on the head; "
        "merging the shards of the operations in scope, in op order (positions in a shard's wl and ln offset by "
        "the lengths of the shards before it) gives the tables the matcher reads. Read by the search page "
        "(templates/static/search.js) and by site_builder/search (Python), which implement one documented "
        "algorithm."),
    "type": "object",
    "additionalProperties": False,
    "required": ["v", "asOf", "fam", "mdl", "dt", "lang", "lic", "ev", "met", "pas", "gpu", "op", "im", "lb", "sh"],
    "properties": {
        "v": {"const": 2, "description": "layout version"},
        "asOf": {"type": "string", "format": "date"},
        "fam": _strings("operation families"),
        "mdl": _strings("model slugs operations are tagged with (OperationSpec metadata.models)"),
        "dt": _strings("workload dtypes"),
        "lang": _strings("implementation languages"),
        "lic": _strings("known SPDX licence expressions"),
        "ev": _strings("evidence levels, weakest first"),
        "met": _strings("primary metrics, '<metric>:<statistic>:<unit>'"),
        "pas": _strings("timed passes of the protocols (forward, backward, full)"),
        "gpu": {"type": "array", "items": _tuple(
            "[slug, label, aliases]: gpus/<slug>/ is its page; a query word equal to an alias names it",
            {"type": "string"}, {"type": "string"}, {"type": "array", "items": {"type": "string"}})},
        "op": {"type": "array", "description": "operations, most ranked rows first", "items": _tuple(
            "[name, title, family, models, aliases, axes, axis aliases, ranked rows]",
            {"type": "string", "description": "kernels/<name>/ is its page"}, {"type": "string"},
            {**_INT, "description": "position in fam"},
            {"type": "array", "items": _INT, "description": "positions in mdl"},
            {"type": "array", "items": {"type": "string"}, "description": "lower-case aliases"},
            {"type": "array", "items": {"type": "string"}, "description": "variable axes, in declared order"},
            {"type": "object", "additionalProperties": _INT,
             "description": "query key -> position in axes (name, snake_case parts, suite conventions)"},
            _INT)},
        "im": {"type": "array", "description": "implementations", "items": _tuple(
            "[title, language, licence, flags]; flags: 1 public source, 2 install recipe, 4 baseline role",
            {"type": "string"}, {**_INT, "description": "position in lang"},
            {**_INDEX, "description": "position in lic; -1: unknown"}, _INT)},
        "lb": _strings("what group labels add to their GPU's label ('' for none; the full label after '!' when it "
                       "does not start with the GPU's)"),
        "sh": {"type": "array", "items": {"type": "integer", "minimum": 0}, "description": (
            "per operation (aligned with op), how many groups its shard holds; 0: no shard. The shard of operation "
            "<name> is api/v1/search/<name>.json (and static/search/<name>.js, a script that stores it in "
            "window.KERNELINDEX_SEARCH_SHARDS[<name>], for pages read from file://)")},
    },
}

SEARCH_SHARD_SCHEMA: dict[str, Any] = {
    "$schema": DIALECT,
    "title": "KernelIndex search index shard",
    "description": ("One operation's workloads, lanes and ranked comparison groups; positions in wl and ln are "
                    "local to the shard, positions in op, gpu, dt, pas, met, lb and im are the head's "
                    "(api/v1/search-index.json)."),
    "type": "object",
    "additionalProperties": False,
    "required": ["v", "asOf", "op", "wl", "ln", "co"],
    "properties": {
        "v": {"const": 1, "description": "layout version"},
        "asOf": {"type": "string", "format": "date"},
        "op": {"type": "string", "description": "the operation's name; kernels/<name>/ is its page"},
        "wl": {"type": "array", "description": "workloads", "items": _tuple(
            "[operation, dtype, shape]: shape holds the values of the operation's axes, or a suite's label",
            {**_INT, "description": "position in op"}, {**_INDEX, "description": "position in dt"},
            {"oneOf": [{"type": "array", "items": {"type": ["integer", "null"]}}, {"type": "string"}]})},
        "ln": {"type": "array", "description": "lanes: (operation, protocol, environment, metric)", "items": _tuple(
            "[operation, gpu, pass, metric]",
            {**_INT, "description": "position in op"}, {**_INT, "description": "position in gpu"},
            {**_INDEX, "description": "position in pas"}, {**_INT, "description": "position in met"})},
        "co": {"type": "array", "description": "ranked comparison groups, in answer order", "items": _tuple(
            "[workload, lane, label, group id, rows]",
            {**_INT, "description": "position in the shard's wl"}, {**_INT, "description": "position in the shard's ln"},
            {**_INT, "description": "position in lb"},
            {"type": "string", "pattern": "^[0-9a-f]{16}$", "description": "groups/<id>/ is its page"},
            {"type": "array", "items": {"type": "number"}, "description": (
                "ranked rows in display order, flattened as implementation, value, flags; ranks are dense over "
                "the values; flags: evidence position (0-3) + 4 when usable today")})},
    },
}

RUN_DIRECTORY_SCHEMA: dict[str, Any] = {
    "$schema": DIALECT,
    "title": "KernelIndex run directory shard",
    "description": ("Run digests to where each run's JSON is, for runs whose digest starts with this shard's two "
                    "hex digits: its workload's mirror and a JSON Pointer to the run in it "
                    "(<workload mirror>#/groups/<id>/runs/<name>)."),
    "type": "object",
    "additionalProperties": False,
    "required": ["v", "shard", "runs"],
    "properties": {
        "v": {"const": 2},
        "shard": {"type": "string", "pattern": "^[0-9a-f]{2}$"},
        "runs": {"type": "object", "description": "first 12 hex digits of the digest -> the run's mirror",
                 "propertyNames": {"pattern": "^[0-9a-f]{12}$"}, "additionalProperties": {"type": "string"}},
    },
}

_NULLABLE_STRING = {"type": ["string", "null"]}
COMPARE_RESULT_SCHEMA: dict[str, Any] = {
    "$schema": DIALECT,
    "title": "KernelIndex comparison of runs",
    "description": ("What the compare page computes from 2 to 8 run mirrors (site_builder/search/compare.py and "
                    "templates/static/compare.js implement the same algorithm)."),
    "type": "object",
    "additionalProperties": False,
    "required": ["v", "runs", "fields", "firstDifference", "comparable", "comparisonKey", "ranking", "notRanked"],
    "properties": {
        "v": {"const": 1},
        "runs": {"type": "array", "minItems": 2, "maxItems": 8, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["name", "digest", "url", "implementation", "value", "unit", "statistic", "groupRank", "reasons",
                         "comparisonKey", "groupUrl"],
            "properties": {
                "name": {"type": "string"}, "digest": {"type": "string"}, "url": {"type": "string"},
                "implementation": {"type": "string"}, "value": {"type": ["number", "null"]}, "unit": _NULLABLE_STRING,
                "statistic": _NULLABLE_STRING, "groupRank": {"type": ["integer", "null"]},
                "reasons": {"type": "array", "items": {"type": "string"}}, "comparisonKey": {"type": "string"},
                "groupUrl": {"type": "string"}}}},
        "fields": {"type": "array", "items": {
            "type": "object", "additionalProperties": False,
            "required": ["name", "title", "material", "same", "values"],
            "properties": {"name": {"type": "string"}, "title": {"type": "string"}, "material": {"type": "boolean"},
                           "same": {"type": "boolean"}, "values": {"type": "array", "items": {"type": "string"}}}}},
        "firstDifference": {"oneOf": [{"type": "null"}, {
            "type": "object", "additionalProperties": False, "required": ["field", "title", "values"],
            "properties": {"field": {"type": "string"}, "title": {"type": "string"},
                           "values": {"type": "array", "items": {"type": "string"}}}}]},
        "comparable": {"type": "boolean"},
        "comparisonKey": _NULLABLE_STRING,
        "ranking": {"oneOf": [{"type": "null"}, {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["run", "rank", "value", "vsBest"],
            "properties": {"run": {"type": "string"}, "rank": {"type": "integer", "minimum": 1},
                           "value": {"type": "number"}, "vsBest": {"type": ["number", "null"]}}}}]},
        "notRanked": _NULLABLE_STRING,
    },
}

DATA_SCHEMAS: dict[str, dict[str, Any]] = {
    "search-index": SEARCH_INDEX_SCHEMA,
    "search-shard": SEARCH_SHARD_SCHEMA,
    "run-directory": RUN_DIRECTORY_SCHEMA,
    "compare-result": COMPARE_RESULT_SCHEMA,
}
