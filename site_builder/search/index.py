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
from typing import Any

from .. import urls
from ..derive.leaderboard import Leaderboard
from ..derive.model import EVIDENCE_LEVELS
from ..discover.state import discovery

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


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


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
    found = discovery(board)
    catalog = board.catalog
    cohorts = found.ranked_cohorts

    ranked_rows = Counter()
    for cohort in cohorts:
        ranked_rows[cohort.operation] += len(cohort.rows)
    operations = sorted(catalog.operations, key=lambda name: (-ranked_rows[name], name))
    op_index = {name: i for i, name in enumerate(operations)}
    families = sorted({catalog.operations[name].spec.family for name in operations})
    models = sorted({m for name in operations for m in catalog.operations[name].metadata.models})

    def variable_axes(name: str) -> list[str]:
        return [axis for axis, spec in catalog.operations[name].spec.axes.items() if spec.role.value == "variable"]

    op_table = []
    for name in operations:
        operation = catalog.operations[name]
        axes = variable_axes(name)
        aliases = sorted({a.lower() for a in operation.metadata.aliases} - {name})
        op_table.append([name, operation.metadata.title or name, families.index(operation.spec.family),
                         [models.index(m) for m in operation.metadata.models], aliases, axes, axis_aliases(axes),
                         ranked_rows[name]])

    gpus = found.gpus
    gpu_index = {key.slug: i for i, key in enumerate(gpus)}

    cases = catalog.of("WorkloadCase")
    workloads = sorted({c.workload for c in cohorts}, key=lambda w: _workload_order(catalog, op_index, w))
    dtypes = sorted({catalog.workloads[w].spec.dtype.value for w in workloads if catalog.workloads[w].spec.dtype})
    wl_index = {w: i for i, w in enumerate(workloads)}
    wl_table = []
    for name in workloads:
        entity = catalog.workloads[name]
        operation = entity.refs["operation"].name
        dtype = dtypes.index(entity.spec.dtype.value) if entity.spec.dtype else -1
        if name in cases:
            shape: Any = [entity.spec.axes.get(axis) for axis in variable_axes(operation)]
        else:
            spec = entity.spec
            count = len(spec.cases)
            shape = f"suite of {count} case{'s' if count != 1 else ''} · {spec.aggregation.statistic} {spec.aggregation.metric}"
        wl_table.append([op_index[operation], dtype, shape])

    implementations = sorted({row.run.implementation for c in cohorts for row in c.rows})
    impl_index = {name: i for i, name in enumerate(implementations)}
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

    metrics = sorted({c.metric for c in cohorts if c.metric})
    passes = sorted({found.timed_pass[c.protocol] for c in cohorts if c.protocol in found.timed_pass})
    cohorts = sorted(cohorts, key=lambda c: (op_index[c.operation], wl_index[c.workload], c.label, c.key))
    lanes: dict[tuple, int] = {}
    lane_table = []
    cohort_table = []
    labels: dict[str, int] = {}  # what labels add to their GPU's, each once ("backward", "full · memory")
    for cohort in cohorts:
        gpu = found.gpu_of(cohort)
        lane = (cohort.operation, cohort.protocol, cohort.environment, cohort.metric)
        if lane not in lanes:
            lanes[lane] = len(lane_table)
            timed = found.timed_pass.get(cohort.protocol)
            lane_table.append([op_index[cohort.operation], gpu_index[gpu.slug],
                               passes.index(timed) if timed else -1, metrics.index(cohort.metric)])
        rows: list[int | float] = []
        for row in cohort.rows:
            usable = board.usability(row.run).usable
            rows += [impl_index[row.run.implementation], _number(row.value),
                     EVIDENCE_LEVELS.index(row.run.evidence) + (ROW_USABLE if usable else 0)]
        suffix = _label_suffix(cohort.label, cohort.gpu.label)
        cohort_table.append([wl_index[cohort.workload], lanes[lane], labels.setdefault(suffix, len(labels)),
                             urls.group_id(cohort.key), rows])

    return {
        "v": INDEX_VERSION,
        "asOf": board.as_of.isoformat(),
        "fam": families,
        "mdl": models,
        "dt": dtypes,
        "lang": languages,
        "lic": licenses,
        "ev": list(EVIDENCE_LEVELS),
        "met": metrics,
        "pas": passes,
        "gpu": [[key.slug, key.label, list(key.aliases)] for key in gpus],
        "op": op_table,
        "im": impl_table,
        "wl": wl_table,
        "ln": lane_table,
        "lb": list(labels),
        "co": cohort_table,
    }


def _workload_order(catalog, op_index: dict[str, int], name: str) -> tuple:
    entity = catalog.workloads[name]
    operation = entity.refs["operation"]
    if entity.kind != "WorkloadCase":
        return (op_index[operation.name], 1, (), "", name)
    axes = tuple(entity.spec.axes.get(axis, -1) for axis in operation.spec.axes)
    return (op_index[operation.name], 0, axes, entity.spec.dtype.value if entity.spec.dtype else "", name)


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
