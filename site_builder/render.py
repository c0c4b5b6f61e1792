"""render: view models to HTML with one Jinja environment (autoescape on), and to JSON mirrors.

Templates live in ``templates/``; the filters here are the only place numbers become text.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from datetime import date, datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from jinja2 import FileSystemBytecodeCache, FileSystemLoader, StrictUndefined, pass_context, select_autoescape
from markupsafe import Markup
from pydantic import PlainSerializer
from pydantic_core import to_json as to_json_bytes
from pydantic_core import to_jsonable_python

from . import formatting, library_speedups, urls
from .chart_svg import ChartRenderer, spec_json
from .timeline_svg import timeline_svg
from .derive.challenges import CHALLENGE_TITLES
from .derive.eligibility import reason_text
from .derive.leaderboard import precision_label
from .derive.staleness import STALE_AFTER_DAYS
from .discover.finding_views import RecordRow, RecordRun
from .markdown import render_markdown
from .spliced import RowSplicer
from .page_views import (
    Availability, ChartView, CohortSummary, EnvironmentRef, EnvironmentView, FloorView, GroupRef, ImplementationRef,
    ImplementationView, KeptByIdentity, RunRef, Link, OperationView, Page, ProtocolRef, ProtocolView, RowView,
    SourceLink, View, WorkloadLink, WorkloadRef, WorkloadView,
)

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

MUTATION_TEXT = {
    "none": "No mutation or aliasing",
    "in_place": "Updates an input in place",
    "destination": "Writes into a caller-provided destination",
}

# What each rung of the evidence ladder means, as a sentence (levels from derive/evidence.py).
EVIDENCE_NOTES = {
    "reported": "Reported by source; not independently reproduced.",
    "reproducible": "Public source and raw evidence; not yet rerun by KernelIndex.",
    "verified": "Measured by the KernelIndex harness.",
    "replicated": "Measured by the KernelIndex harness at least twice.",
}


def evidence_note(level: str) -> str:
    return EVIDENCE_NOTES.get(level, EVIDENCE_NOTES["replicated"])


def tied_ranks(rows: list) -> set[int]:
    """The ranks more than one row shares, found once per table instead of once per row."""
    seen: set[int] = set()
    tied = set()
    for row in rows:
        (tied if row.rank in seen else seen).add(row.rank)
    return tied


def speedup(times: float) -> str:
    """2.54 → "2.54× faster than"; 0.8 → "1.25× slower than" (a ratio below one reads upside down)."""
    return f"{times:.2f}× faster than" if times >= 1 else f"{1 / times:.2f}× slower than"


def lead_and_rest(markdown: str) -> tuple[str, str]:
    """A description's first paragraph (shown) and the rest (behind "More about this kernel")."""
    lead, _, rest = markdown.strip().partition("\n\n")
    return lead, rest.strip()


def metric_name(metric: str | None) -> str:
    return (metric or "value").split(":", 1)[0].capitalize()


def pretty_json(value: Any) -> str:
    """Indented JSON for people (manifests on pages); keys keep the manifest's own order, as the
    mirrors' do not need to: pydantic-core's encoder is ten times faster than json's indenting one."""
    return to_json_bytes(value, indent=2).decode("utf-8")


