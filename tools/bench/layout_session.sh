#!/usr/bin/env bash
# Issue 16, the mesh layouts in the solver, on a lent GPU machine in one call: the GPU
# tests, the CPU/GPU agreement on the brick layout (bricks on the GPU against the CPU's
# node list, bitwise), the solver on nodes and bricks in each storage (bench.py
# --only-storage --layouts nodes bricks), and FluidX3D in the same call if time is left.
# Build and bundle here first:
#   ../shared/tools/bundle-with-deps .bundle build/bin/{hemoflow,hemo_gpu_tests,hemo_membw} build/lib/*.so
# then, with carry [".bundle", ".fluidx3d"], on the device from the repository root:
#   HEMO_COMMIT=<commit> tools/bench/layout_session.sh "$OUT" [storages...]
set -uo pipefail
out=$1
shift
storages=${*:-fp32 fp16s fp16s-dithered e4m11}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
t0=$SECONDS
source .bundle/env.sh
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader
echo "== GPU tests"
timeout 120 .bundle/bin/hemo_gpu_tests > "$out/gpu_tests.txt" 2>&1; echo "gpu tests exit $?"; tail -3 "$out/gpu_tests.txt"
echo "== solver on nodes and bricks in each storage (bench.py --only-storage)"
timeout 330 python3 tools/bench/bench.py --build "$PWD/.bundle" --docs "$out" --work /tmp/bench \
  --only-storage --storage-reps 1 --storages $storages --layouts nodes bricks \
  ${FLUIDX3D_JSON:+--fluidx3d "$FLUIDX3D_JSON"} > "$out/bench-storage.log" 2>&1
echo "bench exit $? ($((SECONDS - t0)) s)"; grep "^| " "$out/performance-storage.md" 2>/dev/null | head -40 | cut -c1-220
echo "== CPU/GPU agreement, brick layout"
(cd tests/integration && timeout $((560 - SECONDS)) python3 cpu_cuda_agreement.py --hemoflow ../../.bundle/bin/hemoflow \
  --cases ../../cases --work /tmp/agreement --bricks-only) > "$out/agreement.txt" 2>&1
echo "agreement exit $? ($((SECONDS - t0)) s)"; grep -cE "^ok" "$out/agreement.txt"; grep -E "^FAIL" "$out/agreement.txt" | head
tar czf "$out/results.tgz" -C "$out" --exclude results.tgz . 2>/dev/null
