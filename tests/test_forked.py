"""``forked.InFork``: a function's result from a forked copy, its failures raised here, and a copy
whose answer is not taken ended."""

from __future__ import annotations

import os
import signal

import pytest

from site_builder.parallel.forked import InFork


def test_the_result_is_what_the_copy_worked_out_with_what_this_process_had():
    inherited = {"pid": os.getpid()}  # never sent: the copy has it from the fork
    copy = InFork(lambda: (inherited["pid"], os.getpid()), "test")
    parent, child = copy.result()
    assert parent == os.getpid() and child != parent


def test_what_the_work_raised_is_raised_here():
    def broken():
        raise ValueError("not today")

    with pytest.raises(ValueError, match="not today"):
        InFork(broken, "test").result()


def test_a_copy_that_dies_is_named_in_the_error():
    copy = InFork(lambda: os.kill(os.getpid(), signal.SIGKILL), "slow part")
    with pytest.raises(RuntimeError, match=r"the slow part process ended without answering \(exit code -9\)"):
        copy.result()


def test_close_ends_a_copy_whose_answer_is_not_taken():
    copy = InFork(lambda: signal.pause(), "test")
    copy.close()
    assert not copy._process.is_alive()
    assert copy._process.exitcode == -signal.SIGTERM


def test_a_copy_started_nicer_runs_at_a_lower_priority():
    mine = os.nice(0)
    assert InFork(lambda: os.nice(0), "test", nice=5).result() == min(19, mine + 5)
    assert os.nice(0) == mine
