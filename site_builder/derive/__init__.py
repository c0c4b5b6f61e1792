"""derive: every figure a reader sees, as pure functions of the linked data and one as-of date.

Each module computes one kind of figure from small plain inputs (``RunFacts`` and numbers), so it
can be unit-tested without YAML files. ``leaderboard.derive_leaderboard`` is the one place that
reads the linked ``Catalog`` and applies them all.
"""
