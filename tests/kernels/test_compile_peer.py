"""The torch.compile peer specialises per shape (issue 26): with torch's default, a dimension turns
dynamic when a second shape arrives, so a sweep's figures depended on the order it visited shapes."""

from __future__ import annotations

import torch

from kernels import _compile


def test_the_peer_compiles_with_dynamic_false_and_once_per_key(monkeypatch):
    calls = []

    def fake_compile(fn, **options):
        calls.append(options)
        return fn

    monkeypatch.setattr(torch, "compile", fake_compile)
    monkeypatch.setattr(_compile, "_COMPILED", {})
    peer = _compile.compiled("test-peer", lambda x: x + 1)
    assert peer(1) == 2 and peer(2) == 3
    assert calls == [{"dynamic": False}]
    _compile.compiled("test-peer-2", lambda x: x, dynamic=True)(0)
    assert calls[-1] == {"dynamic": True}  # a caller may still ask for dynamic shapes
