#!/usr/bin/env bash
# The full validation on a lent GPU machine, in parts that fit its per-call time limit.
# Build and bundle here first (docs/performance.md, "Reproduce"); then on the device:
#   tools/validation/device_session.sh BUNDLE DEST OP[@STORAGE]:CHECK,CHECK... [OP[@STORAGE]:CHECK...]
# e.g.  ... case:rbc_tubes,sphere regularized:poiseuille_pipe,lid_mass bgk:cavity regularized@e4m11:womersley
# Each part runs `validate.py --backend cuda --collision OP [--storage STORAGE] --only CHECK...`;
# OP "case" leaves each case its own operator (the report's rows: no --collision)
# into DEST/parts/OP-CHECKS/ or DEST/parts/OP-STORAGE-CHECKS/ (validation.json, img/, log),
# one part at a time: two processes time-slicing one GPU took 480 s for two bgk pipe studies
# that take 84 s each alone (H200, 2026-11-23); PARTS_AT_ONCE=2 overlaps them anyway.
# GPUS=0,1 spreads the parts over those GPUs instead (CUDA_VISIBLE_DEVICES): part i goes to
# the (i mod n)-th GPU listed, each GPU runs its parts one after another, all GPUs at once.
# Merge the parts' JSON files here afterwards with
#   tools/validate --from-json DEST/parts/*/validation.json --device ... --date ...
# HEMO_COMMIT must name the commit the bundle was built at (the device has no .git).
# HEMO_VALIDATE_REUSE=1 reanalyses runs that an earlier call on the same machine finished
# with the same command line instead of repeating them (validate.py).
set -uo pipefail
bundle=$(cd "$1" && pwd) dest=$2
shift 2
source "$bundle/env.sh"
export PYTHONUNBUFFERED=1
mkdir -p "$dest/parts"
t_start=$SECONDS
run_part() {  # PART [GPU]
  local head=${1%%:*} checks=${1#*:} t0=$SECONDS
  local op=${head%%@*} storage= name only=() opts=() c code
  [[ $head == *@* ]] && storage=${head#*@} && opts=(--storage "$storage")
  [ "$op" != case ] && opts+=(--collision "$op")
  name="$op-${storage:+$storage-}${checks//,/-}"
  for c in ${checks//,/ }; do only+=(--only "$c"); done
  [ -n "${2:-}" ] && export CUDA_VISIBLE_DEVICES=$2
  python3 tools/validation/validate.py --backend cuda --hemoflow "$bundle/bin/hemoflow" "${opts[@]}" \
    "${only[@]}" --docs "$dest/parts/$name" --work "/tmp/validation/$name" > "/tmp/validation-$name.log" 2>&1
  code=$?
  mkdir -p "$dest/parts/$name" && cp "/tmp/validation-$name.log" "$dest/parts/$name/log.txt"
  echo "$name${2:+ (GPU $2)}: exit $code, $((SECONDS - t0)) s; $(tail -1 "/tmp/validation-$name.log" | cut -c1-200)"
  pack  # after each part, so that a call cut off at its time limit returns what finished
}
# The lent machine returns only files near the top of $OUT: the parts go packed into one
# file (PACK, default DEST.tgz; e.g. DEST under /tmp and PACK=$OUT/validation.tgz; unpack
# it here and merge as above).
pack() { local to=${PACK:-${dest%/}.tgz}; tar czf "$to.tmp" -C "$dest" . && mv "$to.tmp" "$to"; }
if [ -n "${GPUS:-}" ]; then
  IFS=, read -ra gpus <<< "$GPUS"
  for k in "${!gpus[@]}"; do
    ( i=0
      for part in "$@"; do
        if [ $((i++ % ${#gpus[@]})) -eq "$k" ]; then run_part "$part" "${gpus[k]}"; fi
      done ) &
  done
else
  for part in "$@"; do
    run_part "$part" &
    while [ "$(jobs -rp | wc -l)" -ge "${PARTS_AT_ONCE:-1}" ]; do wait -n; done
  done
fi
wait
echo "all parts: $((SECONDS - t_start)) s"
pack && echo "packed: ${PACK:-${dest%/}.tgz}"
