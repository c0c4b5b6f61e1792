"""View models of the finding pages (issue 9): search, records ledger, GPUs, models, compare.

Like ``site_builder/page_views.py``: raw facts and site-root paths; each page's JSON mirror is the model
dumped, and its published schema is generated from the class.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from ..page_views import Link, NamesRun, Page, PageLink, RowView, View


# ------------------------------------------------------------------------------------------------
# Search


class OperationEntry(View):
    operation: Link
    eligible_runs: int
    workloads: int
    models: list[str]


class FamilyEntry(View):
    family: str
    operations: list[OperationEntry]


class GpuEntry(View):
    slug: str
    label: str
    url: str
    eligible_runs: int
    records: int
    priority: bool


class ModelEntry(View):
    slug: str
    url: str
    operations: int


class FacetHelp(View):
    facet: str
    example: str
    meaning: str


class SearchPage(Page):
    kind: Literal["search"] = "search"
    index: str = Field(description="the compact search index (api/v1/search-index.json)")
    index_script: str = Field(description="the same index as a script, for file://")
    facets: list[FacetHelp]
    examples: list[str]
    families: list[FamilyEntry]
    gpus: list[GpuEntry]
    models: list[ModelEntry]


# ------------------------------------------------------------------------------------------------
# Records ledger


class BrokenRecord(View):
    """The record a ledger row's run broke: its run and value (the run's own mirror has the rest)."""

    run: str
    value: float
    unit: str | None


class RecordRun(NamesRun, BrokenRecord):
    """A run as the ledger lists it (the run's own mirror has the rest)."""

    statistic: str | None
    implementation: Link
    baseline: bool
    evidence: Literal["reported", "reproducible", "verified", "replicated"]
    source: bool = Field(description="the implementation publishes its source")
    observed_at: datetime


class RecordRow(View):
    """A record: the current holder of a group (view "current") or one record break ("history").
    Each record is on several ledger pages, so a row names its kernel and workload by title and
    links its group (whose page and mirror link both) rather than repeat their links."""

    operation: str = Field(description="the kernel's title")
    workload: str = Field(description="the workload's title")
    cohort: Link
    gpu: str = Field(description="the GPU's slug (gpus/<slug>.html)")
    gpu_label: str
    row: RecordRun = Field(description="the holder (current) or the run that set the record (history)")
    previous: BrokenRecord | None = Field(description="the record it broke")
    improvement: float | None = Field(description="fraction of the previous record's time saved")
    set_at: datetime = Field(description="when the record was set (the observation of the run that set it)")
    current: bool = Field(description="whether it is still the group's record")
    group_size: int


class FilterLink(View):
    facet: Literal["all", "gpu", "evidence", "source"]
    value: str | None
    title: str
    url: str | None = Field(description="null when there is no static page (no record passes, or most do: filter in the page)")
    count: int
    selected: bool


class RecordsPage(Page):
    kind: Literal["records"] = "records"
    view: Literal["current", "history"]
    filter: FilterLink
    filters: list[FilterLink]
    views: list[Link]
    total: int = Field(description="rows in this view and filter, over every page")
    page_number: int
    page_count: int
    pages: list[PageLink] = Field(description="the pager: the first and last pages of this view and filter and those "
                                              "near this one, in order (each page's pager links the next)")
    rows: list[RecordRow]
    breaks: list[RecordRow] = Field(description="the latest record breaks (first page of the current view)")
    feed: str


# ------------------------------------------------------------------------------------------------
# GPUs


class FamilyCoverage(View):
    family: str
    operations: int = Field(description="operations of the family")
    measured: list[Link] = Field(description="operations with an eligible run on this GPU")
    never_measured: list[Link] = Field(description="operations without an eligible run on this GPU")
    eligible_runs: int
    with_source: int = Field(description="eligible runs whose implementation publishes its source")
    records: int
    last_observed: datetime | None


class HolderCount(View):
    implementation: Link
    operation: Link = Field(description="the operation the implementation implements")
    records: int


class GpuPage(Page):
    kind: Literal["gpu"] = "gpu"
    slug: str
    label: str
    product: str
    hardware: Link | None = Field(description="the datasheet, when one matches")
    architecture: str | None
    priority: bool
    environments: list[Link]
    runs: int
    eligible_runs: int
    records: int
    holders: list[HolderCount] = Field(description="records held on this GPU, by implementation")
    records_url: str | None = Field(description="the records ledger filtered to this GPU")
    fastest_url: str | None = Field(default=None, description="the index of fastest kernels on this GPU, where it has ranked latencies")
    coverage: list[FamilyCoverage]
    last_observed: datetime | None


class GpuSummary(View):
    slug: str
    label: str
    url: str
    architecture: str | None
    priority: bool
    eligible_runs: int
    operations: int
    records: int
    last_observed: datetime | None


class GpusPage(Page):
    kind: Literal["gpus"] = "gpus"
    gpus: list[GpuSummary]


# ------------------------------------------------------------------------------------------------
# Models


class ModelCell(View):
    gpu: str
    cohort: Link | None = Field(description="the group the best known result comes from; null: never measured")
    workload: str | None
    best: RowView | None
    best_usable: RowView | None = Field(description="when the best known result is not usable today")
    groups: int = Field(description="comparison groups of this operation on this GPU")


class ModelOperation(View):
    operation: Link
    cells: list[ModelCell]


class ModelPage(Page):
    kind: Literal["model"] = "model"
    slug: str
    gpus: list[GpuEntry]
    operations: list[ModelOperation]
    gaps: list[str] = Field(description="operation × GPU cells never measured, as 'operation · GPU'")


class ModelsPage(Page):
    kind: Literal["models"] = "models"
    models: list[ModelEntry]


# ------------------------------------------------------------------------------------------------
# Compare


class CompareFieldHelp(View):
    name: str
    title: str
    material: bool


class ComparePage(Page):
    kind: Literal["compare"] = "compare"
    min_runs: int
    max_runs: int
    fields: list[CompareFieldHelp]
    run_page: str = Field(description="a run's page, whose JSON link names its mirror; <name> is the run's name")
    run_mirror: str = Field(description="where a run's JSON is: its workload's mirror and a JSON Pointer to the run")
    run_directory: str = Field(description="digest prefix to run mirror: <xx> is the digest's first two hex digits")
    result_schema: str
    example: str | None = Field(description="a compare link for two runs of one group")


DISCOVER_PAGE_MODELS: dict[str, type[Page]] = {
    model.model_fields["kind"].default: model
    for model in (SearchPage, RecordsPage, GpuPage, GpusPage, ModelPage, ModelsPage, ComparePage)
}
