"""The renderer's shortcuts for speed (issue 8) say the same as the long way round."""

from __future__ import annotations

import html

from datetime import datetime, timezone
from types import SimpleNamespace

from site_builder import urls
from site_builder.charts import history_chart
from site_builder.render import EVIDENCE_NOTES, Renderer, evidence_note, tied_ranks
from tests.bundled import bundled_data


def test_url_filter_links_from_the_page_being_rendered():
    renderer = Renderer(vega_bundle="vega.js")
    template = renderer.env.from_string("{{ 'static/style.css'|url }} {{ target|url }} {{ url(target) }}")
    renderer._page_path = urls.run("x")
    # A constant target must not be folded into the template when it is compiled: the link
    # depends on the page, so the same template gives another link on a page at another depth.
    assert template.render(target="index.html") == "../static/style.css ../index.html ../index.html"
    renderer._page_path = urls.INDEX
    assert template.render(target="index.html") == "static/style.css index.html index.html"
    assert template.render(target="https://example.org/<x>") == ("static/style.css https://example.org/&lt;x&gt; "
                                                                  "https://example.org/&lt;x&gt;")


def test_evidence_notes_cover_the_ladder():
    for level in ("reported", "reproducible", "verified", "replicated"):
        assert evidence_note(level) == EVIDENCE_NOTES[level]
    assert evidence_note("replicated") == "Measured by the KernelIndex harness at least twice."


def test_tied_ranks_are_the_ranks_rows_share():
    rows = [SimpleNamespace(rank=rank) for rank in (1, 2, 2, 4, 5, 5, 5)]
    assert tied_ranks(rows) == {2, 5}
    assert tied_ranks([]) == set()


def test_a_record_history_is_its_series_without_a_spec():
    def event(name, value, day, implementation):
        run = SimpleNamespace(name=name, value=value, unit="ns", implementation=implementation,
                              observed_at=datetime(2025, 1, day, 12, tzinfo=timezone.utc))
        return SimpleNamespace(run=run)

    events = [event("a", 2_000_000.0, 1, "x"), event("b", 1_500_000.0, 9, "y")]
    chart = history_chart(events, {"x": "X", "y": "Y"})
    # Drawn without Vega (chart_svg.staircase_svg) from its series, which its mirror holds.
    assert chart.spec is None and "spec" not in chart.model_dump(by_alias=True)
    assert [(p.x, p.value, p.run, p.label) for p in chart.series[0].points] == [
        ("2025-01-01T12:00:00Z", 2_000_000.0, "a", "X"), ("2025-01-09T12:00:00Z", 1_500_000.0, "b", "Y")]
    assert history_chart(events[:1], {"x": "X", "y": "Y"}) is None  # one record is a fact, not a chart


# -- The speed-ups of issue 8 (render.py): the same bytes as the long way round -------------------

import math  # noqa: E402
from datetime import date, timedelta  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from jinja2 import DictLoader, Environment, StrictUndefined, pass_context  # noqa: E402
from markupsafe import Markup, escape  # noqa: E402

from site_builder.library_speedups import PageEnvironment, fast_escape  # noqa: E402
from site_builder.page_views import Citation, KernelSummary, Link, MeasurementView, SeriesPoint, TruthfulFloor  # noqa: E402
from site_builder.render import mirror_json, to_json  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "data"
AS_OF = date(2026, 12, 2)  # after the newest observation in data/


@pytest.fixture(scope="module")
def bundled_pages():
    from site_builder.build import _methodology
    from site_builder.context import site_pages
    from site_builder.derive.leaderboard import derive_leaderboard
    from site_builder.repository import load_catalog

    if not any((DATA / "runs").rglob("*.yaml")):
        pytest.skip("data/runs/ is empty: the bundled data has not landed yet (issue 2)")
    board = derive_leaderboard(load_catalog(bundled_data()), AS_OF)
    return list(site_pages(board, _methodology(Renderer(vega_bundle="vega.js"), AS_OF)))


