"""Problems found in the data, each pinned to ``path:line:col``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        # One line per problem, whatever the message held.
        message = " ".join(self.message.split())
        return f"{self.path}:{self.line}:{self.column}: {message}"


class DataError(Exception):
    """Raised when the data has problems; carries every one of them, not only the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(set(problems))
        super().__init__("\n".join(str(p) for p in self.problems))
