"""The renderer's shortcuts for speed (issue 8) say the same as the long way round."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

import altair as alt

from site_builder import urls
from site_builder.charts import _config, history_chart
from site_builder.render import EVIDENCE_NOTES, Renderer, evidence_note, tied_ranks


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


def test_history_spec_is_what_altair_builds_with_the_data():
    def event(name, value, day, implementation):
        run = SimpleNamespace(name=name, value=value, unit="ns", implementation=implementation,
                              observed_at=datetime(2025, 1, day, 12, tzinfo=timezone.utc))
        return SimpleNamespace(run=run)

    events = [event("a", 2_000_000.0, 1, "x"), event("b", 1_500_000.0, 9, "y")]
    chart = history_chart(events, {"x": "X", "y": "Y"})
    rows = [{"date": "2025-01-01T12:00:00Z", "value": 2.0, "implementation": "X"},
            {"date": "2025-01-09T12:00:00Z", "value": 1.5, "implementation": "Y"}]
    expected = alt.Chart(alt.Data(values=rows)).mark_line(interpolate="step-after", point=True, strokeWidth=2).encode(
        x=alt.X("date:T", title="observed"),
        y=alt.Y("value:Q", title="record (ms)", scale=alt.Scale(zero=True)),
        tooltip=[alt.Tooltip("implementation:N"), alt.Tooltip("date:T", format="%Y-%m-%d"),
                 alt.Tooltip("value:Q", title="record (ms)", format=".4~r")],
    )
    assert chart.spec == _config(expected).to_dict(validate=False)
    # The shared frame is never changed by a chart: the next one gets its own data.
    again = history_chart(events[:1] + [event("c", 1_000_000.0, 20, "x")], {"x": "X", "y": "Y"})
    assert again.spec["data"]["values"][-1]["value"] == 1.0 and chart.spec["data"]["values"] == rows