def test_mirror_json_is_model_dump_then_json_dumps_for_every_bundled_page(bundled_pages):
    kinds = set()
    for page in bundled_pages:
        assert mirror_json(page) == to_json(page.model_dump(mode="json", exclude=set(page.said_elsewhere()))), page.html
        kinds.add(page.kind)
    assert {"run", "group", "kernel", "records", "challenges"} <= kinds


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic warns of the odd values, on purpose here
def test_mirror_json_of_values_pydantic_writes_its_own_way():
    # model_construct keeps what it is given: an int in a float field is still written as a float.
    constructed = MeasurementView.model_construct(metric="latency", statistic="mean", unit="ns", value=5)
    nested = Citation.model_construct(accessed=date(2026, 1, 2),
                                      text='quote " and \\ and ü and \n')
    cases = [
        constructed, nested, Link(title="<a & b>", url="x.html"),
        SeriesPoint(x=3, value=1.5, run="r"), SeriesPoint(x="bf16", value=2, run="r"),
        # Not finite: a float field keeps inf (json writes Infinity), dict[str, Any] makes it null.
        TruthfulFloor(ns=math.inf, bytes=1, memory_ns=1.0, arithmetic_ns=None, flops=None, flops_dtype=None,
                      peak_tflops=None, bound="memory", times_above=math.nan),
        # A date field holding a datetime, and a field holding a type the fast path does not know.
        Citation.model_construct(accessed=datetime(2026, 1, 2, 3, tzinfo=timezone.utc),
                                 text="t"),
        Link.model_construct(title=b"bytes", url="u"),
        # Date-times as pydantic writes them: Z for UTC (with or without microseconds), else the offset.
        *(KernelSummary(operation=Link(title="t", url="u"), description=None, eligible_runs=1, workloads=1,
                        last_observed=moment, record=None, record_gpu=None, record_workload=None) for moment in (
            datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc), datetime(2026, 1, 2, 3, 4, 5, 60, tzinfo=timezone.utc),
            datetime(2026, 1, 2, tzinfo=timezone(timedelta(hours=-2))), datetime(2026, 1, 2, 3))),
    ]
    for view in cases:
        assert mirror_json(view) == to_json(view.model_dump(mode="json")), view
    assert mirror_json(constructed) == mirror_json(constructed)  # kept texts are the same texts


def test_fast_escape_is_escape():
    values = ["plain", "<b>&'\"</b>", "", 0, -3, 2**70, 1.5, 1e-7, 1e22, math.inf, True, None,
              Markup("<i>kept</i>"), date(2026, 1, 2), ["<x>"], {"a": "<"}]
    for value in values:
        assert fast_escape(value) == str(escape(value)), value


TEMPLATES = {
    "base.html": ("<title>{% block title %}{{ page.title }}{% endblock %}</title>\n"
                  "{% from 'macros.html' import item %}"
                  "<main>{% block main %}{% endblock %}</main>\n{% include 'footer.html' %}\n"),
    "macros.html": ("{% macro item(x) %}<li>{{ x.name }}</li>{% endmacro %}"
                    "{% macro wrap(x) %}<div>{{ x.name }} {{ caller() }}</div>{% endmacro %}"),
    "footer.html": "<footer>{{ page.title|upper }} {{ page.meta.spec.status }}</footer>",
    "page.html": ("{% extends 'base.html' %}{% from 'macros.html' import item, wrap %}\n"
                  "{% block title %}{{ super() }} · page{% endblock %}\n"
                  "{% block main %}{% set t = page.title %}<h1>{{ t }}</h1>\n"
                  "{% for x in page.items %}{{ item(x) }}{% if loop.last %}.{% endif %}{% endfor %}\n"
                  "{% call wrap(page.items[0]) %}called {{ page.count }}{% endcall %}\n"
                  "{% set block %}<p>{{ page.html }}</p>{% endset %}{{ block }}\n"
                  "{% filter upper %}{{ page.title }}{% endfilter %} {{ page.meta['spec'].status }} {{ page.count * 2 }}"
                  " {{ page.ratio }} {{ page.missing is defined }}\n{% endblock %}\n"),
}


