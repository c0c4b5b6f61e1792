#!/usr/bin/env bash
# The GPU sweep behind benchmarks/RESULTS.md "Harness sweeps (issues 5 and 10)", run on an
# nvidia-h200-x2 machine from the repository root (the project is not installed there; Liger-Kernel
# travels as a wheel in .whl/). Each stage gets fresh Triton and Inductor caches, so the 1-GPU and
# 2-GPU timings both include compilation, as a first sweep on a fresh machine does.
#   usage: OUT=/some/dir harness/scripts/h200_sweep.sh STAGE...     (stages: subset1 subset2 full2 full1)
set -u
OUT=${OUT:-/tmp/harness-out}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=index,name,uuid,memory.total,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv > "$OUT/gpus.csv"
python3 -c "import torch, triton, liger_kernel, transformers; print('torch', torch.__version__, 'triton', triton.__version__, 'gpus', torch.cuda.device_count())" >> "$OUT/gpus.csv" 2>&1

HEADLINE="-w llama4-rope-b1-s2048-h8192-q32-kv8-bf16 -w fused-neighborhood-attention-b2-s128-h512-nh8-k7-d2-fp32"
HEADLINE="$HEADLINE -w multimodal-rotary-embedding-attention-sol-execbench-16-cases-seqlen1024-batchsize1"

stage() {  # stage NAME TIME_LIMIT_S ARGS...: one sweep, timed end to end (process start to files written)
  local name=$1 limit=$2; shift 2
  export TORCHINDUCTOR_CACHE_DIR=/tmp/cache-$name/inductor TRITON_CACHE_DIR=/tmp/cache-$name/triton
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout $((limit + 60)) python3 -m harness.cli "$@" --time-limit "$limit" --task-timeout 60 --out "/tmp/sweeps/$name/data" \
    --log-dir "/tmp/sweeps/$name/logs" --results-json "/tmp/sweeps/$name/results.json" > "/tmp/sweeps/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  echo "$name rc=$rc wall_s=$(python3 -c "print(round($t1 - $t0, 1))") args: $*" | tee -a "$OUT/stages.txt"
  tail -n 12 "/tmp/sweeps/$name.log"
}

mkdir -p /tmp/sweeps
for s in "$@"; do
  case $s in
    subset1) stage subset1 100 $HEADLINE -p all --cuda-graph on --devices 0 ;;
    subset2) stage subset2 100 $HEADLINE -p all --cuda-graph on --devices all ;;
    full2)   stage full2 170 --devices all ;;
    full1)   stage full1 300 --devices 0 ;;
  esac
done
tar czf "$OUT/sweeps.tgz" -C /tmp sweeps
ls -la "$OUT"
