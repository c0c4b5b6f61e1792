"""Page tasks, and what a page that shows many kernels' runs declares it shows of them.

The renderer runs tasks in the site's order; each builds one page, or a few that go together. A
rebuild keeps a task's pages, unbuilt, when the task's *signature* is the one they were built
under. How a signature is worked out is the incremental package's business
(``incremental.page_signatures``), which sets it on each task (``Task.sign_with``): nothing here
knows how, and nothing here imports it.

Two kinds of task can be signed:

- the pages of one kernel, which read its runs only (``kernels.KernelPages``);
- a ``PlannedPage``: a page that shows runs of many kernels (a hardware's, a GPU's, a model's, a
  records ledger page, a challenge list…). Its planner picks what it shows of them (its groups,
  its counts, its place in a list) as a *plan*; the page is built from that plan and the site's
  global data (every file that is not a run, and the as-of date), and its signature hashes what
  the same plan says it shows (``Plan.shows``). What a page reads of the runs is thus declared
  once, in its plan: its builder takes the plan, not the index of every run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Generic, TypeVar

from ..derive.leaderboard import Cohort
from ..page_views import Page

P = TypeVar("P", bound="Plan")


@dataclass(frozen=True, slots=True)
class Shows:
    """What a planned page shows of the runs: ``facts``, as text (counts, dates, keys, its place
    and pager in a list), and ``groups``, the keys of the groups whose rows it shows. A group
    stands for everything a row of it reads: its runs, their files and what is derived of them
    (ranks, record history, its label, its kernel's headline workload)."""

    facts: tuple[str, ...] = ()
    groups: Sequence[str] = ()


class Plan:
    """What a page shows of the runs, chosen before the page is built. A plan is a dataclass;
    ``shows`` reads its fields: a group (``Cohort``), or a list of them, by key; anything else as
    its text. A plan whose fields are many (a ledger page's rows) may say it faster itself."""

    def shows(self) -> Shows:
        facts: list[str] = []
        groups: list[str] = []
        for field in fields(self):  # type: ignore[arg-type]
            value = getattr(self, field.name)
            if isinstance(value, Cohort):
                value = [value]
            if isinstance(value, (list, tuple)) and value and isinstance(value[0], Cohort):
                groups += [cohort.key for cohort in value]
                facts.append(f"{field.name}: {len(value)} groups")  # where one list of groups ends
            else:
                facts.append(f"{field.name}: {value!r}")
        return Shows(tuple(facts), groups)


class Task:
    """A page task: called, it builds its pages. ``signature`` is None until the build's signing
    sets how to work it out (``sign_with``), and is worked out when first asked for: a rebuild asks
    before it builds anything (to know what it need not build), a build from scratch once the
    render workers are at work (``render_pool``), so hashing is not part of the planning that one
    core does while the other waits."""

    __slots__ = ("_sign", "_signature")

    def __init__(self) -> None:
        self._sign: Callable[[], str] | None = None
        self._signature: str | None = None

    def sign_with(self, sign: Callable[[], str]) -> None:
        self._sign, self._signature = sign, None

    @property
    def signature(self) -> str | None:
        if self._signature is None and self._sign is not None:
            self._signature = self._sign()
            self._sign = None  # what it read may be freed
        return self._signature

    def __call__(self) -> Iterable[Page]:
        raise NotImplementedError


class PlannedPage(Task, Generic[P]):
    """The one page ``page`` (its path), built by ``build`` from the plan ``plan`` makes. The plan
    is made once, when first needed: by a rebuild's signing, before anything is built, or by the
    build."""

    __slots__ = ("page", "_plan", "_planned", "_build")

    def __init__(self, page: str, plan: Callable[[], P], build: Callable[[P], Page]):
        super().__init__()
        self.page, self._plan, self._build = page, plan, build
        self._planned: P | None = None

    @classmethod
    def made(cls, page: str, plan: P, build: Callable[[P], Page]) -> PlannedPage[P]:
        """The page ``page`` of a plan already made."""
        task = cls(page, lambda: plan, build)
        task._planned = plan
        return task

    @property
    def plan(self) -> P:
        if self._planned is None:
            self._planned = self._plan()
        return self._planned

    def shows(self) -> Shows:
        return self.plan.shows()

    def __call__(self) -> tuple[Page]:
        return (self._build(self.plan),)


@dataclass(frozen=True, slots=True)
class Nothing(Plan):
    """The plan of a page that shows nothing of the runs (its signature is the global data's)."""


NOTHING = Nothing()
