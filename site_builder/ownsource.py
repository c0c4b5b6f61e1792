"""Where this repository's own kernels live: its URL and the commit measured, given to the build
(``--repository``/``--commit``, or KERNELINDEX_REPOSITORY/KERNELINDEX_COMMIT; pages.yml passes
GitHub's server URL, repository and SHA). With both, the bundled kernels' implementation pages
link to their source file at that commit and offer an install pinned to it, so a reader can use
the code that set the number; without, they say there is no public source, as before.

The data cannot hold these: a fork or a mirror serves the same data from another URL, and the
commit is only known when the site is built."""

from __future__ import annotations

import re
from dataclasses import dataclass

# The SoftwareProject (data/projects/kernelindex.yaml) whose implementations are this repository's.
OWN_PROJECT = "kernelindex"
# The extra that installs the kernels' dependencies (pyproject.toml).
KERNELS_EXTRA = "kernels"
_URL = re.compile(r"https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~-]+)+")
_COMMIT = re.compile(r"[0-9a-f]{7,40}")


@dataclass(frozen=True, slots=True)
class OwnSource:
    repository: str  # https://github.com/owner/name, no trailing slash
    commit: str  # the measured commit, 7 to 40 lowercase hex digits

    def file_url(self, path: str) -> str:
        """The file at the commit (GitHub, GitLab and Gitea all serve /blob/<commit>/<path>)."""
        return f"{self.repository}/blob/{self.commit}/{path.lstrip('/')}"

    def install(self) -> str:
        return f'pip install "kernelindex[{KERNELS_EXTRA}] @ git+{self.repository}@{self.commit}"'

    def describe(self) -> str:
        return f"{self.repository}@{self.commit}"


def own_source(repository: str | None, commit: str | None) -> OwnSource | None:
    """The checked pair, or None when either is missing; a malformed one raises ValueError."""
    repository = (repository or "").strip().rstrip("/").removesuffix(".git")
    commit = (commit or "").strip().lower()
    if not repository and not commit:
        return None
    if not repository or not commit:
        raise ValueError("give the repository URL and the measured commit together (--repository and --commit)")
    if not _URL.fullmatch(repository):
        raise ValueError(f"the repository must be an https:// URL such as https://github.com/owner/name, not {repository!r}")
    if not _COMMIT.fullmatch(commit):
        raise ValueError(f"the commit must be 7 to 40 hexadecimal digits, not {commit!r}")
    return OwnSource(repository, commit)
