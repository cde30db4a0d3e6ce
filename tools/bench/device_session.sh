#!/usr/bin/env bash
# Everything one call on a lent GPU machine does, in one go (device time is scarce):
# environment, unit tests, the CPU/GPU agreement test, then the benchmark.
# Build here first, then bundle (see docs/performance.md, "Reproduce"):
#   ../shared/tools/bundle-with-deps .bundle build/bin/{hemoflow,hemo_membw,hemo_dense_lb,hemo_unit_tests} build/lib/*.so
# and on the device, from the repository root:
#   tools/bench/device_session.sh "$PWD/.bundle" "$OUT" [bench.py options]
set -uo pipefail
bundle=$(cd "$1" && pwd) out=$2
shift 2
source "$bundle/env.sh"
mkdir -p "$out/logs"
log=$out/logs
py=python3
export PYTHONUNBUFFERED=1

{ nvidia-smi; nvidia-smi -q | grep -iE "product name|clocks|bus id" | head -20; } > "$log/nvidia-smi.txt" 2>&1
$py -c "import sys, numpy; print(sys.version); print('numpy', numpy.__version__)
try:
    import h5py; print('h5py', h5py.__version__)
except ImportError as e: print('no h5py:', e)" > "$log/python.txt" 2>&1
"$bundle/bin/hemoflow" info > "$log/info.txt" 2>&1
echo "== environment"; cat "$log/python.txt"; grep -A3 "^backends" "$log/info.txt"

echo "== unit tests"
"$bundle/bin/hemo_unit_tests" > "$log/unit.txt" 2>&1; echo "unit tests exit $?"; tail -3 "$log/unit.txt"

echo "== CPU/GPU agreement"
(cd tests/integration && $py cpu_cuda_agreement.py --hemoflow "$bundle/bin/hemoflow" --cases ../../cases \
   --work /tmp/agreement) > "$log/agreement.txt" 2>&1
echo "agreement exit $?"; grep -E "^(ok|FAIL)|MLUPS|skipped|Error|error" "$log/agreement.txt" | head -30

echo "== outputs written asynchronously from the GPU"
(cd tests/integration && HEMO_TEST_BACKEND=cuda $py outputs.py --hemoflow "$bundle/bin/hemoflow" \
   --case ../../cases/poiseuille_pipe.toml --work /tmp/outputs) > "$log/outputs_cuda.txt" 2>&1
echo "outputs exit $?"; grep -E "^(ok|FAIL)" "$log/outputs_cuda.txt"

echo "== profile of the fused kernel (ncu, one launch, box 256^3, fp32)"
if command -v ncu >/dev/null; then
  timeout 300 ncu --kernel-name-base demangled --kernel-name regex:CollideStream --launch-skip 20 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
    "$bundle/bin/hemoflow" run cases/bench/box.toml --quiet --progress never --backend cuda --steps 30 \
    --output /tmp/ncu_box --overwrite > "$out/ncu_collide_stream.txt" 2>&1
  grep -E "DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Duration|Warp Cycles Per Issued" "$out/ncu_collide_stream.txt"
fi

echo "== benchmark"
$py tools/bench/bench.py --build "$bundle" --docs "$out" --work /tmp/bench --ncu "$out/ncu_collide_stream.txt" "$@" \
  > "$log/bench.txt" 2>&1
echo "bench exit $?"; tail -40 "$log/bench.txt"
tar czf "$out/logs.tar.gz" -C "$out" logs && rm -rf "$log"
