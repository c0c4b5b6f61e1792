"""Compare 2–8 runs: align their identities, name the first difference that makes them
incomparable, and rank them only when they share one comparison group.

The input is the runs' documents: ``run_document`` assembles one from its comparison group's
part of its workload's mirror (``urls.run_mirror``), as compare.js does in the browser, so the two implementations read
the same documents; the output is the ``compare-result`` document (schema published at
``api/v1/schemas/compare-result.schema.json``).

The algorithm (templates/static/compare.js implements the same):

1. Material fields, in the order of the comparison key: operation, workload, protocol (so the
   timed pass), environment (so the GPU and software), correctness policy, metric; then the
   comparison key itself. Each is compared by identity (a digest or a path), shown by its title.
2. Context fields that never block a comparison: implementation, GPU, status, evidence,
   observed, value.
3. ``firstDifference``: the first material field whose identities are not all equal; the runs
   are ``comparable`` when there is none (they share one comparison group).
4. ``ranking``: only when comparable and every run may be ranked (no eligibility reason): dense
   ranks by value, ascending; ``vsBest`` is the value over the smallest. Otherwise ``notRanked``
   says why.
"""

from __future__ import annotations

import json
from typing import Any

from .. import urls

MIN_RUNS, MAX_RUNS = 2, 8
COMPARE_VERSION = 1
# (field, how a reader names it)
MATERIAL_FIELDS = (
    ("operation", "Kernel"), ("workload", "Workload"), ("protocol", "Protocol (timed pass)"),
    ("environment", "Environment"), ("correctness", "Correctness policy"), ("metric", "Metric"),
    ("comparisonKey", "Comparison key"),
)
CONTEXT_FIELDS = (
    ("implementation", "Implementation"), ("gpu", "GPU"), ("status", "Status"), ("evidence", "Evidence"),
    ("observedAt", "Observed"), ("value", "Value"),
)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _fields(mirror: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Field -> (identity, label) for one run mirror."""
    # The protocol and environment by the digests their group gives, which every run of the group
    # names in its manifest: a superseded run's manifest is not in its group's document.
    details = mirror["details"]
    row, cohort = details["row"], details["cohort"]
    protocol, environment = details["protocol"], details["environment"]
    timed = protocol.get("timedPass")
    value = row["value"]
    return {
        "operation": (details["operation"]["url"], details["operation"]["title"]),
        "workload": (details["workload"]["digest"], details["workload"]["label"]),
        "protocol": (protocol["digest"], protocol["title"] + (f" ({timed})" if timed else "")),
        "environment": (environment["digest"], environment["title"]),
        "correctness": (_canonical(details["workload"]["correctness"]),
                        str(details["workload"]["correctness"].get("comparator", "—"))),
        "metric": (cohort["metric"] or "none", cohort["metric"] or "none"),
        "comparisonKey": (cohort["key"], cohort["key"][:23] + "…"),
        "implementation": (details["implementation"]["name"], details["implementation"]["title"]),
        "gpu": (cohort["gpu"], cohort["gpu"]),
        "status": (details["status"], details["status"]),
        "evidence": (row["evidence"], row["evidence"]),
        "observedAt": (row["observedAt"], row["observedAt"][:10]),
        "value": (_canonical(value), "—" if value is None else f"{_number(value)} {row['unit'] or ''}".strip()),
    }


def _number(value: float) -> str:
    """A value as JSON writes it (81280, 199.03173828125): the same text in Python and JavaScript."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def pointed(document: Any, pointer: str) -> Any:
    """The value at a JSON Pointer (RFC 6901) in ``document``."""
    for token in pointer.split("/")[1:]:
        document = document[token.replace("~1", "/").replace("~0", "~")]
    return document


def run_at(document: dict[str, Any], pointer: str) -> dict[str, Any]:
    """The run's document at ``pointer`` (``/groups/<id>/runs/<name>``) of its workload's mirror."""
    group, _, name = pointer.rpartition("/runs/")
    return run_document(pointed(document, group), name)


# What a group's document says once for all its runs (``page_views.RunShared``), by the name a
# run's details give it, and where in the group it is.
_GROUP_SAYS = {"operation": ("operation",), "workload": ("workload",), "protocol": ("protocol",),
               "environment": ("environment",), "sources": ("sources",), "leader": ("comparison", "summary", "leader"),
               "floor": ("comparison", "floor"), "noFloor": ("comparison", "noFloor")}
# The group itself as a run names it (``page_views.GroupRef``): these fields of its summary.
_GROUP_REF = ("key", "label", "url", "gpu", "metric", "ranked", "runs")


def run_document(group: dict[str, Any], name: str) -> dict[str, Any]:
    """The run ``name``'s document from its group's: ``html`` (its page, runs/<name>.html), ``run`` (its manifest;
    null for a superseded run) and ``details``: what the group says once for all its runs (its
    operation, workload, protocol, environment, sources, leader and floor, and itself as
    ``cohort``), the run's own details (its correctness check the group's where the group says it)
    and ``status``, and its ranking row (in ``comparison.rows``
    or ``unranked``) as ``row``, with the row's ``implementation``, ``run`` name and ``digest``."""
    run = group["runs"][name]
    comparison = group["comparison"]
    row = next(row for row in comparison["rows"] + comparison["unranked"] if row["run"] == name)
    shared = {key: pointed(group, "/" + "/".join(path)) for key, path in _GROUP_SAYS.items()}
    shared["cohort"] = {key: comparison["summary"][key] for key in _GROUP_REF}
    # A correctness check all of the group's runs share is the group's to say (each run's is then null).
    own = {**run["details"], "correctness": run["details"]["correctness"] or group["correctness"]}
    return {"html": urls.run(name), "run": run["run"],
            "details": {**shared, **own, "name": name, "status": run["status"], "digest": row["digest"], "row": row,
                        "implementation": row["implementation"]}}


def compare_runs(mirrors: list[dict[str, Any]]) -> dict[str, Any]:
    if not MIN_RUNS <= len(mirrors) <= MAX_RUNS:
        raise ValueError(f"compare needs {MIN_RUNS} to {MAX_RUNS} runs, not {len(mirrors)}")
    fields = [_fields(mirror) for mirror in mirrors]
    runs = []
    for mirror in mirrors:
        details = mirror["details"]
        row = details["row"]
        runs.append({
            "name": details["name"], "digest": details["digest"], "url": mirror["html"],
            "implementation": details["implementation"]["title"], "value": row["value"], "unit": row["unit"],
            "statistic": row["statistic"], "groupRank": row["rank"], "reasons": list(row["reasons"]),
            "comparisonKey": details["cohort"]["key"], "groupUrl": details["cohort"]["url"],
        })
    aligned = []
    first = None
    for material, table in ((True, MATERIAL_FIELDS), (False, CONTEXT_FIELDS)):
        for name, title in table:
            identities = [f[name][0] for f in fields]
            same = all(identity == identities[0] for identity in identities)
            aligned.append({"name": name, "title": title, "material": material, "same": same,
                            "values": [f[name][1] for f in fields]})
            if material and not same and first is None:
                first = {"field": name, "title": title, "values": [f[name][1] for f in fields]}
    comparable = first is None
    ranking = None
    not_ranked = None
    if not comparable:
        not_ranked = f"not one comparison group: the {first['title'].lower()} differs"
    elif any(run["reasons"] or run["value"] is None for run in runs):
        blocked = [run["name"] for run in runs if run["reasons"] or run["value"] is None]
        not_ranked = "may not be ranked: " + ", ".join(blocked)
    else:
        order = sorted(range(len(runs)), key=lambda i: (runs[i]["value"], i))
        best = runs[order[0]]["value"]
        ranking = []
        rank, previous = 0, None
        for i in order:
            if runs[i]["value"] != previous:
                rank += 1
                previous = runs[i]["value"]
            ranking.append({"run": runs[i]["name"], "rank": rank, "value": runs[i]["value"],
                            "vsBest": runs[i]["value"] / best if best else None})
    return {
        "v": COMPARE_VERSION,
        "runs": runs,
        "fields": aligned,
        "firstDifference": first,
        "comparable": comparable,
        "comparisonKey": runs[0]["comparisonKey"] if comparable else None,
        "ranking": ranking,
        "notRanked": not_ranked,
    }
