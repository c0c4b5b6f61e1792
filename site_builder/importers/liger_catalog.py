"""Which kernel each Liger-Kernel benchmark measured, and how its CSV rows name that kernel's axes.

One entry per ``kernel_name`` that Liger's ``all_benchmark_data.csv`` or its published gh-pages
history uses. An entry says which OperationSpec (``data/kernels/<operation>.yaml``, written by a
person) the rows measure, and maps every integer parameter a row carries (its ``x_name`` and the
integer keys of ``extra_benchmark_config_str``, under every name the scripts used over time) onto
that operation's axes. Nothing here is guessed at import time: a parameter the entry does not
name is an error, so a script that grows a new knob is noticed instead of silently becoming an axis.

Axis names are the ones the importer has always written (the CSV's names, lowercased), because
workload and run names are built from them and those names are URLs. Where the CSV's name is
ambiguous across sweeps (``H`` vs ``hidden_size``), the entry folds both onto one axis.

A kernel_name missing here still imports, as an *undeclared* kernel (see ``liger.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Liger's own spelling of the benchmarked dtype, as ``extra_benchmark_config_str`` writes it.
TORCH_DTYPES = {"torch.float32": "fp32", "torch.bfloat16": "bf16", "torch.float16": "fp16"}

# Config keys that describe how a sweep was laid out, not the inputs (fused_moe names its x axis).
SWEEP_KEYS = frozenset({"sweep_dim"})


@dataclass(frozen=True)
class LigerKernel:
    """How the rows of one Liger ``kernel_name`` bind the axes of one declared OperationSpec."""

    operation: str  # data/kernels/<operation>.yaml
    script: str  # the benchmark script that wrote the rows (its shapes are the facts the spec records)
    axes: Mapping[str, str]  # CSV name (x_name or integer config key) -> axis
    # axis -> the two CSV names whose product it is (jsd's vocab sweep records B and T, not B·T).
    products: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # Axes the script fixes without recording them (it builds q as [1, seq, heads, head_dim]).
    implied: Mapping[str, int] = field(default_factory=dict)
    # Integer config keys that are settings, not sizes (a target value to ignore, a reduction dim).
    integer_settings: frozenset[str] = frozenset()
    # Integer config keys that only bounded a sweep and shape nothing (jsd's bsz and seq_len).
    ignored: frozenset[str] = frozenset()
    # Settings the spec's tensors presuppose (FNA declares biases, so bias must be true).
    assumed: Mapping[str, Any] = field(default_factory=dict)
    # The rows carry no dtype; the script creates its inputs in this one.
    script_dtype: str | None = None
    # (axis, abbreviation) in workload-name order; None: every row axis sorted, named in full.
    name_parts: tuple[tuple[str, str], ...] | None = None


def _same(*names: str) -> dict[str, str]:
    """CSV names that are already the axis names, lowercased (the importer's historical naming)."""
    return {name: name.lower() for name in names}


_ROPE_AXES = {"H": "hidden_size", "hidden_size": "hidden_size", "T": "seq_len", "seq_len": "seq_len",
              "num_q_heads": "num_q_heads", "num_kv_heads": "num_kv_heads"}
# The chunked preference and RL losses: x is B, the config gives T, H and V (later scripts spell
# them hidden_size and vocab_size).
_LM_HEAD_BTHV = {**_same("B", "T", "H", "V"), "hidden_size": "h", "vocab_size": "v"}
_LM_HEAD_BT_HV = {**_same("BT", "H", "V"), "hidden_size": "h", "vocab_size": "v"}
_GLU_MLP = _same("T", "hidden_size", "intermediate_size")

CATALOG: dict[str, LigerKernel] = {
    "cross_entropy": LigerKernel("cross-entropy", "benchmark_cross_entropy.py", _same("B", "T", "V"), script_dtype="fp32"),
    "distill_cosine_loss": LigerKernel("distill-cosine-loss", "benchmark_distill_cosine_loss.py", _LM_HEAD_BT_HV,
                                       integer_settings=frozenset({"ignore_index"}), assumed={"bias": False}),
    "distill_jsd_loss": LigerKernel("distill-jsd-loss", "benchmark_distill_jsd_loss.py", _LM_HEAD_BT_HV,
                                    integer_settings=frozenset({"ignore_index"}), assumed={"bias": False}),
    "dpo_loss": LigerKernel("dpo-loss", "benchmark_dpo_loss.py", _LM_HEAD_BTHV,
                            integer_settings=frozenset({"ignore_index"}), assumed={"bias": True}),
    "dyt_beta=False": LigerKernel("dyt-beta-false", "benchmark_dyt.py", _same("BT", "hidden_size"),
                                   assumed={"beta": False}),
    "dyt_beta=True": LigerKernel("dyt-beta-true", "benchmark_dyt.py", _same("BT", "hidden_size"), assumed={"beta": True}),
    "embedding": LigerKernel("embedding", "benchmark_embedding.py", _same("B", "T", "V", "D")),
    "fused_add_rms_norm": LigerKernel("fused-add-rms-norm", "benchmark_fused_add_rms_norm.py", _same("M", "H")),
    "fused_linear_cpo_loss": LigerKernel("fused-linear-cpo-loss", "benchmark_cpo_loss.py", _LM_HEAD_BTHV),
    "fused_linear_cross_entropy": LigerKernel("fused-linear-cross-entropy", "benchmark_fused_linear_cross_entropy.py",
                                              _LM_HEAD_BT_HV),
    "fused_linear_grpo_loss_sequence": LigerKernel("fused-linear-grpo-loss-sequence", "benchmark_grpo_loss.py",
                                                   _LM_HEAD_BTHV),
    "fused_linear_grpo_loss_token": LigerKernel("fused-linear-grpo-loss-token", "benchmark_grpo_loss.py", _LM_HEAD_BTHV),
    "fused_linear_jsd": LigerKernel("fused-linear-jsd", "benchmark_fused_linear_jsd.py", _LM_HEAD_BT_HV),
    "fused_linear_orpo_loss": LigerKernel("fused-linear-orpo-loss", "benchmark_orpo_loss.py", _LM_HEAD_BTHV),
    "fused_linear_simpo_loss": LigerKernel("fused-linear-simpo-loss", "benchmark_simpo_loss.py", _LM_HEAD_BTHV),
    # One of T and E is the swept x; the config names the other (and holds null for the swept one).
    "fused_moe": LigerKernel("fused-moe", "benchmark_fused_moe.py", _same("T", "E", "H", "K", "intermediate_dim")),
    "fused_neighborhood_attention": LigerKernel(
        "fused-neighborhood-attention", "benchmark_fused_neighborhood_attention.py",
        {"seq_len": "seq", "batch_size": "batch", "hidden_size": "hidden", "num_heads": "heads",
         "kernel_size": "kernel_size", "dilation": "dilation"},
        assumed={"bias": True},
        name_parts=(("batch", "b"), ("seq", "s"), ("hidden", "h"), ("heads", "nh"), ("kernel_size", "k"),
                    ("dilation", "d")),
    ),
    "geglu": LigerKernel("geglu", "benchmark_geglu.py", {**_GLU_MLP, "bsz": "bsz"}),
    "group_norm": LigerKernel("group-norm", "benchmark_group_norm.py", _same("M", "C", "H", "channels_per_group")),
    # The vocabulary sweep records B and T, the later BT sweep records B·T as x (its bsz and seq_len
    # only bounded the sweep); both feed the loss a [B·T, V] pair.
    "jsd": LigerKernel("jsd", "benchmark_jsd.py", {"BT": "bt", "V": "v", "vocab_size": "v"},
                       products={"bt": ("B", "T")}, ignored=frozenset({"bsz", "seq_len"}), script_dtype="fp32"),
    "kl_div": LigerKernel("kl-div", "benchmark_kl_div.py", _same("B", "T", "V"), script_dtype="fp32"),
    "kto_loss": LigerKernel("kto-loss", "benchmark_kto_loss.py", _LM_HEAD_BTHV,
                            integer_settings=frozenset({"ignore_index"}), assumed={"bias": True}),
    "layer_norm": LigerKernel("layer-norm", "benchmark_layer_norm.py", _same("M", "N")),
    "llama4_rope": LigerKernel(
        "llama4-rope", "benchmark_llama4_rope.py",
        {"H": "hidden", "hidden_size": "hidden", "T": "seq", "seq_len": "seq",
         "num_q_heads": "q_heads", "num_kv_heads": "kv_heads"},
        implied={"batch": 1},
        name_parts=(("batch", "b"), ("seq", "s"), ("hidden", "h"), ("q_heads", "q"), ("kv_heads", "kv")),
    ),
    "megatron_cross_entropy": LigerKernel("megatron-cross-entropy", "benchmark_megatron_cross_entropy.py",
                                          _same("B", "S", "TP", "V"), script_dtype="bf16"),
    "megatron_rms_norm": LigerKernel("megatron-rms-norm", "benchmark_megatron_rms_norm.py", _same("B", "S", "H"),
                                     script_dtype="bf16"),
    "megatron_swiglu": LigerKernel("megatron-swiglu", "benchmark_megatron_swiglu.py", _same("B", "S", "ffn_local"),
                                   script_dtype="bf16"),
    "multi_token_attention": LigerKernel("multi-token-attention", "benchmark_multi_token_attention.py",
                                         _same("B", "C_in", "C_out", "K", "L", "groups"), assumed={"bias": True}),
    "poly_norm": LigerKernel("poly-norm", "benchmark_poly_norm.py", _same("M", "H")),
    # Built as [1, seq, heads, head_dim] then transposed: batch 1, unrecorded.
    "qwen2vl_mrope": LigerKernel("qwen2vl-mrope", "benchmark_qwen2vl_mrope.py", _ROPE_AXES, implied={"batch": 1}),
    "relu_squared": LigerKernel("relu-squared", "benchmark_relu_squared.py", _same("M", "N")),
    "rms_norm": LigerKernel("rms-norm", "benchmark_rms_norm.py", _same("M", "H")),
    "rope": LigerKernel("rope", "benchmark_rope.py", _ROPE_AXES, implied={"batch": 1}),
    "softmax": LigerKernel("softmax", "benchmark_softmax.py", _same("M", "N")),
    "sparse_multi_token_attention": LigerKernel("sparse-multi-token-attention",
                                                "benchmark_sparse_multi_token_attention.py",
                                                _same("B", "C_in", "C_out", "K", "L", "groups"), assumed={"bias": True}),
    "sparsemax": LigerKernel("sparsemax", "benchmark_sparsemax.py", _same("B", "T", "V"),
                             integer_settings=frozenset({"dim"})),
    "swiglu": LigerKernel("swiglu", "benchmark_swiglu.py", {**_GLU_MLP, "B": "b"}),
    "tiled_geglu": LigerKernel("tiled-geglu", "benchmark_tiled_mlp.py", {**_GLU_MLP, "bsz": "bsz", "num_shards": "num_shards"}),
    "tiled_swiglu": LigerKernel("tiled-swiglu", "benchmark_tiled_mlp.py",
                                {**_GLU_MLP, "bsz": "bsz", "num_shards": "num_shards"}),
    "tvd": LigerKernel("tvd", "benchmark_tvd.py", _same("B", "T", "V"), script_dtype="fp32"),
}


def entry(kernel: str) -> LigerKernel | None:
    """The catalogue's entry for a Liger kernel_name, or None when nobody has declared it yet."""
    return CATALOG.get(kernel)
