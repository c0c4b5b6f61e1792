"""Staleness, measured against the build's as-of date (never the wall clock)."""

from __future__ import annotations

from datetime import date, datetime

STALE_AFTER_DAYS = 180


def is_stale(observed_at: datetime, as_of: date) -> bool:
    return (as_of - observed_at.date()).days > STALE_AFTER_DAYS