def pretty_json_text(value: Any) -> Markup:
    """``pretty_json(value)`` for the inside of an element (a ``<pre>``): only ``&``, ``<`` and ``>``
    are escaped, which is all element text needs; quotes need escaping in attributes only, and a
    manifest has a hundred of them (five bytes more each, on every run page)."""
    return Markup(pretty_json(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def series_rows(chart: ChartView) -> list[tuple[Any, list]]:
    """Chart data as table rows: each x with every series' point there (or None)."""
    xs = sorted({point.x for series in chart.series for point in series.points}, key=lambda x: (isinstance(x, str), x))
    by_series = [{point.x: point for point in series.points} for series in chart.series]
    return [(x, [points.get(x) for points in by_series]) for x in xs]


# What pages print in every row of their tables, as functions rather than macros: a macro call
# cost as much as the rest of a ledger, challenge or implementation row.

def value_html(value: float | None, unit: str | None) -> Markup:
    """A primary value: the number for machines (``<data value>``), in its unit for people."""
    escape_text, fast_escape = library_speedups.escape_text, library_speedups.fast_escape
    return Markup(f'<data value="{fast_escape(value)}">{escape_text(formatting.measure(value, unit))}</data>')


_STALE_CHIP = (f' <span class="chip stale" title="not re-observed in the {STALE_AFTER_DAYS} days before the as-of date">'
               "stale</span>")


def observed_html(row: RowView) -> Markup:
    """When a row's run was observed, with a chip when that is too long ago (``derive.staleness``)."""
    moment, escape_text = row.observed_at, library_speedups.escape_text
    return Markup(f'<time datetime="{escape_text(moment.isoformat())}">{escape_text(formatting.day(moment))}</time>'
                  + (_STALE_CHIP if row.stale else ""))


def compiled_templates(cache_dir: Path, code: str) -> Path | None:
    """The folder of the templates compiled by the code whose fingerprint is ``code``
    (``fingerprint.code_fingerprint``), in the build's cache folder (None if it cannot be made);
    other code's are removed.

    Jinja checks a compiled template against its source, not against the code that compiled it,
    and ours compiles with its own code generator (``library_speedups.PageCodeGenerator``): a
    folder per version of the code, and per set of the generator's speedups in use, keeps a change
    to either from reusing templates compiled the other way."""
    folder = cache_dir / "templates" / (code[:24] + library_speedups.compiled_tag())
    try:
        if folder.parent.is_dir():
            for other in folder.parent.iterdir():
                if other != folder:
                    shutil.rmtree(other, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


class _CompiledTemplates(FileSystemBytecodeCache):
    """Jinja's compiled templates in a folder, where one that cannot be written is compiled again
    by the next build rather than failing this one (a read-only cache folder, a full disk)."""

    def dump_bytecode(self, bucket: Any) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


class Renderer:
    def __init__(self, vega_bundle: str, templates: Path = TEMPLATES, compiled: Path | None = None):
        """``compiled``: where templates compiled by an earlier build are found and new ones kept
        (``compiled_templates``). Compiling takes a fifth of a second for all of them, and every
        process that renders compiles those it renders: in a rebuild that renders ten pages,
        that is most of their cost."""
        self.charts = ChartRenderer()
        # The page being rendered, for ``url``: a global rather than a context lookup, so macros
        # can be imported without context, which Jinja then compiles once instead of per page.
        self._page_path = urls.INDEX
        self._shared: dict[tuple[str, int], Markup] = {}
        self._templates: dict[str, tuple[Any, dict[str, Any]]] = {}
        self.env = library_speedups.environment(
            loader=FileSystemLoader(str(templates)),
            autoescape=select_autoescape(["html"]),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,  # templates do not change during a build: no stat() per page
            bytecode_cache=_CompiledTemplates(str(compiled)) if compiled is not None else None,
        )
        self.env.filters.update(
            latency=formatting.latency, ratio=formatting.ratio, percent=formatting.percent, day=formatting.day,
            number=formatting.number, short_digest=formatting.short_digest, markdown=render_markdown,
            measure=formatting.measure, speedup=speedup, metric_name=metric_name, reason_text=reason_text,
            mutation_text=lambda m: MUTATION_TEXT.get(m, m), challenge_title=lambda k: CHALLENGE_TITLES.get(k, k),
            pretty_json=pretty_json, pretty_json_text=pretty_json_text, lead_and_rest=lead_and_rest,
            url=self.url_filter, evidence_note=evidence_note, isoformat=lambda moment: moment.isoformat(),
            words=formatting.words, plain=formatting.plain, drop=formatting.drop, precision_label=precision_label,
        )
        self.env.tests["latency_metric"] = lambda metric: bool(metric) and metric.startswith("latency:")
        self._rows = RowSplicer(self._render, urls.relative)
        self.env.globals.update(url=self.url, paths=urls, history_svg=self.charts.history_svg, chart_files=self.charts.files, timeline_svg=timeline_svg, spec_json=spec_json, series_rows=series_rows,
                                tied_ranks=tied_ranks, vega_bundle=vega_bundle, shared=self.shared, spliced_rows=self.spliced_rows,
                                value=value_html, observed=observed_html, source_metric=formatting.source_metric)

    def shared(self, name: str) -> Markup:
        """A template that is the same on every page at one depth (the site's navigation), rendered
        once per depth: a page then makes two dozen fewer links."""
        key = (name, self._page_path.count("/"))
        found = self._shared.get(key)
        if found is None:
            found = self._shared[key] = Markup(self.env.get_template(name).render())
        return found

    def spliced_rows(self, name: str, rows: list, **variables: Any) -> Markup:
        """Each of ``rows`` by the template ``name``, for the page being rendered: each row rendered
        once for every page that shows it (``spliced``)."""
        return self._rows.rows(name, rows, self._page_path, **variables)

    def url(self, target: str) -> str:
        """A site-root path as a link from the page being rendered."""
        return urls.relative(target, self._page_path)

    @pass_context
    def url_filter(self, _context: Any, target: str) -> str:
        """``x|url``, the same as ``url(x)`` but cheaper: Jinja calls a filter directly, and sends
        every function call through Context.call, and a page makes dozens of links. It takes the
        context only so that Jinja never folds ``'static/x.css'|url`` into a constant at compile
        time: the link depends on the page being rendered."""
        return urls.relative(target, self._page_path)

    def compile_templates(self) -> None:
        """Compile every HTML template now: done once before the render workers fork, each of them
        would otherwise compile the same templates again."""
        for name in self.env.list_templates(extensions=["html"]):
            self.env.get_template(name)

    def page(self, page: Page) -> str:
        # The fields themselves: ``getattr(page, "scaling", None)`` on a page without the field
        # goes through pydantic's __getattr__ and an AttributeError.
        fields = vars(page)
        uses_charts = bool(fields.get("scaling") or fields.get("history_chart") or fields.get("more_scaling"))
        self._page_path = page.html
        return self._render(page.template, page=page, uses_charts=uses_charts)

    def _render(self, name: str, **variables: Any) -> str:
        """``Template.render``, with the template's globals copied into a plain dict once per
        template (``library_speedups.render_template``)."""
        found = self._templates.get(name)
        if found is None:
            template = self.env.get_template(name)
            found = self._templates[name] = (template, dict(template.globals))
        return library_speedups.render_template(found[0], found[1], variables)

    def not_found(self, as_of, base_url: str = "") -> str:
        """The page a host serves for any missing address, at any depth: its links are written
        relative to the site's root, and with ``base_url`` a ``<base>`` element makes them resolve
        from there wherever the page is served (without one they work at the root only)."""
        page = SimpleNamespace(title="Not found", html=urls.NOT_FOUND, mirror=None, schema_url=None, as_of=as_of)
        self._page_path = page.html
        return self.env.get_template("404.html").render(page=page, uses_charts=False, base_url=base_url)

    def methodology_markdown(self, **constants: Any) -> str:
        """Our Markdown, with the constants the rules use filled in from the code (never retyped)."""
        return self.env.get_template("methodology.md").render(**constants)


def mirror_json(page: Page) -> str:
    """``to_json(page.model_dump(mode="json", exclude=page.said_elsewhere()))``, byte for byte,
    written straight from the view model: sorted keys, with the text of views that many pages share
    (rows, implementations, workloads, groups) and of fields marked KeptByIdentity (manifests) made
    once. Anything it is not sure to write as pydantic and json would (a float that is not finite,
    a type it does not know) sends the page down that slow path."""
    omit = page.said_elsewhere() if isinstance(page, Page) else frozenset()
    try:
        return _view_json(page, omit) + "\n"
    except _Unsure:
        return to_json(page.model_dump(mode="json", exclude=set(omit)))


class _Unsure(Exception):
    """A value ``mirror_json`` leaves to pydantic and json."""


# Views that many pages embed, each built once per build by ViewFactory: their JSON is kept by
# identity (the object is held with its text, so its id is not reused while kept). A kernel's
# workload links are on every one of its workload pages (their number squared, per kernel).
_SHARED_VIEWS = frozenset((Availability, CohortSummary, EnvironmentRef, EnvironmentView, FloorView, GroupRef,
                           ImplementationRef, ImplementationView, RunRef, Link, OperationView, ProtocolRef,
                           ProtocolView, RowView, SourceLink, WorkloadLink, WorkloadRef, WorkloadView, RecordRun))
_SHARED_LIMIT = 20_000  # kept texts; all dropped at once past this (a few MB)
_shared_json: dict[int, tuple[Any, str]] = {}  # the shared views' texts, and those of KeptByIdentity fields
# Ledger rows are kept apart, with room for every one (some 70,000 of about 900 bytes at 100,000
# runs): each is on about four ledger pages far apart in the page order (all records, its GPU's,
# its evidence levels'), and among the other shared views, eight more of which each row brings,
# they were dropped before they came round again.
_ROW_LIMIT = 100_000
_row_json: dict[int, tuple[View, str]] = {}
# Per kept view class: where its texts are kept, and how many texts that place holds at most.
_KEPT_JSON = {**{cls: (_shared_json, _SHARED_LIMIT) for cls in _SHARED_VIEWS}, RecordRow: (_row_json, _ROW_LIMIT)}
# Per view class: (the JSON of its key and a colon, field name, the field's type where the value
# alone does not say how pydantic writes it, or KeptByIdentity), sorted by key as json.dumps sorts.
_field_plans: dict[type, list[tuple[str, str, Any]]] = {}
# Field types whose serializer converts or checks (views built with model_construct may hold an
# int for a float, say); any other field is written as its value's own type, as pydantic does.
_TYPED_FIELDS = {float: float, float | None: float, date: date, datetime: datetime, datetime | None: datetime,
                 dict[str, float]: dict}
_string = json.encoder.encode_basestring  # json's own (C) string encoder, as ensure_ascii=False uses
# JSON-only containers (manifests, axes, reason lists) go to json's C encoder whole; it refuses
# views, dates and non-finite floats (TypeError, ValueError), which are then written field by field.
# The encoder json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":")) makes for each
# call, made once (no check for cycles: these are trees).
try:
    from _json import make_encoder as _make_c_encoder
except ImportError:  # pragma: no cover - a Python without json's C speedups
    _make_c_encoder = None


def _refuse(value: Any) -> Any:
    raise TypeError(type(value).__name__)


if _make_c_encoder is not None:
    _c_encode = _make_c_encoder(None, _refuse, _string, None, ":", ",", True, False, False)

    def _plain_json(value: Any) -> str:
        return "".join(_c_encode(value, 0))
else:  # pragma: no cover
    _plain_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False).encode


def _field_plan(cls: type) -> list[tuple[str, str, Any]]:
    keys = sorted((field.serialization_alias or field.alias or name, name, _field_type(field))
                  for name, field in cls.model_fields.items() if not field.exclude)  # page-only fields
    plan = _field_plans[cls] = [(_string(key) + ":", name, typed) for key, name, typed in keys]
    return plan


def _field_type(field: Any) -> Any:
    """What a field's plan says of its type: KeptByIdentity, the PlainSerializer it is written
    through (``page_views.ImplementationNamed``), a type of _TYPED_FIELDS, or None."""
    if KeptByIdentity in field.metadata:
        return KeptByIdentity
    written_as = next((item for item in field.metadata if isinstance(item, PlainSerializer)), None)
    return written_as or _TYPED_FIELDS.get(field.annotation)


def _typed_json(value: Any, typed: Any) -> str:
    kind = type(value)
    if value is None:
        return "null"
    if typed is KeptByIdentity:
        return _kept_value_json(value)
    if type(typed) is PlainSerializer:
        return _value_json(typed.func(value))
    if typed is float:
        if kind is int:  # pydantic writes a float field's int as a float
            value = float(value)
        elif kind is not float:
            raise _Unsure(value)
    elif typed is dict:
        if kind is not dict or any(type(item) is not float for item in value.values()):
            raise _Unsure(value)
    elif kind is not typed:  # a date field holding a datetime, say
        raise _Unsure(value)
    return _value_json(value)


def _view_json(view: View, omit: frozenset[str] = frozenset()) -> str:
    """``omit``: fields a page's mirror leaves out (``Page.said_elsewhere``); a page is not shared."""
    cls = type(view)
    shared = _KEPT_JSON.get(cls)
    if shared is not None:
        kept = shared[0].get(id(view))
        if kept is not None and kept[0] is view:
            return kept[1]
    fields = view.__dict__
    parts = []
    plan = _field_plans.get(cls) or _field_plan(cls)
    for key, name, typed in [field for field in plan if field[1] not in omit] if omit else plan:
        value = fields[name]
        kind = type(value)
        # Text, null and finite floats inline (most fields; what _value_json and _typed_json
        # would write); the rest by type.
        if kind is str and typed is None:
            parts.append(key + _string(value))
        elif value is None:
            parts.append(key + "null")
        elif kind is float and (typed is None or typed is float) and math.isfinite(value):
            parts.append(key + float.__repr__(value))
        elif typed is None:
            parts.append(key + _value_json(value))
        else:
            parts.append(key + _typed_json(value, typed))
    text = "{" + ",".join(parts) + "}"
    if shared is not None:
        _keep(*shared, view, text)
    return text


def _kept_value_json(value: Any) -> str:
    """The JSON of a value that many pages hold as one object (a field marked KeptByIdentity), made once."""
    return _kept_text(_shared_json, _SHARED_LIMIT, value, _value_json)


def _kept_text(texts: dict[int, tuple[Any, str]], limit: int, value: Any, make: Callable[[Any], str]) -> str:
    """``make(value)``, made once while kept in ``texts`` by identity (``_view_json`` looks its views
    up the same way, inline: it runs for every view of every page)."""
    kept = texts.get(id(value))
    if kept is not None and kept[0] is value:
        return kept[1]
    text = make(value)
    _keep(texts, limit, value, text)
    return text


def _keep(texts: dict[int, tuple[Any, str]], limit: int, value: Any, text: str) -> None:
    """Keep ``text`` for ``value`` by identity, with the value (its id is not reused while kept)."""
    if len(texts) >= limit:
        texts.clear()
    texts[id(value)] = (value, text)


def _value_json(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return _string(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        if not math.isfinite(value):  # pydantic keeps or nulls these depending on the field type
            raise _Unsure(value)
        return float.__repr__(value)
    if isinstance(value, View):
        return _view_json(value)
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        if not isinstance(value[0], View):
            try:
                return _plain_json(value)
            except (TypeError, ValueError):
                pass
        return "[" + ",".join([_value_json(item) for item in value]) + "]"
    if kind is dict:
        try:
            return _plain_json(value)
        except (TypeError, ValueError):
            pass
        if any(type(key) is not str for key in value):
            raise _Unsure(value)
        return "{" + ",".join([_string(key) + ":" + _value_json(value[key]) for key in sorted(value)]) + "}"
    if kind is date:  # as pydantic writes a date: its ISO form (a page's as-of date, at least)
        return '"' + value.isoformat() + '"'
    if kind is datetime:
        if value.tzinfo is timezone.utc:  # as pydantic writes these (every observed_at): Z for +00:00
            return '"' + value.isoformat()[:-6] + 'Z"'
        return _string(to_jsonable_python(value))
    raise _Unsure(value)


def to_json(value: Any) -> str:
    """Sorted keys and no insignificant whitespace: stable bytes, small files."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
