#!/usr/bin/env bash
# The whole GPU check of local generation in one command, within BUDGET_S seconds (default
# 400, under 7 minutes on one H100 with the model builds):
#   bash benchmarks/gpu_batching.sh [OUT_DIR]
# The goal figures come first: the slots engine at batch 32 on 64 requests, on random-weight
# ~2B layouts in bfloat16 (tok/s cold and run again, the weight-bandwidth bound and the fraction
# reached, what decode steps read against the bandwidth, agreement batched vs one at a time,
# peak memory, where the wall time went, and the engine's profile), beside the same engine
# with `decode_attention: blocks` (each slot reads its own column blocks; its first steps
# compile FlexAttention, so its "again" column is the one to compare), with
# `overlap_prefill: true` (the next group prefilled on a worker thread and its own stream while
# the others decode), and with both. Then the default engine with the allocator's expandable
# segments. Then the like-for-like comparison on 16 requests at batch 8: the generate engine
# (the reference, with its profile) beside the slots engine and its batch-invariant mode. Each
# model is built once and reused; a run that would pass the budget is cut and says so, the
# figures before it stay.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/vlmscope-gpu-batching}
budget=${BUDGET_S:-400}
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
  for layout in llava-2b smolvlm-2b; do  # profiled on the first layout only (time)
    run --config-from "$layout" --model-dir "$models/$layout" --batch-size 32 --n 64 \
      --single-n 16 --engines slots,slots-blocks,slots-overlap,slots-blocks-overlap \
      $([ "$layout" = llava-2b ] && echo --profile)
  done
  echo "== the allocator growing its segments in place instead of new cudaMalloc blocks:"
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True run --config-from llava-2b \
    --model-dir "$models/llava-2b" --engines slots --batch-size 32 --n 64 --single-n 16
  run --config-from smolvlm-2b --model-dir "$models/smolvlm-2b" \
    --engines generate,slots,slots-invariant --batch-size 8 --n 16 --single-n 8 --profile
  echo "== [${SECONDS}s] done"
} 2>&1 | tee "$out/gpu_batching.log"
