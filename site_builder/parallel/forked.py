"""One function's result, worked out in a forked copy of this process while this one goes on.

Forked, not spawned: the copy starts with everything this process has (the leaderboard, a path),
so nothing is sent to it, and only the result comes back, pickled through a pipe. The build uses
it where the second core would otherwise idle: the site's listing while the data loads, the
search index while the other site-wide files are made.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Generic, TypeVar

T = TypeVar("T")


class _Failed:
    """What the copy sends when the work raised: the exception, for this process to raise."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


class InFork(Generic[T]):
    """``work()`` in a forked copy, started now; ``result`` waits for it, once. ``nice``: how much
    lower the copy's scheduling priority is than this process's (``os.nice``), for work whose
    result is wanted only later, so that it takes a core only when no more urgent work wants it."""

    def __init__(self, work: Callable[[], T], what: str, nice: int = 0) -> None:
        self.what = what  # named in the error if the copy dies
        context = multiprocessing.get_context("fork")
        self._connection, theirs = context.Pipe(duplex=False)
        self._process = context.Process(target=_answer, args=(work, theirs, nice), daemon=True)
        self._process.start()
        theirs.close()  # so that a copy that dies is seen as the end of the pipe

    def result(self) -> T:
        """What ``work()`` returned; what it raised is raised here, and a copy that died is a RuntimeError."""
        try:
            answer = self._connection.recv()
        except EOFError:
            self._process.join()
            raise RuntimeError(f"the {self.what} process ended without answering "
                               f"(exit code {self._process.exitcode})") from None
        finally:
            self._connection.close()
        if isinstance(answer, _Failed):
            raise answer.error
        return answer

    def close(self) -> None:
        """End the copy now unless it has answered: then it ends by itself, and nothing waits for
        that (a copy of a whole build takes a noticeable while to free its memory and end)."""
        if self._connection.closed:
            return
        self._connection.close()
        self._process.terminate()
        self._process.join()


def _answer(work: Callable[[], T], connection: Connection, nice: int) -> None:
    if nice:
        os.nice(nice)
    try:
        answer: T | _Failed = work()
    except Exception as error:  # sent back for the caller to raise
        answer = _Failed(error)
    connection.send(answer)
    connection.close()
