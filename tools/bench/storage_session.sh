#!/usr/bin/env bash
# Issue 16 on a lent GPU machine, in one call: FluidX3D built from its source and run
# (tools/bench/fluidx3d.sh), the GPU tests (16-bit conversions on the device), the brick
# prototype on the three bench geometries (tools/bench/bricks.py, with FluidX3D's results
# beside it) and the CPU/GPU agreement of the 16-bit storages. Build and bundle here first:
#   ../shared/tools/bundle-with-deps .bundle build/bin/{hemoflow,hemo_gpu_tests,hemo_membw,hemo_brick_lb,hemo_dense_lb} build/lib/*.so
# then, with carry [".bundle", ".fluidx3d"], on the device from the repository root:
#   HEMO_COMMIT=<commit> tools/bench/storage_session.sh "$OUT"
# Then an Nsight Compute look at the brick kernel and the node-list solver in each storage
# (bench.py --only-storage, with FluidX3D's results beside it).
set -uo pipefail
out=$1
mkdir -p "$out"
export PYTHONUNBUFFERED=1
t0=$SECONDS
echo "== FluidX3D"
timeout 300 tools/bench/fluidx3d.sh .fluidx3d/src-tree "$out/fluidx3d.json" > "$out/fluidx3d.log" 2>&1
echo "fluidx3d exit $? ($((SECONDS - t0)) s)"; cp -f "$out/fluidx3d.json" .fluidx3d/fluidx3d.json 2>/dev/null
source .bundle/env.sh
echo "== GPU tests"
timeout 120 .bundle/bin/hemo_gpu_tests > "$out/gpu_tests.txt" 2>&1; echo "gpu tests exit $?"; tail -3 "$out/gpu_tests.txt"
echo "== brick prototype"
timeout 330 python3 tools/bench/bricks.py --build .bundle --docs "$out" --fluidx3d "$out/fluidx3d.json" \
  --blocks 128 256 --reps 1 > "$out/bricks.log" 2>&1
echo "bricks exit $? ($((SECONDS - t0)) s)"; grep "^| " "$out/bricks.md" 2>/dev/null | cut -c1-200
echo "== where the brick kernel's time goes (ncu, one launch each, vessel tree)"
if command -v ncu > /dev/null; then
  for v in "fp32 ab" "e4m11 ab" "fp16s ab"; do
    set -- $v
    timeout 120 ncu --kernel-name-base demangled --kernel-name regex:BrickCollideStream --launch-skip 12 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis \
      --section MemoryWorkloadAnalysis .bundle/bin/hemo_brick_lb cases/bench/vessel_tree.toml --storage "$1" \
      --streaming "$2" --steps 5 > "$out/ncu_brick_$1_$2.txt" 2>&1
    echo "$1 $2: $(grep -E "Executed Ipc Active|Issue Slots Busy|DRAM Throughput|Duration" "$out/ncu_brick_$1_$2.txt" | tr -s ' ' | tr '\n' ';')"
  done
fi
echo "== node-list solver in each storage (bench.py --only-storage)"
timeout $((520 - SECONDS)) python3 tools/bench/bench.py --build "$PWD/.bundle" --docs "$out" --work /tmp/bench \
  --only-storage --storage-reps 1 --fluidx3d "$out/fluidx3d.json" > "$out/bench-storage.log" 2>&1
echo "bench exit $? ($((SECONDS - t0)) s)"; grep "^| " "$out/performance-storage.md" 2>/dev/null | head -40 | cut -c1-220
echo "== CPU/GPU agreement, 16-bit storages"
(cd tests/integration && timeout $((590 - SECONDS)) python3 cpu_cuda_agreement.py --hemoflow ../../.bundle/bin/hemoflow \
  --cases ../../cases --work /tmp/agreement --storages-only) > "$out/agreement.txt" 2>&1
echo "agreement exit $? ($((SECONDS - t0)) s)"; grep -cE "^ok" "$out/agreement.txt"; grep -E "^FAIL" "$out/agreement.txt" | head
