"""The search index, published in pieces: a head and one shard per operation.

One document of every comparison group grows with the runs, to megabytes on a large site, and a
browser would fetch all of it for any query. So the site publishes a *head*
(``api/v1/search-index.json``: the vocabulary tables — families, operations, GPUs, implementations,
labels … — and, per operation, how many groups its shard holds) and a *shard* per operation
(``api/v1/search/<operation>.json``: that operation's workloads, lanes and groups). A query is
parsed on the head alone; the browser then fetches the shards of the operations in scope (every
shard when the query names no kernel, family or model) and searches their merge.
``merge`` is the inverse of ``split``: merging every shard, in the head's operation order, gives
back the whole index, position for position, so ``search.match`` answers on a merge exactly as it
does on the whole index (only the groups' positions differ when fewer shards are merged).
search.js merges the same way (``mergeShards``).
"""

from __future__ import annotations

from typing import Any

# The tables that move to the shards; positions in them are local to their shard.
SHARDED = ("wl", "ln", "co")
SHARD_VERSION = 1


def split(index: dict[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(head, operation name -> shard) of a whole index (``index.build_search_index``).

    Workloads and lanes name their operation by its position in the head's ``op`` table; a group
    names its workload and lane by position in its shard, and its label in the head's ``lb``.
    """
    ops = index["op"]
    wl_local: dict[int, int] = {}
    ln_local: dict[int, int] = {}
    shards: dict[int, dict[str, list]] = {}

    def shard(op: int) -> dict[str, list]:
        return shards.setdefault(op, {"wl": [], "ln": [], "co": []})

    for position, workload in enumerate(index["wl"]):
        tables = shard(workload[0])
        wl_local[position] = len(tables["wl"])
        tables["wl"].append(workload)
    for position, lane in enumerate(index["ln"]):
        tables = shard(lane[0])
        ln_local[position] = len(tables["ln"])
        tables["ln"].append(lane)
    for cohort in index["co"]:
        tables = shard(index["ln"][cohort[1]][0])
        tables["co"].append([wl_local[cohort[0]], ln_local[cohort[1]], *cohort[2:]])

    head = {key: value for key, value in index.items() if key not in SHARDED}
    head["sh"] = [len(shards[op]["co"]) if op in shards else 0 for op in range(len(ops))]
    documents = {ops[op][0]: {"v": SHARD_VERSION, "asOf": index["asOf"], "op": ops[op][0], **tables}
                 for op, tables in sorted(shards.items()) if tables["co"]}
    return head, documents


def merge(head: dict[str, Any], shards: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One index over the head and the given shards (any subset), in the head's operation order."""
    merged: dict[str, Any] = {key: value for key, value in head.items() if key != "sh"}
    for key in SHARDED:
        merged[key] = []
    for op in head["op"]:
        shard = shards.get(op[0])
        if shard is None:
            continue
        wl_offset, ln_offset = len(merged["wl"]), len(merged["ln"])
        merged["wl"] += shard["wl"]
        merged["ln"] += shard["ln"]
        merged["co"] += [[cohort[0] + wl_offset, cohort[1] + ln_offset, *cohort[2:]] for cohort in shard["co"]]
    return merged


def needed(head: dict[str, Any], query: dict[str, Any]) -> list[str]:
    """The operations whose shards a parsed query needs, in the head's order: those in scope, or
    every operation with a group when the query names none; none when nothing was understood."""
    if not query["terms"]:
        return []
    scope = set(query["ops"]) if query["ops"] is not None else None
    return [op[0] for op, groups in zip(head["op"], head["sh"]) if groups and (scope is None or op[0] in scope)]
