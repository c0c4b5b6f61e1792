"""Kernel families and model shapes the synthetic repository is made of.

A kernel is a family (what it computes) bound to one model's dimensions (constant axes), with
two or three variable axes that workloads sweep. The shapes are those of real LLM layers, so byte
counts, floors and latencies land where real runs land.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Model:
    slug: str
    hidden: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads


MODELS = (
    Model("llama-3-8b", 4096, 32, 8, 14336, 128256),
    Model("llama-3-70b", 8192, 64, 8, 28672, 128256),
    Model("llama-4-scout", 5120, 40, 8, 8192, 202048),
    Model("qwen2.5-7b", 3584, 28, 4, 18944, 152064),
    Model("qwen3-32b", 5120, 64, 8, 25600, 151936),
    Model("mistral-7b", 4096, 32, 8, 14336, 32768),
    Model("gemma-2-9b", 3584, 16, 8, 14336, 256000),
    Model("phi-3-mini", 3072, 32, 32, 8192, 32064),
    Model("deepseek-v3", 7168, 128, 128, 18432, 129280),
    Model("gpt-oss-20b", 2880, 64, 8, 2880, 201088),
    Model("mixtral-8x7b", 4096, 32, 8, 14336, 32000),
    Model("olmo-2-7b", 4096, 32, 32, 11008, 100352),
)


@dataclass(frozen=True)
class Family:
    """One kind of kernel. Axis specs: ``"var"``, ``"const:<model attribute>"`` or an expression."""

    slug: str
    title: str
    axes: dict[str, str]
    inputs: list[tuple[str, list[str], str]]
    outputs: list[tuple[str, list[str], str]]
    semantics: str
    sweeps: dict[str, list[int]]
    dtypes: list[str] = field(default_factory=lambda: ["bf16", "fp16", "fp32"])
    flops: str | None = None
    # Compute-bound kernels reach a smaller share of peak bandwidth; this shifts their latency.
    compute_bound: bool = False


_BS = {"batch": [1, 2, 4, 8, 16], "seq": [512, 1024, 2048, 4096, 8192]}

FAMILIES = (
    Family("rms_norm", "RMSNorm", {"batch": "var", "seq": "var", "hidden": "const:hidden"},
           [("x", ["batch", "seq", "hidden"], "float"), ("weight", ["hidden"], "float")],
           [("y", ["batch", "seq", "hidden"], "float")],
           "y = x / sqrt(mean(x^2) + eps) * weight", _BS, flops="4 * batch * seq * hidden"),
    Family("layer_norm", "LayerNorm", {"batch": "var", "seq": "var", "hidden": "const:hidden"},
           [("x", ["batch", "seq", "hidden"], "float"), ("weight", ["hidden"], "float"), ("bias", ["hidden"], "float")],
           [("y", ["batch", "seq", "hidden"], "float")],
           "y = (x - mean(x)) / sqrt(var(x) + eps) * weight + bias", _BS, flops="8 * batch * seq * hidden"),
    Family("fused_add_rms_norm", "Fused residual add + RMSNorm",
           {"batch": "var", "seq": "var", "hidden": "const:hidden"},
           [("x", ["batch", "seq", "hidden"], "float"), ("residual", ["batch", "seq", "hidden"], "float"),
            ("weight", ["hidden"], "float")],
           [("y", ["batch", "seq", "hidden"], "float"), ("residual_out", ["batch", "seq", "hidden"], "float")],
           "residual_out = x + residual; y = rms_norm(residual_out) * weight", _BS, flops="5 * batch * seq * hidden"),
    Family("rope", "Rotary position embedding",
           {"batch": "var", "seq": "var", "q_heads": "const:heads", "kv_heads": "const:kv_heads",
            "head_dim": "const:head_dim", "half_head_dim": "head_dim // 2"},
           [("q", ["batch", "seq", "q_heads", "head_dim"], "float"), ("k", ["batch", "seq", "kv_heads", "head_dim"], "float"),
            ("freqs_cis", ["batch", "seq", "half_head_dim"], "complex64")],
           [("q_out", ["batch", "seq", "q_heads", "head_dim"], "float"), ("k_out", ["batch", "seq", "kv_heads", "head_dim"], "float")],
           "rotate interleaved pairs of q and k by freqs_cis", _BS,
           flops="6 * batch * seq * (q_heads + kv_heads) * half_head_dim"),
    Family("swiglu", "SwiGLU", {"batch": "var", "seq": "var", "intermediate": "const:intermediate"},
           [("gate", ["batch", "seq", "intermediate"], "float"), ("up", ["batch", "seq", "intermediate"], "float")],
           [("out", ["batch", "seq", "intermediate"], "float")],
           "out = silu(gate) * up", _BS, flops="5 * batch * seq * intermediate"),
    Family("geglu", "GeGLU", {"batch": "var", "seq": "var", "intermediate": "const:intermediate"},
           [("gate", ["batch", "seq", "intermediate"], "float"), ("up", ["batch", "seq", "intermediate"], "float")],
           [("out", ["batch", "seq", "intermediate"], "float")],
           "out = gelu_tanh(gate) * up", _BS, flops="9 * batch * seq * intermediate"),
    Family("softmax", "Row softmax", {"rows": "var", "cols": "var"},
           [("x", ["rows", "cols"], "float")], [("y", ["rows", "cols"], "float")],
           "y = exp(x - max(x)) / sum(exp(x - max(x))) over the last axis",
           {"rows": [1024, 2048, 4096, 8192, 16384], "cols": [1024, 2048, 4096, 8192, 32768]},
           flops="5 * rows * cols"),
    Family("cross_entropy", "Cross-entropy loss",
           {"batch": "var", "seq": "var", "vocab": "const:vocab", "tokens": "batch * seq"},
           [("logits", ["tokens", "vocab"], "float"), ("target", ["tokens"], "int64")],
           [("loss", ["tokens"], "fp32")],
           "loss = logsumexp(logits) - logits[target]",
           {"batch": [1, 2, 4, 8], "seq": [256, 512, 1024, 2048]}, flops="5 * tokens * vocab"),
    Family("kl_div", "KL divergence",
           {"batch": "var", "seq": "var", "vocab": "const:vocab", "tokens": "batch * seq"},
           [("input", ["tokens", "vocab"], "float"), ("target", ["tokens", "vocab"], "float")],
           [("loss", ["tokens"], "fp32")],
           "loss = sum(target * (log(target) - input))",
           {"batch": [1, 2, 4, 8], "seq": [256, 512, 1024, 2048]}, flops="4 * tokens * vocab"),
    Family("embedding", "Embedding lookup",
           {"batch": "var", "seq": "var", "vocab": "const:vocab", "dim": "const:hidden"},
           [("table", ["vocab", "dim"], "float"), ("ids", ["batch", "seq"], "int64")],
           [("out", ["batch", "seq", "dim"], "float")],
           "out[b, s] = table[ids[b, s]]", _BS),
    Family("attention", "Causal grouped-query attention",
           {"batch": "var", "seq": "var", "heads": "const:heads", "kv_heads": "const:kv_heads", "head_dim": "const:head_dim"},
           [("q", ["batch", "heads", "seq", "head_dim"], "float"), ("k", ["batch", "kv_heads", "seq", "head_dim"], "float"),
            ("v", ["batch", "kv_heads", "seq", "head_dim"], "float")],
           [("o", ["batch", "heads", "seq", "head_dim"], "float")],
           "o = softmax(q k^T / sqrt(head_dim) + causal mask) v",
           {"batch": [1, 2, 4, 8], "seq": [512, 1024, 2048, 4096, 8192]}, dtypes=["bf16", "fp16"],
           flops="2 * batch * heads * seq * seq * head_dim", compute_bound=True),
    Family("linear", "Linear projection (GEMM)",
           {"tokens": "var", "in_features": "var", "out_features": "var"},
           [("x", ["tokens", "in_features"], "float"), ("w", ["out_features", "in_features"], "float")],
           [("y", ["tokens", "out_features"], "float")],
           "y = x w^T",
           {"tokens": [128, 512, 2048, 8192], "in_features": [2048, 4096, 8192], "out_features": [4096, 8192, 14336]},
           dtypes=["bf16", "fp16", "fp8_e4m3"], flops="2 * tokens * in_features * out_features", compute_bound=True),
)
