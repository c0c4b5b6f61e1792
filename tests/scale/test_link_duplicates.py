"""link's quick test for duplicate runs agrees with the full check it stands in for."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from site_builder.link import _any_duplicates, _duplicates_in


def _run(external: tuple[str, str | None] | None, digest: str) -> SimpleNamespace:
    native = None if external is None else SimpleNamespace(source=external[0], externalId=external[1])
    spec = SimpleNamespace(sourceNative=native)
    document = SimpleNamespace(model=SimpleNamespace(spec=spec), display=f"runs/{digest}.yaml",
                               problem=lambda message, *location: message)
    # One implementation, workload, protocol and environment for all: external ids clash within them.
    refs = {name: SimpleNamespace(digest=f"sha256:{name}") for name in ("implementation", "workload", "protocol", "environment")}
    return SimpleNamespace(spec=spec, document=document, digest=digest, refs=refs)


_EXTERNALS = st.none() | st.tuples(st.sampled_from(["a", "b"]), st.none() | st.sampled_from(["", "1", "2", "3"]))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(_EXTERNALS, st.sampled_from("pqrstuvw")), max_size=8))
def test_any_duplicates_is_whether_duplicates_in_finds_one(runs: list) -> None:
    entities = [_run(external, digest) for external, digest in runs]
    refs = tuple(f"sha256:{name}" for name in ("implementation", "workload", "protocol", "environment"))
    externals = [(*external, *refs) for external, _ in runs if external is not None and external[1]]  # as link collects them
    assert _any_duplicates(externals, [digest for _, digest in runs]) == bool(_duplicates_in(entities))
