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
      python3 tools/stability/stability_map.py --hemoflow "$hf" --docs "$out" --work /tmp/stability --jobs 8 \
        > "$out/map.txt" 2>&1
      echo "map exit $?"; tail -3 "$out/map.txt" ;;
    real)
      # The patient cases at Re 420, tau 0.51 with each operator and both wall models
      # (HEMO_DATA_DIR must hold vascular/).
      for case in carotid aorta; do for model in lb_bgk lb_vlbm; do for op in bgk trt regularized; do
        sets=(--set "lb_bgk.collision=\"$op\"")
        [ $model = lb_bgk ] && sets+=(--set 'run.plugins=["lb_bgk","boundaries"]' --set geometry.solid_fraction=false)
        o=/tmp/real/${case}_${model}_$op
        "$hf" run cases/$case.toml --quiet --progress never --backend cuda --output $o "${sets[@]}" 2> $o.err
        code=$?
        echo "$case $model $op: exit $code $(tail -1 $o.err | cut -c1-160) $(tail -1 $o/iolets.csv 2>/dev/null | cut -c1-200)"
        cp $o/summary.json "$out/real_${case}_${model}_$op.json" 2>/dev/null
      done; done; done ;;
    *) echo "unknown part $part" ;;
  esac
  echo "== $part: $((SECONDS - t0)) s"
  mkdir -p "$dest" && tar czf "$dest/results.tar.gz" -C "$out" .   # after each part: a timeout keeps the rest
done
