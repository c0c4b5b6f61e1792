"""incremental: what one build leaves for the next, so that a rebuild redoes only what changed.

Nothing here changes what a build writes, only how much of it is redone: ``kernelindex build
--no-cache`` skips all of it, and tests compare the two byte for byte
(``tests/scale/test_incremental_build.py``). The rest of the builder reaches it through
``previous_build`` (is the site up to date, what can be reused, record this build) and the
parse cache the load is handed.

- ``fingerprint``: one hash of everything a build's output depends on;
- ``stat_index``: a data file's hash found by its ``lstat``, so an unchanged file is not read;
- ``parse_cache``: a data file's validated model, found by the hash of its path and bytes;
- ``site_manifest``: every file of the site on disk, and what built it;
- ``page_signatures``: which pages cannot have changed, decided before building them;
- ``previous_build``: the build's one interface to all of the above.
"""
