"""The matcher: a parsed query against the index's comparison groups.

The algorithm (templates/static/search.js implements the same, step by step):

1. A query with no understood term answers nothing (the page shows the browsable lists).
2. Each group (in the index's order: operations most measured first, then workload, then label) is
   considered when its operation is in scope and its pass and metric are among those asked (when
   asked). Its rows are kept when they pass every row facet: language, license, evidence (at
   least the level asked), installable and source (of the implementation), usable (of the run). A
   group with no row left is counted as ``dropped``.
3. What differs: the GPU (when asked), the dtype (when asked), and every axis binding, in query
   order; an axis the operation does not declare, or a suite (no single shape), differs with
   ``found`` null. Each difference is ``[kind, name, asked, found]``.
4. ``exact``: groups where nothing differs. ``compatible``: the others, fewest differences first
   (ties keep the index's order).
5. Bracketing, only when nothing is exact and the query binds an axis: among the compatible groups
   whose one difference is a declared axis, those of one lane (operation, protocol, environment,
   metric) with the same dtype and the same values on every other axis form a bracket: the
   nearest measured value below and above the one asked. When every near group differs in two or
   more axes, ``refused`` names those axes instead (bracketing across two axes would be a guess).
"""

from __future__ import annotations

import json
from typing import Any

from .index import IMPL_INSTALLABLE, IMPL_SOURCE, ROW_USABLE
from .query import parse_query, vocabulary


def _row_filter(index: dict[str, Any], query: dict[str, Any]):
    languages = set(query["lang"])
    licenses = set(query["license"])
    minimum = index["ev"].index(query["evidence"]) if query["evidence"] else 0
    flags = set(query["flags"])

    def keep(impl: int, row_flags: int) -> bool:
        implementation = index["im"][impl]
        if languages and index["lang"][implementation[1]] not in languages:
            return False
        if licenses and (implementation[2] < 0 or index["lic"][implementation[2]] not in licenses):
            return False
        if (row_flags & 3) < minimum:
            return False
        if "installable" in flags and not implementation[3] & IMPL_INSTALLABLE:
            return False
        if "source" in flags and not implementation[3] & IMPL_SOURCE:
            return False
        if "usable" in flags and not row_flags & ROW_USABLE:
            return False
        return True

    return keep


def resolve_axis(op: list, key: str) -> int | None:
    aliases = op[6]
    if key in aliases:
        return aliases[key]
    return aliases.get(key.replace("_", ""))


def search(index: dict[str, Any], text: str, vocab: dict | None = None) -> dict[str, Any]:
    query = parse_query(index, text, vocab if vocab is not None else vocabulary(index))
    result: dict[str, Any] = {"query": query, "exact": [], "compatible": [], "brackets": [], "refused": None,
                              "dropped": 0}
    if not query["terms"]:  # nothing understood
        return result
    scope = set(query["ops"]) if query["ops"] is not None else None
    passes, metrics = set(query["pass"]), set(query["metric"])
    gpus, dtypes = set(query["gpu"]), set(query["dtype"])
    keep = _row_filter(index, query)
    candidates = []  # (cohort index, differs) of every compatible group, in index order

    for position, cohort in enumerate(index["co"]):
        workload = index["wl"][cohort[0]]
        lane = index["ln"][cohort[1]]
        op = index["op"][lane[0]]
        if scope is not None and op[0] not in scope:
            continue
        if passes and (lane[2] < 0 or index["pas"][lane[2]] not in passes):
            continue
        if metrics and index["met"][lane[3]] not in metrics:
            continue
        values = cohort[4]
        rows = [i for i in range(len(values) // 3) if keep(values[3 * i], values[3 * i + 2])]
        if not rows:
            result["dropped"] += 1
            continue
        differs = []
        slug = index["gpu"][lane[1]][0]
        if gpus and slug not in gpus:
            differs.append(["gpu", "gpu", query["gpu"], slug])
        dtype = index["dt"][workload[1]] if workload[1] >= 0 else None
        if dtypes and dtype not in dtypes:
            differs.append(["dtype", "dtype", query["dtype"], dtype])
        for key, asked in query["axes"]:
            axis = resolve_axis(op, key)
            if axis is None or isinstance(workload[2], str):
                differs.append(["axis", op[5][axis] if axis is not None else key, asked, None])
                continue
            found = workload[2][axis]
            if found != asked:
                differs.append(["axis", op[5][axis], asked, found])
        if differs:
            result["compatible"].append({"c": position, "rows": rows, "differs": differs})
            candidates.append((position, differs))
        else:
            result["exact"].append({"c": position, "rows": rows})

    result["compatible"].sort(key=lambda entry: len(entry["differs"]))
    if not result["exact"] and query["axes"]:
        result["brackets"], result["refused"] = _brackets(index, query, candidates)
    return result


def _brackets(index: dict[str, Any], query: dict[str, Any], candidates: list) -> tuple[list, list | None]:
    groups: dict[str, dict[str, Any]] = {}
    refused: set[str] = set()
    for position, differs in candidates:
        if any(d[0] != "axis" or d[3] is None for d in differs):
            continue
        if len(differs) > 1:
            refused.update(d[1] for d in differs)
            continue
        _, name, asked, found = differs[0]
        cohort = index["co"][position]
        workload = index["wl"][cohort[0]]
        axis = index["op"][index["ln"][cohort[1]][0]][5].index(name)
        rest = workload[2][:axis] + workload[2][axis + 1:]
        key = json.dumps([cohort[1], axis, workload[1], rest])
        group = groups.get(key)
        if group is None:
            group = groups[key] = {"axis": name, "asked": asked, "below": None, "above": None}
        if found < asked:
            if group["below"] is None or found > group["below"]["v"]:
                group["below"] = {"c": position, "v": found}
        elif group["above"] is None or found < group["above"]["v"]:
            group["above"] = {"c": position, "v": found}
    brackets = list(groups.values())
    if brackets:
        return brackets, None
    return [], sorted(refused) if refused else None