def test_page_environment_renders_what_jinja_renders():
    page = SimpleNamespace(title="A <b> & c", html="<p>raw</p>", items=[SimpleNamespace(name="x<y"), SimpleNamespace(name=3)],
                           count=7, ratio=0.25, meta={"spec": {"status": "passed & <ok>"}})
    options = dict(loader=DictLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                   lstrip_blocks=True, keep_trailing_newline=True)
    expected = Environment(**options).get_template("page.html").render(page=page)
    assert PageEnvironment(**options).get_template("page.html").render(page=page) == expected
    assert "A &lt;b&gt; &amp; c" in expected and "passed &amp; &lt;ok&gt;" in expected


CALLS = {
    "macros.html": ("{% macro one(x, sep='-', end='.') %}{{ x }}{{ sep }}{{ end }}{% endmacro %}"
                    "{% macro rest(x) %}{{ x }}{{ varargs|join('+') }}{{ kwargs|dictsort|join(',') }}{% endmacro %}"
                    "{% macro around(x) %}[{{ caller(x) }}]{% endmacro %}"),
    "page.html": ("{% from 'macros.html' import one, rest, around %}{% block main %}{% set b = 1 %}"
                  "{{ one('<a>') }} {{ one(1, '&') }} {{ one(2, end='!') }} {{ one(x=3, sep=b) }} {{ one(4, '|', '?') }}"
                  " {% for i in range(2) %}{{ one(i) }}{{ rest(i, 5, k=6) }}{% endfor %}"
                  " {% call(y) around(7) %}<{{ y }}>{% endcall %} {{ range(2)|list }} {{ plain(1, k='<') }}"
                  " {{ in_context('x') }} {{ dict(a=1) }}{% endblock %}"),
}


def _stop() -> None:
    raise StopIteration


@pass_context
def _in_context(context, text: str) -> str:
    return f"{context.name}:{text}"


