#!/usr/bin/env bash
# The GPU sweeps behind benchmarks/RESULTS.md "Harness sweeps", run from the repository root on an
# nvidia-h200 (stages ending in 1) or nvidia-h200-x2 machine (the project is not installed there;
# Liger-Kernel and the canonical writer's packages travel as wheels in .whl/, see gpu_wheels.sh). Each stage gets fresh Triton and Inductor caches, so 1-GPU and 2-GPU
# timings both include compilation, as a first sweep on a fresh machine does. After every stage the
# results so far are packed into $OUT/sweeps.tgz, so a lease that ends early still returns them.
#   usage: OUT=/some/dir harness/scripts/h200_sweep.sh STAGE...   (stages: full1 graph1 full2 graph2 subset2 subset1)
set -u
OUT=${OUT:-/tmp/harness-out}
mkdir -p "$OUT" /tmp/sweeps
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=index,name,uuid,memory.total,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv > "$OUT/gpus.csv"
python3 -c "import torch, triton, liger_kernel, transformers; print('torch', torch.__version__, 'triton', triton.__version__, 'gpus', torch.cuda.device_count())" >> "$OUT/gpus.csv" 2>&1
cat "$OUT/gpus.csv"

# The headline workload of each kernel (the M-RoPE suite's seq 1024 case).
HEADLINE="-w llama4-rope-b1-s2048-h8192-q32-kv8-bf16 -w fused-neighborhood-attention-b2-s128-h512-nh8-k7-d2-fp32"
HEADLINE="$HEADLINE -w multimodal-rotary-embedding-attention-sol-execbench-16-cases-seqlen1024-batchsize1"
SUBSET="$HEADLINE --cuda-graph on"   # events and CUDA-graph replay, forward and backward

stage() {  # stage NAME TIME_LIMIT_S ARGS...: one `kernelindex bench`, timed from process start to files written
  local name=$1 limit=$2; shift 2
  export TORCHINDUCTOR_CACHE_DIR=/tmp/cache-$name/inductor TRITON_CACHE_DIR=/tmp/cache-$name/triton
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout $((limit + 60)) python3 -m harness.cli "$@" --time-limit "$limit" --task-timeout 60 --out "/tmp/sweeps/$name/data" \
    --log-dir "/tmp/sweeps/$name/logs" --results-json "/tmp/sweeps/$name/results.json" > "/tmp/sweeps/$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  echo "$name rc=$rc wall_s=$(python3 -c "print(round($t1 - $t0, 1))") args: $*" | tee -a "$OUT/stages.txt" | tee -a /tmp/sweeps/stages.txt
  grep -E "^sweep wall|^  (gpu|cpu)|^  incident|run files" "/tmp/sweeps/$name.log"
  tar czf "$OUT/sweeps.tgz" -C /tmp sweeps
}

for s in "$@"; do
  case $s in
    full2)   stage full2 110 --devices all ;;
    graph2)  stage graph2 35 $HEADLINE --cuda-graph only --devices all ;;
    subset2) stage subset2 60 $SUBSET --devices all ;;
    subset1) stage subset1 90 $SUBSET --devices 0 ;;
    full1)   stage full1 420 --devices 0 ;;
    graph1)  stage graph1 80 $HEADLINE --cuda-graph only --devices 0 ;;
    # A 1-GPU sweep split over two device calls (each at most 10 minutes): rest1 + naref1 + graphr1
    # measure what full1 + graph1 left unmeasured when full1 stopped inside the neighborhood attention.
    rest1)   stage rest1 260 llama4-rope multimodal-rotary-embedding-attention --devices 0 ;;
    naref1)  stage naref1 140 fused-neighborhood-attention -i pytorch-reference -i torch-compile --devices 0 ;;
    graphr1) stage graphr1 50 -w llama4-rope-b1-s2048-h8192-q32-kv8-bf16 \
                 -w multimodal-rotary-embedding-attention-sol-execbench-16-cases-seqlen1024-batchsize1 --cuda-graph only --devices 0 ;;
  esac
done
