"""Shared fixtures for the site tests: small hand-built run facts for the derive functions."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from site_builder.derive.model import RunFacts


def make_run(name: str, value_ns: float | None = 1000.0, **overrides) -> RunFacts:
    fields = dict(
        name=name, digest=f"sha256:{name:0>64}"[-71:], operation="op", workload="w", implementation=f"impl-{name}",
        protocol="p", environment="e", cohort="c", status="passed", value=value_ns,
        metric="latency:median:ns" if value_ns is not None else None,
        observed_at=datetime(2025, 8, 7, tzinfo=timezone.utc),
    )
    fields.update(overrides)
    return RunFacts(**fields)


@pytest.fixture
def run():
    return make_run
