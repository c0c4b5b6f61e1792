"""View models of the KernelBench pages (their JSON mirrors and schemas come from these classes)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..page_views import Link, Page, View


class Attribution(View):
    source: Link
    license: str | None
    notice: str = Field(description="the upstream copyright notice the data is shipped under")
    url: str = Field(description="the upstream repository")


class ProblemSummary(View):
    number: int
    problem: Link = Field(description="the problem's KernelBench page")
    kernel: Link = Field(description="the kernel page (rankings, floors)")
    file: str
    problem_sets: list[str] = Field(description="the problem-set versions with runs of this revision, oldest first")
    gpus: int
    runs: int


class FamilyGroup(View):
    family: str
    anchor: str
    problems: list[ProblemSummary]


class LevelGroup(View):
    level: int
    anchor: str
    title: str
    problems: int
    families: list[FamilyGroup]


class SpeedupCell(View):
    mode: str
    geomean: float | None = Field(description="geometric mean over problems of eager mean / compiled mean")
    problems: int = Field(description="problems with both an eager and a compiled run here")
    faster: int = Field(description="of those, how many ran faster compiled")


class SpeedupRow(View):
    gpu: str
    environment: Link
    problem_set: str
    remeasured: bool = Field(description="from KernelIndex's re-measurement, not KernelBench's published timings")
    cells: list[SpeedupCell]


class KernelBenchPage(Page):
    kind: Literal["kernelbench"] = "kernelbench"
    attribution: Attribution
    problems: int
    runs: int
    levels: list[LevelGroup]
    modes: list[str] = Field(description="the torch.compile modes of the speedup table, in column order")
    speedups: list[SpeedupRow] = Field(description="torch.compile over eager, per GPU and problem set")


class Cell(View):
    mode: str
    run: Link | None = Field(description="the newest run of this configuration here; null when none")
    mean_ns: float | None = Field(description="its mean latency (KernelBench publishes means, not medians; a "
                                              "re-measurement's mean too, so a row compares with the others)")
    minimum_ns: float | None
    maximum_ns: float | None
    others: int = Field(description="older runs of the same configuration in this group, not shown")
    speedup: float | None = Field(description="eager mean / this mean on the same GPU; null for eager or without both")


class GpuRow(View):
    gpu: str
    environment: Link
    protocol: Link = Field(description="how this row was measured")
    remeasured: bool = Field(description="measured by KernelIndex's harness (outputs checked against float64), "
                                         "not published by KernelBench")
    cells: list[Cell]


class ProblemSetTable(View):
    problem_set: str
    protocol: Link = Field(description="KernelBench's timing protocol of this problem set")
    workload: Link
    modes: list[str]
    rows: list[GpuRow]


class InputView(View):
    name: str
    shape: str
    dtype: str


class KernelBenchProblemPage(Page):
    kind: Literal["kernelbench_problem"] = "kernelbench_problem"
    attribution: Attribution
    level: int
    number: int
    family: str
    file: str
    source_url: str | None
    kernel: Link
    summary: str | None
    inputs: list[InputView]
    forward: str | None = Field(description="the model's forward method, as read from the problem file")
    revisions: list[Link] = Field(description="other kernels (revisions) of the same problem file")
    tables: list[ProblemSetTable] = Field(description="one per problem-set version, newest first")


KERNELBENCH_PAGE_MODELS: dict[str, type[Page]] = {
    model.model_fields["kind"].default: model for model in (KernelBenchPage, KernelBenchProblemPage)
}
