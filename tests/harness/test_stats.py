from harness.stats import median_interval, median_is_stable, suite_mean_ns, summary_ns, to_ns


def test_ms_samples_become_integer_ns_at_least_one():
    assert to_ns([0.0813, 0.0000001, 1.5]) == [81300, 1, 1500000]


def test_summary_is_ordered_and_uses_interpolated_quantiles():
    stats = summary_ns([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 1000])
    assert stats["count"] == 11 and stats["median"] == 60 and stats["minimum"] == 10 and stats["maximum"] == 1000
    assert stats["p20"] == 30 and stats["p80"] == 90
    assert stats["mean"] == round(1550 / 11)
    assert stats["minimum"] <= stats["p20"] <= stats["median"] <= stats["p80"] <= stats["maximum"]


def test_median_interval_narrows_with_more_samples_and_ignores_one_outlier():
    noisy = [100 + (i % 7) for i in range(21)] + [10_000]
    lo, hi = median_interval(noisy)
    assert 100 <= lo <= hi <= 106
    assert median_is_stable([100.0] * 50 + [101.0] * 50, rel=0.02)
    assert not median_is_stable([50.0, 100.0, 150.0, 200.0, 250.0], rel=0.01)


def test_suite_mean_is_the_mean_of_case_medians():
    assert suite_mean_ns([100, 200, 600]) == 300
