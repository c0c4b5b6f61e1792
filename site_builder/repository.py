"""The data repository as a whole: load and link every file, or report every problem."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from .gc_pause import paused_gc
from .parallel.bulk_load import load_many, save_caches
from .incremental.parse_cache import ParseCache
from .checks import future_observations
from .incremental.fingerprint import DataFiles
from .link import Catalog, link
from .load import display_path, iter_data_files
from .problems import DataError


def load_catalog(data_dir: Path, as_of: date | datetime | None = None, *, cache: bool = True,
                 files: DataFiles | None = None, parse_cache: ParseCache | None = None) -> Catalog:
    """Every file under ``data_dir``, validated and linked; raises DataError listing all problems.

    ``as_of``: the date given by ``--as-of`` or ``SOURCE_DATE_EPOCH``, if any; runs observed more
    than a day after it are errors. ``None`` compares against the wall clock (see ``checks``).
    ``cache``: False parses every file again (``--no-cache``); the result is the same either way.
    ``files``: the listing the build's fingerprint was taken from (``fingerprint.DataFiles``): the
    files it lists, with the stat data it holds, are loaded, and the folder is not listed again.
    ``parse_cache``: the data folder's parse cache, when the caller has read it already.
    """
    if not data_dir.is_dir():
        raise FileNotFoundError(f"{data_dir}: no such data folder")
    with paused_gc(keep=True):  # millions of long-lived objects, no cycles: see gc_pause.paused_gc
        return _load_and_link(data_dir, as_of, cache, files, parse_cache)


def _load_and_link(data_dir: Path, as_of: date | datetime | None, cache: bool, files: DataFiles | None,
                   parse_cache: ParseCache | None) -> Catalog:
    if files is not None and files.data_dir == data_dir:
        paths, relatives, digests = files.data_files()
    else:
        paths, relatives, digests = [str(path) for path in iter_data_files(data_dir)], None, None
    # One cache for both: it holds the files' models and, for link, the runs' digests.
    if not cache:
        parse_cache = None
    elif parse_cache is None:
        parse_cache = ParseCache.for_data(data_dir)
    documents, problems = load_many(data_dir, paths, parse_cache, relatives=relatives, digests=digests, save=False)
    problems.extend(future_observations(documents, as_of))
    # Files that failed are named to link, so references to them are not reported a second time.
    failed = {problem.path for problem in problems}
    broken = {(path.relative_to(data_dir).parts[0], path.stem) for path in map(Path, paths)
              if display_path(path) in failed} if failed else set()  # display_path resolves: only when needed
    catalog, link_problems = link(documents, broken, parse_cache)
    if parse_cache is not None:
        save_caches(data_dir, parse_cache)  # the models parsed and the digests link added
    problems.extend(link_problems)
    if problems:
        raise DataError(problems)
    return catalog
