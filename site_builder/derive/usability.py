"""Is the measured code usable today: public source, a known licence, and an install recipe pinned
to the version that was measured (so `pip install` gets the code that set the number)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

# SPDX identifiers a reader can look up. A licence outside this list (or a LicenseRef-) is shown
# as written but counts as unknown: we cannot say what it permits.
SPDX_LICENSES = {
    name.lower(): name for name in (
        "0BSD", "AFL-3.0", "AGPL-3.0-only", "AGPL-3.0-or-later", "Apache-1.1", "Apache-2.0", "Artistic-2.0",
        "BSD-2-Clause", "BSD-2-Clause-Patent", "BSD-3-Clause", "BSD-3-Clause-Clear", "BSD-4-Clause", "BSL-1.0",
        "CC-BY-4.0", "CC-BY-SA-4.0", "CC0-1.0", "CDDL-1.0", "EPL-1.0", "EPL-2.0", "EUPL-1.2",
        "GPL-2.0-only", "GPL-2.0-or-later", "GPL-3.0-only", "GPL-3.0-or-later", "ISC",
        "LGPL-2.1-only", "LGPL-2.1-or-later", "LGPL-3.0-only", "LGPL-3.0-or-later", "MIT", "MIT-0",
        "MPL-2.0", "MS-PL", "NCSA", "OFL-1.1", "PSF-2.0", "Python-2.0", "Unlicense", "UPL-1.0", "WTFPL",
        "Zlib", "LLVM-exception",
    )
}
_OPERATORS = {"and": "AND", "or": "OR", "with": "WITH"}
_TOKEN = re.compile(r"\(|\)|[A-Za-z0-9.+-]+")

# Labels on a run that say which package release it measured, by package name.
PACKAGE_VERSION_LABELS = {"liger-kernel": "liger_version"}
GENERIC_VERSION_LABEL = "package_version"

NO_PUBLIC_SOURCE = "NO_PUBLIC_SOURCE"
NO_INSTALL_RECIPE = "NO_INSTALL_RECIPE"
INSTALL_UNPINNED = "INSTALL_UNPINNED"
LICENSE_UNKNOWN = "LICENSE_UNKNOWN"


def spdx_license(declared: str | None, concluded: str | None = None) -> str | None:
    """The concluded (else declared) licence as a known SPDX expression, case-corrected; else None."""
    text = concluded or declared
    if not text:
        return None
    parts = []
    for token in _TOKEN.findall(text):
        if token in "()":
            parts.append(token)
        elif token.lower() in _OPERATORS:
            parts.append(_OPERATORS[token.lower()])
        elif token.lower() in SPDX_LICENSES:
            parts.append(SPDX_LICENSES[token.lower()])
        else:
            return None
    if "".join(_TOKEN.findall(text)) != re.sub(r"\s+", "", text):
        return None  # characters that are neither identifiers nor operators
    return " ".join(parts).replace("( ", "(").replace(" )", ")")


def measured_version(package: str | None, labels: Mapping[str, str]) -> str | None:
    """The package release a run measured, when its labels say so (Liger runs carry liger_version)."""
    label = PACKAGE_VERSION_LABELS.get(package or "")
    if label and label in labels:
        return labels[label]
    return labels.get(GENERIC_VERSION_LABEL)


@dataclass(frozen=True, slots=True)
class InstallRecipe:
    kind: str
    package: str | None = None
    version: str | None = None
    repository: str | None = None
    commit: str | None = None
    command: str | None = None


def install_command(recipe: InstallRecipe | None, version: str | None = None) -> tuple[str | None, bool]:
    """(command a reader runs, whether it pins the measured code).

    ``version`` is the release the run measured; a pip recipe is re-pinned to it, so the page
    never offers an install of something other than what set the number.
    """
    if recipe is None:
        return None, False
    if recipe.kind == "pip" and recipe.package:
        pin = version or recipe.version
        if pin:
            return f'pip install "{recipe.package}=={pin}"', True
        return recipe.command or f"pip install {recipe.package}", _pinned_command(recipe)
    if recipe.kind == "git" and recipe.repository:
        if recipe.commit and recipe.command and f"@{recipe.commit}" in recipe.command:
            return recipe.command, True  # a command of its own (extras) that pins the commit
        if recipe.commit:
            return f"pip install git+{recipe.repository}@{recipe.commit}", True
        return recipe.command or f"pip install git+{recipe.repository}", _pinned_command(recipe)
    if recipe.command:
        return recipe.command, _pinned_command(recipe)
    return None, False


def _pinned_command(recipe: InstallRecipe) -> bool:
    command = recipe.command or ""
    if recipe.kind == "pip":
        return "==" in command or "@" in command
    if recipe.kind == "git":
        return re.search(r"@[0-9a-f]{7,40}\b", command) is not None
    if recipe.kind == "container":
        tag = command.rsplit(":", 1)[-1] if ":" in command else ""
        return "@sha256:" in command or bool(tag) and tag != "latest" and "/" not in tag
    return False


@dataclass(frozen=True, slots=True)
class Usability:
    usable: bool
    reasons: tuple[str, ...]
    install: str | None
    pinned: bool
    license: str | None  # a known SPDX expression, or None


def usability(*, public_source: bool, license: str | None, install: str | None, pinned: bool) -> Usability:
    reasons = []
    if not public_source:
        reasons.append(NO_PUBLIC_SOURCE)
    if install is None:
        reasons.append(NO_INSTALL_RECIPE)
    elif not pinned:
        reasons.append(INSTALL_UNPINNED)
    if license is None:
        reasons.append(LICENSE_UNKNOWN)
    return Usability(usable=not reasons, reasons=tuple(reasons), install=install, pinned=pinned, license=license)
