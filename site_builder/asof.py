"""The as-of date every "stale" and "access date" is measured against; never the wall clock.

In order: ``--as-of``, else ``SOURCE_DATE_EPOCH``, else the date of the last commit that touched
the data folder, else (outside git) the newest observation in the data. Two builds of one commit
therefore agree byte for byte.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping
from datetime import date, datetime, timezone
from pathlib import Path


def from_source_date_epoch(environ: Mapping[str, str]) -> date | None:
    value = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not value:
        return None
    try:
        return datetime.fromtimestamp(int(value), tz=timezone.utc).date()
    except (ValueError, OverflowError):
        raise ValueError(f"SOURCE_DATE_EPOCH={value!r} is not a count of seconds since 1970") from None


def last_commit_date(data_dir: Path) -> date | None:
    """The committer date (UTC) of the newest commit touching ``data_dir``; None outside git."""
    try:
        result = subprocess.run(["git", "log", "-1", "--format=%ct", "--", "."], cwd=data_dir,
                                capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    stamp = result.stdout.strip()
    if result.returncode != 0 or not stamp:
        return None
    return datetime.fromtimestamp(int(stamp), tz=timezone.utc).date()


def as_of_before_loading(explicit: date | None, environ: Mapping[str, str], data_dir: Path) -> tuple[date, str] | None:
    """(the date, where it came from) when it does not depend on the data; None when it does."""
    if explicit is not None:
        return explicit, "--as-of"
    epoch = from_source_date_epoch(environ)
    if epoch is not None:
        return epoch, "SOURCE_DATE_EPOCH"
    committed = last_commit_date(data_dir)
    if committed is not None:
        return committed, "last commit touching the data"
    return None


def resolve_as_of(explicit: date | None, environ: Mapping[str, str], data_dir: Path,
                  observed: Iterable[datetime], known: tuple[date, str] | None = None) -> tuple[date, str]:
    """(the date, where it came from) for the build summary; ``known``: ``as_of_before_loading``'s answer."""
    early = known if known is not None else as_of_before_loading(explicit, environ, data_dir)
    if early is not None:
        return early
    newest = max(observed, default=None)
    if newest is not None:
        return newest.date(), "newest observation"
    return date(1970, 1, 1), "no data"
