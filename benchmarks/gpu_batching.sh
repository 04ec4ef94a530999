#!/usr/bin/env bash
# The whole GPU check of local generation in one command (a few minutes on one H100/H200):
# the reference profile, then each engine on random-weight ~2B layouts in bfloat16.
#   bash benchmarks/gpu_batching.sh [OUT_DIR]
# The generate engine (the reference) runs at batch 8 on 16 requests, as it was measured
# before, beside the slots engine and its batch-invariant mode on the same 16 (like-for-like
# ratios); then the slots engine at batch 32 on 64. Each model is built once and reused.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/vlmscope-gpu-batching}
mkdir -p "$out"
models=$(mktemp -d)
trap 'rm -rf "$models"' EXIT
run() { python benchmarks/batching.py --device cuda --dtype bfloat16 --max-new-tokens 64 \
  --allow-mismatch "$@" 2>&1 | grep -v -e "Loading weights" -e "Writing model"; }
for layout in smolvlm-2b llava-2b; do
  dir="$models/$layout"
  if [ "$layout" = smolvlm-2b ]; then
    run --config-from "$layout" --model-dir "$dir" --engines generate,slots,slots-invariant \
      --batch-size 8 --n 16 --single-n 8 --profile
    run --config-from "$layout" --model-dir "$dir" --engines slots --batch-size 32 --n 64 \
      --single-n 16
  else
    run --config-from "$layout" --model-dir "$dir" --engines slots --batch-size 32 --n 64 \
      --single-n 16
  fi
done 2>&1 | tee "$out/gpu_batching.log"
