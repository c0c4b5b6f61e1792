"""Test vectors shared by the node tests (test_search_js.py) and the browser tests (tests/browser)."""

from __future__ import annotations

import random

from site_builder.search.query import DTYPE_SYNONYMS, FACET_PREFIXES, vocabulary

FIXED = [
    "", "   ", "rope h100 bf16 seq=4096", "llama4-rope h100 seq=3000", "llama4-rope h100 seq=3000 hidden=4000",
    "rope h100 backward triton", "cross entropy a100", "xyzzy", "qwen", "softmax rtx3090 verified",
    "layer-norm n=5000 m=4096", "op:rope seq_len=4k", "gpu:pcie is:usable", "4096", "seq:2048 llama", "MIT python memory",
    "rope,h100,,bf16", "seq = 4096 rope", "evidence:replicated", "family:loss t=2048 v=4000", "bfloat16 half float32",
    "kernel:nope gpu:nope", "=5", "a=b", "seq=99999999999999999", "ROPE H100", "rope  op:rms-norm", "license:apache-2.0",
    "is:source is:installable rope", "gpu:h100-sxm pass:full metric:memory", "llama-4-scout", "hidden=8k seq=1k",
]


def random_queries(index: dict, count: int, seed: int = 9) -> list[str]:
    """Words from every kind of the vocabulary, axis bindings from measured shapes (and near them),
    facet prefixes, free text and noise."""
    rng = random.Random(seed)
    vocab = vocabulary(index)
    words = sorted(word for kind in vocab.values() for word in kind)
    bindings = []
    for workload in index["wl"]:
        if isinstance(workload[2], list):
            op = index["op"][workload[0]]
            for name, value in zip(op[5], workload[2]):
                bindings.append((name, value))
    aliases = sorted({alias for op in index["op"] for alias in op[6]})
    noise = ["xyzzy", "42", "seq=", "=", ":", "gpu:", "is:fast", "norm", "attention", "loss", "ent", *DTYPE_SYNONYMS]
    queries = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 6)):
            pick = rng.random()
            if pick < 0.45:
                parts.append(rng.choice(words))
            elif pick < 0.75:
                name, value = rng.choice(bindings)
                key = rng.choice([name, rng.choice(aliases)])
                value = rng.choice([value, value + 1, max(1, value // 2), value * 3])
                parts.append(f"{key}{rng.choice(['=', '=', ':', ' = '])}{value}")
            elif pick < 0.85:
                parts.append(f"{rng.choice(sorted(FACET_PREFIXES))}:{rng.choice(words)}")
            else:
                parts.append(rng.choice(noise))
        queries.append(rng.choice([" ", "  ", ", "]).join(parts))
    return queries
