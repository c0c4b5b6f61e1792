"""A paged KV cache's page pool is left out of the floor: a paged kernel reads only the pages its
indices list, so counting the whole pool put the floor above real FlashInfer-Bench runs (86 of
them were flagged implausible and not ranked before)."""

from __future__ import annotations

from pathlib import Path

from site_builder.canonical_yaml import load_plain
from site_builder.importers.kernelindex_export import page_pools

ROOT = Path(__file__).resolve().parents[1]


def _tensor(name: str, shape: list[str], dtype: str = "bf16") -> dict:
    return {"name": name, "tensor": {"shape": shape, "dtype": dtype}}


def test_the_page_pool_inputs_are_found_by_their_leading_axis():
    spec = {"inputs": [
        _tensor("q", ["batch_size", "num_qo_heads", "head_dim"]),
        _tensor("k_cache", ["num_pages", "page_size", "num_kv_heads", "head_dim"]),
        _tensor("v_cache", ["num_pages", "page_size", "num_kv_heads", "head_dim"]),
        _tensor("kv_indices", ["num_kv_indices"], "int32"),
        _tensor("pages_seen", ["batch_size", "num_pages"], "int32"),  # num_pages, but not a pool of pages
        {"name": "sm_scale", "scalar": {"dtype": "fp32"}},
    ]}
    assert page_pools(spec) == ["k_cache", "v_cache"]
    assert page_pools({"inputs": [_tensor("x", ["n", "d"]), _tensor("s", [])]}) == []
    assert page_pools({}) == []


def test_every_bundled_kernel_with_a_page_pool_leaves_it_out_of_the_floor():
    kernels = sorted((ROOT / "data" / "kernels").glob("*.yaml"))
    paged = 0
    for path in kernels:
        document = load_plain(path.read_text(encoding="utf-8"))
        pools = page_pools(document["spec"])
        if pools:
            paged += 1
            assert set(pools) <= set(document["metadata"].get("floorExcludes") or []), path.name
    assert paged > 0 or not kernels  # FlashInfer-Bench's paged attention kernels are bundled
