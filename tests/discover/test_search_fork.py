"""The search index made in a forked copy of the build (``discover.outputs``, through ``forked``):
the same files as made here, failures reach the build, and a copy whose answer is not taken is ended."""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest

from site_builder.discover import outputs
from site_builder.parallel.forked import InFork
from site_builder.search.index import index_json, search_parts


def test_the_forked_copy_sends_the_search_index_as_made_here(board):
    head, shards = search_parts(board)
    search = InFork(lambda: outputs.search_texts(board), "search index")
    try:
        assert search.result() == (index_json(head), [(name, index_json(shard)) for name, shard in shards.items()])
    finally:
        search.close()


def test_discover_outputs_yields_every_search_file_and_registers_it(board, pages_listed):
    mirrors = pages_listed
    files = {path: content for path, content, _ in outputs.discover_outputs(board, mirrors, [])}
    head, shards = outputs.search_texts(board)
    assert files[outputs.urls.SEARCH_INDEX] == head
    for operation, text in shards:
        assert files[outputs.urls.search_shard(operation)] == text
    registered = {entry.mirror for entry in mirrors.entries if entry.kind in ("search-index", "search-shard")}
    assert registered == {outputs.urls.SEARCH_INDEX, *(outputs.urls.search_shard(operation) for operation, _ in shards)}


def test_a_failure_in_the_copy_fails_the_build(board, pages_listed, monkeypatch):
    def broken(_board):
        raise ValueError("no index today")

    monkeypatch.setattr(outputs, "search_texts", broken)  # the fork inherits the patched module
    with pytest.raises(ValueError, match="no index today"):
        list(outputs.discover_outputs(board, pages_listed, []))


def test_a_copy_that_dies_fails_the_build(board, pages_listed, monkeypatch):
    monkeypatch.setattr(outputs, "search_texts", lambda _board: os.kill(os.getpid(), signal.SIGKILL))
    with pytest.raises(RuntimeError, match="ended without answering"):
        list(outputs.discover_outputs(board, pages_listed, []))


def test_a_build_that_stops_early_ends_the_copy(board, pages_listed):
    before = set(multiprocessing.active_children())  # copies of earlier tests may still be ending
    made = outputs.discover_outputs(board, pages_listed, [])
    next(made)  # the copy is started, and its answer is never taken
    started = set(multiprocessing.active_children()) - before
    assert len(started) == 1
    made.close()
    assert not any(process.is_alive() for process in started)
