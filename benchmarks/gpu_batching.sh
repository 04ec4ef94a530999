#!/usr/bin/env bash
# The whole GPU check of local generation in one command, within BUDGET_S seconds (default
# 520: under 9 minutes on one H200 with the model builds, so one device command of 10 minutes
# holds it):
#   bash benchmarks/gpu_batching.sh [OUT_DIR]
# First the like-for-like comparison on 16 requests at batch 8 (SmolVLM's ~2B layout): the
# generate engine (the reference, with its profile) beside the slots engine and its
# batch-invariant mode. Then the goal figures: the slots engine at batch 32 on 64 requests, on
# random-weight ~2B layouts in bfloat16 (tok/s cold and run again, the weight-bandwidth bound
# and the fraction reached, what decode steps read against the bandwidth, agreement batched vs
# one at a time, peak memory, where the wall time went, and the engine's profile), beside the
# same engine with `decode_attention: blocks` (each slot reads its own column blocks; its first
# steps compile FlexAttention, so its "again" column is the one to compare), with
# `overlap_prefill: true` (the next group prefilled on a worker thread and its own stream while
# the others decode), and with both; on the second layout only the default and both options.
# Last the default engine with the allocator's expandable segments. Each model is built once
# and reused; a run that would pass the budget is cut and says so, the figures before it stay.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/vlmscope-gpu-batching}
budget=${BUDGET_S:-520}
mkdir -p "$out"
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
run() {
  local left=$((budget - SECONDS))
  echo "== [${SECONDS}s] $*"
  if [ "$left" -le 10 ]; then echo "== skipped: the ${budget}s budget is spent"; return; fi
  timeout "$left" python benchmarks/batching.py --device cuda --dtype bfloat16 \
    --max-new-tokens 64 --allow-mismatch "$@" 2>&1 | grep -v -e "Loading weights" -e "Writing model"
  [ "${PIPESTATUS[0]}" = 124 ] && echo "== cut at the ${budget}s budget"
  return 0
}
{
  run --config-from smolvlm-2b --model-dir "$models/smolvlm-2b" \
    --engines generate,slots,slots-invariant --batch-size 8 --n 16 --single-n 8 --profile
  run --config-from llava-2b --model-dir "$models/llava-2b" --batch-size 32 --n 64 \
    --single-n 16 --engines slots,slots-blocks,slots-overlap,slots-blocks-overlap --profile
  run --config-from smolvlm-2b --model-dir "$models/smolvlm-2b" --batch-size 32 --n 64 \
    --single-n 16 --engines slots,slots-blocks-overlap
  echo "== the allocator growing its segments in place instead of new cudaMalloc blocks:"
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True run --config-from llava-2b \
    --model-dir "$models/llava-2b" --engines slots --batch-size 32 --n 64 --single-n 16
  echo "== [${SECONDS}s] done"
} 2>&1 | tee "$out/gpu_batching.log"
