"""The KernelBench pages' view models, from the leaderboard (no formatting here).

A kernel is KernelBench's when its OperationSpec carries the ``kernelbench_level`` label (the
importer writes it); its configuration comes from its implementation's ``kernelbench_config``
label and its problem-set version from its protocol's ``kernelbench_problem_set`` label, so runs
a contributor adds for a KernelBench problem (their own implementation, KernelBench's protocol)
appear beside KernelBench's own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from .. import urls
from ..context.view_parts import PageTask, ViewFactory
from ..derive.model import RunFacts
from . import figures
from .problem_views import (
    Attribution, Cell, FamilyGroup, GpuRow, InputView, KernelBenchPage, KernelBenchProblemPage, LevelGroup, Link,
    ProblemSetTable, ProblemSummary, SpeedupCell, SpeedupRow,
)

SOURCE = "kernelbench"
INDEX = urls.KERNELBENCH
NOTICE = "MIT License · Copyright (c) 2023 Anne Ouyang, Simon Guo, Azalia Mirhoseini"
REPOSITORY = "https://github.com/ScalingIntelligence/KernelBench"
LEVEL_TITLES = {1: "Level 1 · single operators", 2: "Level 2 · fused operator chains", 3: "Level 3 · whole networks",
                4: "Level 4 · Hugging Face models"}


problem_url = urls.kernelbench_problem


class KernelBenchContext:
    """What both kinds of page read, gathered once."""

    def __init__(self, factory: ViewFactory):
        self.factory = factory
        catalog = factory.catalog
        self.operations = {name: op for name, op in catalog.operations.items()
                           if "kernelbench_level" in op.metadata.labels}
        self.runs: dict[str, list[RunFacts]] = {
            name: [run for run in factory.board.operation_runs.get(name, []) if run.value is not None]
            for name in self.operations
        }

    def mode(self, run: RunFacts) -> str:
        implementation = self.factory.catalog.implementations[run.implementation]
        return implementation.metadata.labels.get("kernelbench_config") or implementation.metadata.title or run.implementation

    def problem_set(self, run: RunFacts) -> str:
        """The run's own ``kernelbench_problem_set`` label (a re-measurement under another protocol,
        e.g. the harness's), else its protocol's."""
        labelled = self.factory.catalog.runs[run.name].metadata.labels.get("kernelbench_problem_set")
        protocol = self.factory.catalog.protocols[run.protocol]
        return labelled or protocol.metadata.labels.get("kernelbench_problem_set") or run.protocol

    def mean_ns(self, run: RunFacts) -> float:
        """The run's mean latency: what KernelBench publishes, so every row compares like with like
        (a run whose primary statistic is a median, the harness's, also records its mean)."""
        timing = self.factory.catalog.runs[run.name].spec.timing
        mean = timing.latencyNs.mean if timing and timing.latencyNs else None
        return float(mean) if mean is not None else run.value

    def remeasured(self, run: RunFacts) -> bool:
        """Measured by KernelIndex's harness (checked against a float64 reference), not published by KernelBench."""
        return self.factory.catalog.protocols[run.protocol].metadata.labels.get("kernelbench_problem_set") is None

    def gpu(self, run: RunFacts) -> tuple[tuple[int, str], str]:
        gpu = self.factory.board.gpus[run.environment]
        environment = self.factory.catalog.environments[run.environment]
        labels = environment.metadata.labels
        provider = labels.get("provider_title") or labels.get("provider")
        label = f"{gpu.label} · {provider}" if provider else gpu.label
        return figures.gpu_rank(gpu.datasheet, label), label

    def attribution(self) -> Attribution:
        source = self.factory.catalog.sources.get(SOURCE)
        license_text = source.spec.license if source else None
        return Attribution(source=Link(title=(source.spec.title if source else "KernelBench"), url=urls.source(SOURCE)),
                           license=license_text, notice=NOTICE, url=REPOSITORY)


def _level(operation) -> int:
    return int(operation.metadata.labels["kernelbench_level"])


def _number(operation) -> int:
    return int(operation.metadata.labels.get("kernelbench_problem", "0"))


def index_page(context: KernelBenchContext) -> KernelBenchPage:
    factory = context.factory
    levels: dict[int, dict[str, list[ProblemSummary]]] = defaultdict(lambda: defaultdict(list))
    for name, operation in context.operations.items():
        runs = context.runs[name]
        sets = sorted({context.problem_set(run) for run in runs},
                      key=lambda s: min(r.observed_at for r in runs if context.problem_set(r) == s))
        levels[_level(operation)][operation.metadata.labels.get("kernelbench_family", "other")].append(ProblemSummary(
            number=_number(operation), problem=Link(title=operation.metadata.title or name, url=problem_url(name)),
            kernel=factory.operation_link(name), file=operation.metadata.labels.get("kernelbench_file", ""),
            problem_sets=sets, gpus=len({run.environment for run in runs}), runs=len(runs),
        ))
    level_groups = []
    for level in sorted(levels):
        families = [FamilyGroup(family=family, anchor=f"l{level}-{family}",
                                problems=sorted(problems, key=lambda p: (p.number, p.problem.url)))
                    for family, problems in sorted(levels[level].items())]
        level_groups.append(LevelGroup(level=level, anchor=f"level{level}", title=LEVEL_TITLES.get(level, f"Level {level}"),
                                       problems=sum(len(f.problems) for f in families), families=families))
    modes, speedups = _speedups(context)
    return KernelBenchPage(
        **factory.page_fields("kernelbench", "KernelBench problems", INDEX),
        attribution=context.attribution(), problems=len(context.operations),
        runs=sum(len(runs) for runs in context.runs.values()), levels=level_groups, modes=modes, speedups=speedups,
    )


def _speedups(context: KernelBenchContext) -> tuple[list[str], list[SpeedupRow]]:
    """Per (problem set, GPU environment, published or re-measured): the geometric mean over problems
    of eager / compiled means, each configuration's newest run per workload (the value a problem
    page shows). Published and re-measured runs never share a row: their protocols differ."""
    Row = tuple[str, str, bool]  # (problem set, environment, re-measured)
    newest: dict[tuple[Row, str, str], RunFacts] = {}  # (row, workload, mode) -> run
    for runs in context.runs.values():
        for run in runs:
            key = ((context.problem_set(run), run.environment, context.remeasured(run)), run.workload, context.mode(run))
            if key not in newest or run.observed_at > newest[key].observed_at:
                newest[key] = run
    ratios: dict[Row, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for (row, workload, mode), run in newest.items():
        eager = newest.get((row, workload, "eager"))
        if mode != "eager" and eager is not None:
            ratios[row][mode].append(figures.speedup(context.mean_ns(eager), context.mean_ns(run)))
    a_run = {row: run for (row, _, _), run in newest.items()}  # any one run of each row names its GPU
    modes = sorted({mode for by_mode in ratios.values() for mode in by_mode}, key=figures.config_rank)
    rows = []
    for (problem_set, environment, remeasured), by_mode in ratios.items():
        rank, label = context.gpu(a_run[(problem_set, environment, remeasured)])
        cells = [SpeedupCell(mode=mode, geomean=figures.geometric_mean(by_mode.get(mode, [])),
                             problems=len(by_mode.get(mode, [])), faster=sum(1 for r in by_mode.get(mode, []) if r > 1))
                 for mode in modes]
        rows.append((problem_set, rank, remeasured, SpeedupRow(
            gpu=label, environment=context.factory.environment_link(environment), problem_set=problem_set,
            remeasured=remeasured, cells=cells)))
    order = _set_order(context)
    rows.sort(key=lambda item: (order.get(item[0], 0), item[1], item[2]))
    return modes, [row for *_, row in rows]


def _set_order(context: KernelBenchContext) -> dict[str, int]:
    first: dict[str, object] = {}
    for runs in context.runs.values():
        for run in runs:
            problem_set = context.problem_set(run)
            if problem_set not in first or run.observed_at < first[problem_set]:
                first[problem_set] = run.observed_at
    return {name: index for index, name in enumerate(sorted(first, key=lambda s: (first[s], s)))}


def problem_page(context: KernelBenchContext, name: str) -> KernelBenchProblemPage:
    factory = context.factory
    operation = context.operations[name]
    labels = operation.metadata.labels
    runs = context.runs[name]
    by_set: dict[tuple[str, str], list[RunFacts]] = defaultdict(list)
    for run in runs:
        by_set[(context.problem_set(run), run.workload)].append(run)
    order = _set_order(context)
    tables = [_table(context, problem_set, workload, set_runs)
              for (problem_set, workload), set_runs in
              sorted(by_set.items(), key=lambda item: (-order.get(item[0][0], 0), item[0]))]
    file = labels.get("kernelbench_file", "")
    revisions = [Link(title=other.metadata.title or other_name, url=problem_url(other_name))
                 for other_name, other in sorted(context.operations.items())
                 if other_name != name and other.metadata.labels.get("kernelbench_file") == file
                 and other.metadata.labels.get("kernelbench_level") == labels.get("kernelbench_level")]
    inputs = [InputView(name=argument.name,
                        shape=("[" + ", ".join(str(dim) for dim in argument.tensor.shape) + "]") if argument.tensor else "scalar",
                        dtype=(argument.tensor or argument.scalar).dtype.value)
              for argument in operation.spec.inputs]
    expression = operation.spec.semantics.expression or ""
    forward = expression.split("Model.forward =\n", 1)[1] if "Model.forward =\n" in expression else None
    description = operation.metadata.description or ""
    summary = description.split("\n\n", 1)[0] if description else None
    return KernelBenchProblemPage(
        **factory.page_fields("kernelbench_problem", operation.metadata.title or name, problem_url(name)),
        attribution=context.attribution(), level=_level(operation), number=_number(operation),
        family=labels.get("kernelbench_family", "other"), file=file, source_url=labels.get("kernelbench_source"),
        kernel=factory.operation_link(name), summary=summary, inputs=inputs, forward=forward, revisions=revisions,
        tables=tables,
    )


def _table(context: KernelBenchContext, problem_set: str, workload: str, runs: list[RunFacts]) -> ProblemSetTable:
    """One row per GPU and protocol: KernelBench's published timings, and beside them any
    re-measurement of the same problem set (the harness's, on GPUs KernelBench did not time)."""
    factory = context.factory
    cells: dict[tuple[str, str, str], list[RunFacts]] = defaultdict(list)
    for run in runs:
        cells[(run.environment, run.protocol, context.mode(run))].append(run)
    modes = sorted({mode for _, _, mode in cells}, key=figures.config_rank)
    sample = {(environment, protocol): next(r for r in runs if (r.environment, r.protocol) == (environment, protocol))
              for environment, protocol, _ in cells}
    rows = []
    for environment, protocol in sorted(sample, key=lambda key: (context.gpu(sample[key]), key[1])):
        newest = {mode: max(cells[(environment, protocol, mode)], key=lambda r: (r.observed_at, r.name))
                  for mode in modes if (environment, protocol, mode) in cells}
        eager = newest.get("eager")
        row_cells = []
        for mode in modes:
            run = newest.get(mode)
            if run is None:
                row_cells.append(Cell(mode=mode, run=None, mean_ns=None, minimum_ns=None, maximum_ns=None, others=0,
                                      speedup=None))
                continue
            timing = factory.catalog.runs[run.name].spec.timing
            latency = timing.latencyNs if timing else None
            row_cells.append(Cell(
                mode=mode, run=Link(title=run.name, url=urls.run(run.name)), mean_ns=context.mean_ns(run),
                minimum_ns=float(latency.minimum) if latency and latency.minimum is not None else None,
                maximum_ns=float(latency.maximum) if latency and latency.maximum is not None else None,
                others=len(cells[(environment, protocol, mode)]) - 1,
                speedup=(figures.speedup(context.mean_ns(eager), context.mean_ns(run))
                         if eager is not None and mode != "eager" else None),
            ))
        _, label = context.gpu(sample[(environment, protocol)])
        rows.append(GpuRow(gpu=label, environment=factory.environment_link(environment),
                           protocol=factory.protocol_link(protocol), remeasured=context.remeasured(sample[(environment, protocol)]),
                           cells=row_cells))
    published = sorted({run.protocol for run in runs if not context.remeasured(run)}) or sorted({run.protocol for run in runs})
    return ProblemSetTable(problem_set=problem_set, protocol=factory.protocol_link(published[0]),
                           workload=factory.workload_link(workload), modes=modes, rows=rows)


def kernelbench_tasks(factory: ViewFactory) -> list[PageTask]:
    """The index and one page per KernelBench kernel; none when the data has no KernelBench kernel."""
    context = KernelBenchContext(factory)
    if not context.operations:
        return []
    tasks: list[Callable] = [lambda: (index_page(context),)]
    tasks += [lambda name=name: (problem_page(context, name),) for name in sorted(context.operations)]
    return tasks
