"""Kernel tests run on the CPU through Triton's interpreter (set before triton is imported)."""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")
os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")


def pytest_collection_modifyitems(config, items):
    import pytest

    for item in items:
        if "tests/kernels/" in str(item.fspath).replace("\\", "/"):
            # exp2 of (finfo.min - max) * log2(e) overflows to -inf on purpose (-> 0).
            item.add_marker(pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"))
