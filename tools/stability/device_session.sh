#!/usr/bin/env bash
# One call on a lent GPU machine for the stability work: unit tests, the bitwise CPU/GPU
# agreement of every collision operator, the backflow study and the stability map.
# Build and bundle here first (see docs/performance.md, "Reproduce"), then on the device:
#   tools/stability/device_session.sh "$PWD/.bundle" "$OUT" [map|backflow|agreement]...
set -uo pipefail
bundle=$(cd "$1" && pwd) dest=$2
shift 2
out=/tmp/session_out   # everything, packed into $dest/results.tar.gz at the end (few files travel back)
parts=${*:-agreement backflow map}
source "$bundle/env.sh"
export PYTHONUNBUFFERED=1
mkdir -p "$out" /tmp/real
hf=$bundle/bin/hemoflow
for part in $parts; do
  t0=$SECONDS
  case $part in
    agreement)
      "$bundle/bin/hemo_unit_tests" > "$out/unit.txt" 2>&1; echo "unit tests exit $?"; tail -2 "$out/unit.txt"
      (cd tests/integration && python3 cpu_cuda_agreement.py --hemoflow "$hf" --cases ../../cases --work /tmp/agree) \
        > "$out/agreement.txt" 2>&1
      echo "agreement exit $?"; grep -cE "^ok" "$out/agreement.txt"; grep -E "^FAIL" "$out/agreement.txt" | head ;;
    backflow)
      python3 tools/stability/backflow.py --hemoflow "$hf" --docs "$out" --work /tmp/backflow > "$out/backflow.txt" 2>&1
      echo "backflow exit $?"; cat "$out/backflow.md" ;;
    map)
      python3 tools/stability/stability_map.py --hemoflow "$hf" --docs "$out" --work /tmp/stability --jobs 2 \
        > "$out/map.txt" 2>&1
      echo "map exit $?"; tail -3 "$out/map.txt" ;;
    real)
      # The patient cases at Re 420, tau 0.51, both wall models (HEMO_DATA_DIR must hold vascular/).
      for op in bgk trt regularized; do
        python3 tools/validation/validate.py --backend cuda --hemoflow "$hf" --only real_geometry --collision $op \
          --docs "$out/real_$op" --work /tmp/real/$op > "$out/real_$op.txt" 2>&1
        echo "real ($op) exit $?"; tail -1 "$out/real_$op.txt"
      done ;;
    *) echo "unknown part $part" ;;
  esac
  echo "== $part: $((SECONDS - t0)) s"
  mkdir -p "$dest" && tar czf "$dest/results.tar.gz" -C "$out" .   # after each part: a timeout keeps the rest
done
