"""Hypothesis strategies for valid data files, as the plain dicts a person would write."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import strategies as st

from schemas.common import format_utc
from schemas.kinds import RUN_STATUSES

# Text a person might type, hostile characters included ('<', '&', quotes, '#', ':'), but no line
# breaks or control characters: YAML folds those, which is YAML's rule, not ours.
text = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs"), max_codepoint=0xFFFF),
    max_size=40,
)
slug = st.from_regex(r"[a-z0-9][a-z0-9._-]{0,24}", fullmatch=True).filter(lambda s: ".." not in s)
token = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
labels = st.dictionaries(token, text, max_size=3)
moment = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2030, 12, 31)).map(
    # The canonical form keeps milliseconds, so the generated moments have no finer digits.
    lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000, tzinfo=timezone.utc))
offset_hours = st.integers(min_value=-12, max_value=14)


def written_moment(value: datetime, hours: int) -> str:
    """One moment written in another time zone: the loader must bring it back to UTC."""
    zone = timezone(timedelta(hours=hours))
    local = value.astimezone(zone)
    return local.isoformat(timespec="milliseconds")


@st.composite
def latency(draw) -> dict:
    values = sorted(draw(st.lists(st.integers(min_value=1, max_value=60_000_000_000), min_size=3, max_size=3)))
    chosen = draw(st.sets(st.sampled_from(["p20", "p80", "mean"])))
    out = {"median": values[1]}
    if "p20" in chosen:
        out["p20"] = values[0]
    if "p80" in chosen:
        out["p80"] = values[2]
    if "mean" in chosen:
        out["mean"] = draw(st.integers(min_value=1, max_value=60_000_000_000))
    return out


# References into tests/hostile/base, so generated runs link.
BASE_REFS = {
    "implementation": st.sampled_from(["liger-llama4-rope", "transformers-llama4-rope"]),
    "workload": st.just("llama4-rope-s2048"),
    "protocol": st.just("liger-bench-forward"),
    "environment": st.just("liger-bench-h100"),
}


@st.composite
def run_file(draw, name: str | None = None) -> dict:
    """A valid BenchmarkRun that links against tests/hostile/base."""
    spec = {key: draw(strategy) for key, strategy in BASE_REFS.items()}
    spec["status"] = draw(st.sampled_from(RUN_STATUSES))
    spec["timing"] = {"primaryStatistic": "median", "latencyNs": draw(latency())}
    if draw(st.booleans()):
        spec["timing"]["samples"] = draw(st.integers(min_value=1, max_value=10_000))
    if draw(st.booleans()):
        spec["sourceNative"] = {
            "source": "liger-kernel-bench",
            "externalId": draw(text),
            "metrics": draw(st.dictionaries(token, st.floats(allow_nan=False, allow_infinity=False, width=64), max_size=3)),
        }
    if draw(st.booleans()):
        spec["measurements"] = draw(st.lists(st.fixed_dictionaries({
            "metric": token, "statistic": token, "unit": st.sampled_from(["ns", "GBps", "TFLOPs", "%"]),
            "value": st.floats(min_value=0, max_value=1e12, allow_nan=False),
        }), max_size=3))
    spec["observedAt"] = written_moment(draw(moment), draw(offset_hours))
    metadata = {"name": name or draw(slug)}
    if draw(st.booleans()):
        metadata["title"] = draw(text)
    if draw(st.booleans()):
        metadata["description"] = draw(text)
    if draw(st.booleans()):
        metadata["labels"] = draw(labels)
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "BenchmarkRun", "metadata": metadata, "spec": spec}


@st.composite
def project_file(draw) -> dict:
    spec = {"name": draw(text.filter(bool))}
    if draw(st.booleans()):
        spec["kind"] = draw(st.sampled_from(["library", "individual", "vendor"]))
    if draw(st.booleans()):
        spec["repository"] = "https://" + draw(st.from_regex(r"[a-z0-9.-]{1,20}/[A-Za-z0-9_./-]{0,30}", fullmatch=True))
    if draw(st.booleans()):
        spec["packages"] = draw(st.lists(st.fixed_dictionaries({"ecosystem": token, "name": text}), max_size=2))
    return {"apiVersion": "kernelindex.dev/v1alpha1", "kind": "SoftwareProject",
            "metadata": {"name": draw(slug), "labels": draw(labels)}, "spec": spec}


__all__ = ["format_utc", "run_file", "project_file", "text", "slug", "moment"]
