"""The compact search index: every ranked comparison group, with the facts a query can ask about,
as small tables of short keys that refer to each other by position.

Built once per build in O(n log n); search.js and ``search.match`` read the same tables, so the
answers of the browser and of the tests are the answers of one algorithm. The site publishes it
split (``search.shards``): a head at ``api/v1/search-index.json`` and a shard per operation. The
layout is documented in ``search.schema`` (published with the site).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter
from typing import Any

from .. import urls
from ..gc_pause import paused_gc
from ..derive.leaderboard import Cohort, Leaderboard
from ..derive.model import EVIDENCE_LEVELS, RunFacts
from ..derive.usability import install_command, usability
from ..discover.state import discovery
from ..link import Entity
from .shards import SHARD_VERSION, merge

INDEX_VERSION = 2  # 2: published as a head and a shard per operation (search.shards)

# Bits of an implementation's flags and of a row's flags.
IMPL_SOURCE, IMPL_INSTALLABLE, IMPL_BASELINE = 1, 2, 4
ROW_USABLE = 4  # a row's flags: evidence level index (0-3) + 4 when usable today

# Axis-name conventions of benchmark suites: a short axis name also answers to these words.
AXIS_SYNONYMS = {
    "t": ("seq", "tokens"), "s": ("seq",), "l": ("seq",), "seqlen": ("seq",),
    "b": ("batch",), "bsz": ("batch",), "bs": ("batch",),
    "h": ("hidden",), "d": ("dim",), "v": ("vocab",), "bt": ("tokens",), "e": ("experts",),
}
# Parts of a snake_case axis name that say nothing on their own ("seq_len" answers to "seq", not "len").
_GENERIC_PARTS = {"num", "len", "size", "dim", "n", "of"}


_ROWS, _WORKLOAD, _METRIC, _PROTOCOL = (attrgetter(name) for name in ("rows", "workload", "metric", "protocol"))

# The whole index's tables, in the order it has always listed them.
WHOLE_INDEX_KEYS = ("v", "asOf", "fam", "mdl", "dt", "lang", "lic", "ev", "met", "pas", "gpu", "op", "im", "wl", "ln", "lb", "co")


def axis_aliases(axes: list[str]) -> dict[str, int]:
    """Query key -> position of the axis it binds, for one operation's variable axes.

    An axis answers to its name (also without underscores), to every contiguous run of its
    snake_case parts that is not a generic word ("num_q_heads": "q_heads", "heads"), and to the
    suite conventions in AXIS_SYNONYMS ("t": "seq"). A key that two axes would answer to is
    dropped (ambiguous), unless it is one axis's exact name.
    """
    candidates: dict[str, set[int]] = {}
    exact: dict[str, int] = {}
    for position, name in enumerate(axes):
        key = name.lower()
        exact[key] = position
        words = {key, key.replace("_", "")}
        parts = key.split("_")
        for start in range(len(parts)):
            for end in range(start + 1, len(parts) + 1):
                run = parts[start:end]
                if len(run) == 1 and run[0] in _GENERIC_PARTS:
                    continue
                words.add("_".join(run))
        words.update(AXIS_SYNONYMS.get(key, ()))
        for word in words:
            candidates.setdefault(word, set()).add(position)
    found = {word: next(iter(positions)) for word, positions in candidates.items() if len(positions) == 1}
    found.update(exact)
    return dict(sorted(found.items()))


def build_search_index(board: Leaderboard) -> dict[str, Any]:
    """The whole index: every shard merged back into the head (``search.shards.merge``)."""
    merged = merge(*search_parts(board))
    return {key: merged[key] for key in WHOLE_INDEX_KEYS}


@dataclass(frozen=True)
class HeadTables:
    """What a shard refers to in the head, by position (every vocabulary is the head's)."""

    as_of: str
    op_index: dict[str, int]
    variable_axes: dict[str, list[str]]  # operation -> its variable axes, in declared order
    dtypes: dict[str, int]
    gpus: dict[str, int]  # by slug
    passes: dict[str, int]
    metrics: dict[str, int]
    implementations: dict[str, int]
    labels: dict[str, int]  # what a group's label adds to its GPU's (``_label_suffix``)


def search_parts(board: Leaderboard) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """(head, operation -> shard): what ``search.shards.split`` makes of the whole index, built
    directly. Each shard is ``search_shard`` of its operation's groups and the head's tables, so a
    caller that kept a shard may skip it when its kernel's groups and the head's tables are unchanged."""
    # Several lists per group and no cycles: a collection meanwhile would walk every object the
    # build holds for nothing (see gc_pause.paused_gc).
    with paused_gc():
        return _search_parts(board)


def _search_parts(board: Leaderboard) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    found = discovery(board)
    catalog = board.catalog

    ranked = found.ranked_cohorts
    by_operation: dict[str, list[Cohort]] = {}
    for cohort in ranked:
        group = by_operation.get(cohort.operation)
        if group is None:
            by_operation[cohort.operation] = [cohort]
        else:
            group.append(cohort)
    ranked_rows = Counter({name: sum(map(len, map(_ROWS, cohorts))) for name, cohorts in by_operation.items()})
    # Each table's values in one pass in C, because it goes over every ranked group.
    workloads, metrics_seen, protocols = set(map(_WORKLOAD, ranked)), set(map(_METRIC, ranked)), set(map(_PROTOCOL, ranked))
    operations = sorted(catalog.operations, key=lambda name: (-ranked_rows[name], name))
    op_index = {name: i for i, name in enumerate(operations)}
    families = sorted({catalog.operations[name].spec.family for name in operations})
    models = sorted({m for name in operations for m in catalog.operations[name].metadata.models})
    variable_axes = {name: [axis for axis, spec in catalog.operations[name].spec.axes.items() if spec.role.value == "variable"]
                     for name in operations}

    op_table = []
    for name in operations:
        operation = catalog.operations[name]
        axes = variable_axes[name]
        aliases = sorted({a.lower() for a in operation.metadata.aliases} - {name})
        op_table.append([name, operation.metadata.title or name, families.index(operation.spec.family),
                         [models.index(m) for m in operation.metadata.models], aliases, axes, axis_aliases(axes),
                         ranked_rows[name]])

    all_workloads = catalog.workloads  # a property that merges two dicts: read once
    dtypes = sorted({all_workloads[w].spec.dtype.value for w in workloads if all_workloads[w].spec.dtype})

    # Every implementation with a ranked row: those with a best rank.
    implementations = sorted(found.best_rank)
    languages = sorted({board.implementations[name].language for name in implementations})
    licenses = sorted({board.implementations[name].license for name in implementations if board.implementations[name].license})
    impl_table = []
    for name in implementations:
        facts = board.implementations[name]
        entity = catalog.implementations[name]
        title = entity.metadata.title or entity.refs["project"].metadata.title or name
        flags = (IMPL_SOURCE if facts.source_url else 0) | (IMPL_INSTALLABLE if facts.recipe else 0) | (
            IMPL_BASELINE if facts.baseline else 0)
        impl_table.append([title, languages.index(facts.language),
                           licenses.index(facts.license) if facts.license else -1, flags])

    metrics = sorted(metric for metric in metrics_seen if metric)
    passes = sorted({found.timed_pass[protocol] for protocol in protocols if protocol in found.timed_pass})

    # Labels are numbered in the order groups first show them, operation by operation.
    in_order = {name: sorted_groups(all_workloads, op_index, by_operation[name]) for name in operations if name in by_operation}
    labels: dict[str, int] = {}
    for cohorts in in_order.values():
        for cohort in cohorts:
            labels.setdefault(_label_suffix(cohort.label, cohort.gpu.label), len(labels))

    as_of = board.as_of.isoformat()
    tables = HeadTables(as_of=as_of, op_index=op_index, variable_axes=variable_axes, dtypes={d: i for i, d in enumerate(dtypes)},
                        gpus={key.slug: i for i, key in enumerate(found.gpus)}, passes={p: i for i, p in enumerate(passes)},
                        metrics={m: i for i, m in enumerate(metrics)}, implementations={n: i for i, n in enumerate(implementations)},
                        labels=labels)
    verdicts = usability_verdicts(board, implementations)
    shards = {name: search_shard(board, tables, name, cohorts, verdicts, all_workloads) for name, cohorts in in_order.items()}

    head = {
        "v": INDEX_VERSION,
        "asOf": as_of,
        "fam": families,
        "mdl": models,
        "dt": dtypes,
        "lang": languages,
        "lic": licenses,
        "ev": list(EVIDENCE_LEVELS),
        "met": metrics,
        "pas": passes,
        "gpu": [[key.slug, key.label, list(key.aliases)] for key in found.gpus],
        "op": op_table,
        "im": impl_table,
        "lb": list(labels),
        "sh": [len(shards[name]["co"]) if name in shards else 0 for name in operations],
    }
    return head, shards


def sorted_groups(workloads: dict[str, Entity], op_index: dict[str, int], cohorts: list[Cohort]) -> list[Cohort]:
    """One operation's ranked groups in the index's order: workload (``_workload_order``), label, key.
    ``workloads``: the catalog's."""
    order = {w: _workload_order(workloads, op_index, w) for w in {c.workload for c in cohorts}}
    return sorted(cohorts, key=lambda c: (order[c.workload], c.label, c.key))


def search_shard(board: Leaderboard, tables: HeadTables, operation: str, cohorts: list[Cohort],
                 verdicts: dict[str, bool | None] | None = None, workloads: dict[str, Entity] | None = None) -> dict[str, Any]:
    """One operation's shard: its workloads, lanes and groups (``cohorts``: its ranked groups, in
    ``sorted_groups`` order), positions local to the shard except those into the head's tables.
    ``verdicts`` (``usability_verdicts``) and ``workloads`` (the catalog's) save asking again per shard."""
    catalog = board.catalog
    found = discovery(board)
    if verdicts is None:
        verdicts = usability_verdicts(board, {row.run.implementation for cohort in cohorts for row in cohort.rows})
    if workloads is None:
        workloads = catalog.workloads
    op = tables.op_index[operation]
    cases = catalog.of("WorkloadCase")

    wl_local: dict[str, int] = {}
    wl_table = []
    for cohort in cohorts:
        name = cohort.workload
        if name in wl_local:
            continue
        wl_local[name] = len(wl_table)
        entity = workloads[name]
        dtype = tables.dtypes[entity.spec.dtype.value] if entity.spec.dtype else -1
        if name in cases:
            shape: Any = [entity.spec.axes.get(axis) for axis in tables.variable_axes[entity.refs["operation"].name]]
        else:
            spec = entity.spec
            count = len(spec.cases)
            shape = f"suite of {count} case{'s' if count != 1 else ''} · {spec.aggregation.statistic} {spec.aggregation.metric}"
        wl_table.append([tables.op_index[entity.refs["operation"].name], dtype, shape])

    evidence = {level: i for i, level in enumerate(EVIDENCE_LEVELS)}
    # Implementation -> (its position in the head, ROW_USABLE or 0; None when that depends on the run).
    implementations: dict[str, tuple[int, int | None]] = {}
    labels, group_id = tables.labels, urls.group_id
    lanes: dict[tuple, int] = {}
    lane_table = []
    cohort_table = []
    for cohort in cohorts:
        lane = (cohort.protocol, cohort.environment, cohort.metric)
        if lane not in lanes:
            lanes[lane] = len(lane_table)
            timed = found.timed_pass.get(cohort.protocol)
            lane_table.append([op, tables.gpus[found.gpu_of(cohort).slug],
                               tables.passes[timed] if timed else -1, tables.metrics[cohort.metric]])
        rows: list[int | float] = []
        for row in cohort.rows:
            run = row.run
            value = run.value  # ``row.value``, without its property call
            known = implementations.get(run.implementation)
            if known is None:
                verdict = verdicts[run.implementation]
                known = implementations[run.implementation] = (
                    tables.implementations[run.implementation], None if verdict is None else ROW_USABLE if verdict else 0)
            position, usable = known
            if usable is None:
                usable = ROW_USABLE if board.usability(run).usable else 0
            rows += (position, int(value) if float(value).is_integer() else value, evidence[run.evidence] + usable)
        cohort_table.append([wl_local[cohort.workload], lanes[lane], labels[_label_suffix(cohort.label, cohort.gpu.label)],
                             group_id(cohort.key), rows])
    return {"v": SHARD_VERSION, "asOf": tables.as_of, "op": operation, "wl": wl_table, "ln": lane_table, "co": cohort_table}


def usability_verdicts(board: Leaderboard, implementations: Iterable[str]) -> dict[str, bool | None]:
    """Implementation -> whether its runs are usable today (``Leaderboard.usability(run).usable``),
    or None where that depends on the run. The verdict reads a run only for the version it
    measured, and of that only whether there is one (``usability.install_command``): an
    implementation whose verdict is the same with and without one is decided once for all its runs."""
    verdicts: dict[str, bool | None] = {}
    for name in implementations:
        facts = board.implementations[name]
        found = set()
        for version in (None, "1"):
            install, pinned = install_command(facts.recipe, version)
            found.add(usability(public_source=facts.source_url is not None, license=facts.license,
                                install=install, pinned=pinned).usable)
        verdicts[name] = found.pop() if len(found) == 1 else None
    return verdicts


def usability_of_rows(board: Leaderboard) -> Callable[[RunFacts], bool]:
    """``Leaderboard.usability(run).usable`` through ``usability_verdicts``: asked of the board only
    for runs of implementations whose verdict depends on the run."""
    verdicts = usability_verdicts(board, board.implementations)

    def usable(run: RunFacts) -> bool:
        known = verdicts[run.implementation]
        return board.usability(run).usable if known is None else known

    return usable


def _workload_order(workloads: dict[str, Entity], op_index: dict[str, int], name: str) -> tuple:
    entity = workloads[name]
    operation = entity.refs["operation"]
    if entity.kind != "WorkloadCase":
        return (op_index[operation.name], 1, (), "", name)
    axes = tuple(entity.spec.axes.get(axis, -1) for axis in operation.spec.axes)
    return (op_index[operation.name], 0, axes, entity.spec.dtype.value if entity.spec.dtype else "", name)


@lru_cache(maxsize=1024)  # a few distinct labels, asked of every group
def _label_suffix(label: str, gpu_label: str) -> str:
    """What a group's label adds to its GPU's ("backward" for "H100 · backward"); "!"+label when it
    does not start with the GPU's label (never, with today's labels)."""
    if label == gpu_label:
        return ""
    if label.startswith(gpu_label + " · "):
        return label[len(gpu_label) + 3:]
    return "!" + label


def cohort_label(index: dict[str, Any], cohort: list) -> str:
    """The group's full label, as the pages print it."""
    suffix = index["lb"][cohort[2]]
    if suffix.startswith("!"):
        return suffix[1:]
    gpu_label = index["gpu"][index["ln"][cohort[1]][1]][1]
    return f"{gpu_label} · {suffix}" if suffix else gpu_label


def index_json(index: dict[str, Any]) -> str:
    """Compact JSON (no insignificant whitespace); key order as built, so two builds are identical."""
    return json.dumps(index, ensure_ascii=False, separators=(",", ":")) + "\n"