def _call_environment(cls, wrong_call: str):
    env = cls(loader=DictLoader({**CALLS, "wrong.html": "{% from 'macros.html' import one %}" + wrong_call}),
              autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals.update(plain=lambda *args, **kwargs: f"{args}{kwargs}", in_context=_in_context, stop=_stop)
    return env


@pytest.mark.parametrize("call", ["{{ one() }}", "{{ one(1, 2, 3, 4) }}", "{{ one(1, x=2) }}", "{{ one(1, nope=2) }}",
                                  "{{ stop() }}"])
def test_template_calls_are_what_jinja_makes_of_them(call):
    # fast_call takes the macros' and plain functions' usual calls straight: by position, by name,
    # with defaults, in loops and blocks; the rest (and wrong calls, with Jinja's own error) the
    # long way round.
    stock, fast = _call_environment(Environment, call), _call_environment(PageEnvironment, call)
    assert fast.get_template("page.html").render() == stock.get_template("page.html").render()
    assert "&lt;a&gt;-." in stock.get_template("page.html").render()
    assert "page.html:x" in stock.get_template("page.html").render()
    outcomes = []
    for env in (stock, fast):
        try:
            outcomes.append(env.get_template("wrong.html").render())
        except Exception as error:  # the same error, or the same text
            outcomes.append((type(error), str(error)))
    assert outcomes[0] == outcomes[1]


def test_renderer_pages_are_what_stock_jinja_renders(bundled_pages):
    renderer = Renderer(vega_bundle="vega.js")
    env = renderer.env
    stock = Environment(loader=env.loader, autoescape=env.autoescape, undefined=StrictUndefined, trim_blocks=True,
                        lstrip_blocks=True, keep_trailing_newline=True)
    stock.filters.update(env.filters)
    stock.tests.update(env.tests)
    stock.globals.update(env.globals)
    kinds = set()
    for page in bundled_pages[::7] + [p for p in bundled_pages if p.kind not in ("run", "group")]:
        if page.kind in kinds and page.kind not in ("run", "group"):
            continue
        kinds.add(page.kind)
        fast = renderer.page(page)
        uses_charts = bool(getattr(page, "scaling", None) or getattr(page, "history_chart", None))
        assert fast == stock.get_template(page.template).render(page=page, uses_charts=uses_charts), page.html


def test_shared_parts_are_rendered_once_per_depth():
    renderer = Renderer(vega_bundle="vega.js")
    renderer._page_path = urls.run("a")
    first = renderer.shared("_site_header.html")
    renderer._page_path = urls.run("b")
    assert renderer.shared("_site_header.html") is first and 'href="../search.html"' in first
    renderer._page_path = urls.INDEX
    assert 'href="search.html"' in renderer.shared("_site_header.html")


# -- Ledger rows rendered once and spliced into each page (spliced.py) ------------------------------

def _ledger_row(title: str, run_url: str, current: bool):
    from site_builder.discover.finding_views import BrokenRecord, RecordRow, RecordRun

    run = RecordRun.model_construct(
        run="r1", value=1234.5, unit="ns", url=run_url, statistic="median",
        implementation=Link(title=title, url=urls.implementation("impl")), baseline=True, evidence="verified",
        source=True, observed_at=datetime(2026, 1, 2, 3, tzinfo=timezone.utc))
    return RecordRow.model_construct(
        operation=title, workload="seq = 1 · bf16",
        cohort=Link(title=title, url=urls.group("g")), gpu="h100", gpu_label="H100", row=run,
        previous=BrokenRecord.model_construct(run="r0", value=1240.0, unit="ns"),
        improvement=0.004, set_at=run.observed_at, current=current, group_size=3)


def test_spliced_ledger_rows_are_the_rows_rendered_for_each_page():
    renderer = Renderer(vega_bundle="vega.js")
    spliced = renderer.env.globals["spliced_rows"]
    rows = [_ledger_row("<Ab & c>", urls.run("r1"), current=False), _ledger_row("plain", urls.run("r2"), current=True),
            _ledger_row("elsewhere", "https://example.org/run?a=1&b=2", current=False),  # the same from every page
            _ledger_row("odd \x00 title", urls.run("r4"), current=False)]  # text holding the marker itself
    # The pages of every depth the ledger has, each twice: the second time from the kept pieces.
    pages = [urls.RECORDS, urls.records("history"), urls.records("current", "gpu", "h100", 2),
             urls.records("history", "evidence", "verified", 3)]
    for page in pages + pages:
        renderer._page_path = page
        whole = "".join(renderer._render("_ledger_row.html", r=row) for row in rows)
        assert spliced("_ledger_row.html", rows) == whole, page
    assert "../../../runs/" in spliced("_ledger_row.html", rows[:1])  # links climb from the page
    assert spliced("_ledger_row.html", []) == ""


def test_a_row_holding_the_marker_between_others_keeps_its_place_and_its_text():
    from site_builder.spliced import MARK, RowSplicer

    page = "records/gpu/x.html"

    def render(name, **variables):
        # Without ``url`` among the variables, the page's own (as the renderer's global is).
        url = variables.get("url", lambda target: urls.relative(target, page))
        return f"<a href=\"{url(variables['r'])}\">{variables['r']}</a>"

    splicer = RowSplicer(render, urls.relative)
    rows = ["a.html", f"odd{MARK}.html", "b.html"]
    for _ in range(2):  # the second time from the kept texts
        assert splicer.rows("row.html", rows, page) == (
            f'<a href="../../a.html">a.html</a><a href="../../odd{MARK}.html">odd{MARK}.html</a>'
            '<a href="../../b.html">b.html</a>')


def test_a_ledger_row_says_since_beaten_only_when_it_no_longer_holds_the_record():
    renderer = Renderer(vega_bundle="vega.js")
    renderer._page_path = urls.RECORDS
    beaten, holding = _ledger_row("a", urls.run("r1"), current=False), _ledger_row("b", urls.run("r2"), current=True)
    assert "since beaten" in renderer._render("_ledger_row.html", r=beaten)
    assert "since beaten" not in renderer._render("_ledger_row.html", r=holding)


def test_a_spliced_row_is_rendered_once_for_every_page_and_flag():
    from site_builder.spliced import RowSplicer

    rendered = []

    def render(name, **variables):
        rendered.append((variables["r"], variables["history"]))
        return f"<a href=\"{variables['url'](variables['r'])}\">{variables['r']}</a>\n"

    splicer = RowSplicer(render, urls.relative)
    rows = ["a.html", "https://example.org/b"]
    assert splicer.rows("row.html", rows, "x.html", history=False) == (
        '<a href="a.html">a.html</a>\n<a href="https://example.org/b">https://example.org/b</a>\n')
    assert splicer.rows("row.html", rows, "records/gpu/x.html", history=False) == (
        '<a href="../../a.html">a.html</a>\n<a href="https://example.org/b">https://example.org/b</a>\n')
    splicer.rows("row.html", rows[:1], "x.html", history=True)
    assert rendered == [("a.html", False), ("https://example.org/b", False), ("a.html", True)]


def test_ledger_row_json_outlives_the_other_shared_views():
    # Each ledger row is on pages far apart; the other shared views turn over many times in between.
    from site_builder import render

    row = _ledger_row("kept", urls.run("r1"), current=True)
    text = mirror_json(row)
    for number in range(render._SHARED_LIMIT + 1):
        mirror_json(Link(title=str(number), url="x.html"))
    assert render._row_json[id(row)] == (row, text[:-1])
    assert text == to_json(row.model_dump(mode="json"))


# -- Run pages: shared documents referred to, not copied (issue 24) ---------------------------------

def test_run_pages_refer_to_their_shared_documents_built_once(bundled_pages):
    runs = [page for page in bundled_pages if page.kind == "run"]
    by_protocol = {}
    for page in runs:
        protocol = page.details.protocol
        assert by_protocol.setdefault(protocol.name, protocol) is protocol
        assert protocol.mirror == urls.mirror(protocol.url) and protocol.digest == page.run["spec"]["protocolDigest"]
        environment = page.details.environment
        assert environment.mirror == urls.mirror(environment.url)
        assert environment.digest == page.run["spec"]["environmentDigest"]
        assert page.details.workload.digest == page.run["spec"]["workloadDigest"]
    assert len(by_protocol) < len(runs)


def test_pretty_json_text_escapes_what_element_text_needs():
    from site_builder.render import pretty_json, pretty_json_text

    run = {"apiVersion": "v1", "spec": {"list": [1, {"text": "x\ny <&> ü \"q\" 'a'"}], "empty": {}, "ratio": 1.5}}
    text = pretty_json_text(run)
    assert type(text) is Markup and "&lt;&amp;&gt;" in text and '\\"q\\"' in text
    assert html.unescape(str(text)) == pretty_json(run)
    assert "<" not in text and ">" not in text
    assert pretty_json_text({}) == "{}"


def test_day_is_strftime():
    from site_builder.formatting import day

    moments = [date(2026, 1, 2), date(999, 12, 31), date(5, 6, 7), datetime(2024, 2, 29, 23, 59, tzinfo=timezone.utc),
               datetime(1, 1, 1)]
    for moment in moments:
        assert day(moment) == moment.strftime("%Y-%m-%d")
    assert day("2026-01-02T03:04:05Z") == "2026-01-02" and day(None) == "–"
