"""Group labels (``derive.labels``) against the rule written out plainly: per GPU, each group gets
the GPU and, in the facets' order, each facet that narrows the groups still like it, until it is
alone; facets a group lacks read as empty; ties left are broken by the key."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from site_builder.derive.labels import CohortFacets, GroupLabeller, cohort_labels

NAMES = ("pass", "metric", "cuda", "protocol")


def reference_labels(cohorts: list[CohortFacets]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for gpu in {cohort.gpu for cohort in cohorts}:
        group = [cohort for cohort in cohorts if cohort.gpu == gpu]
        if len(group) == 1:
            labels[group[0].key] = gpu
            continue
        names = [name for name, _ in group[0].facets]
        values = [dict(cohort.facets) for cohort in group]
        differing = [name for name in names if len({v.get(name, "") for v in values}) > 1]
        for cohort, mine in zip(group, values):
            chosen, twins = [], values
            for name in differing:
                narrower = [v for v in twins if v.get(name, "") == mine.get(name, "")]
                if len(narrower) < len(twins):
                    chosen.append(name)
                    twins = narrower
                if len(twins) == 1:
                    break
            labels[cohort.key] = " · ".join([gpu] + [mine[name] for name in chosen if mine.get(name)])
        counts = {label: sum(labels[c.key] == label for c in group) for label in {labels[c.key] for c in group}}
        for cohort in group:
            if counts[labels[cohort.key]] > 1:
                labels[cohort.key] += f" · group {cohort.key.removeprefix('sha256:')[:8]}"
    return labels


# Few values, so groups often share facets; a facet may be missing or empty.
facet_sets = st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(["", "a", "b"])), max_size=4, unique_by=lambda f: f[0])
cohorts = st.lists(st.tuples(st.sampled_from(["H100", "B200"]), facet_sets), min_size=1, max_size=8).map(
    lambda drawn: [CohortFacets(f"sha256:{index:08x}", gpu, tuple(facets)) for index, (gpu, facets) in enumerate(drawn)])


@given(cohorts)
def test_labels_follow_the_rule(groups):
    assert cohort_labels(groups) == reference_labels(groups)


@given(cohorts, cohorts)
def test_a_labeller_kept_across_calls_labels_as_a_fresh_one(groups, others):
    labeller = GroupLabeller(lambda facets: facets)
    assert cohort_labels(groups, labeller) == cohort_labels(groups)
    assert cohort_labels(others, labeller) == cohort_labels(others)
    assert cohort_labels(list(reversed(groups)), labeller) == cohort_labels(list(reversed(groups)))


@given(cohorts)
def test_groups_given_by_lane_are_labelled_by_their_lanes_facets(groups):
    """The derive pass names a group by its lane (what its facets are a function of), not its facets."""
    lanes = {f"lane-{index}": cohort.facets for index, cohort in enumerate(groups)}
    labeller = GroupLabeller(lanes.__getitem__)
    assert labeller.labels([(cohort.key, cohort.gpu, lane) for cohort, lane in zip(groups, lanes)]) == reference_labels(groups)
