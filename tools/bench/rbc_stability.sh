#!/usr/bin/env bash
# Red blood cells at rest must stay at rest (docs/rbc.md, "An instability of the drag
# coupling", found and fixed 2026-11-25): a periodic 20 um tube (and a periodic 40 um
# box) at haematocrit 0.33, tau 0.8, fp32, no forcing; each variant prints the cells'
# mean speed (m/s, cells.csv) every 6000 steps and how it ended. A run that stays at rest
# decays to 1e-5..1e-4 m/s (the growth phase's motion dying out); before the fix the
# runs climbed to ~1e-2 m/s or lost cells through the wall (exit 3).
#   tools/bench/rbc_stability.sh BUILD/bin/hemoflow [cpu|cuda]
# About 3 minutes on one H100; far longer on a CPU.
set -uo pipefail
hemoflow=$1 backend=${2:-cuda} work=${WORK:-/tmp/rbc_stability}
mkdir -p "$work"
cat > "$work/tube.toml" <<'CASE'
[run]
steps = 24000
precision = "fp32"
plugins = ["lb_bgk", "boundaries", "rbc"]
[fluid]
density = 1025.0
viscosity = 1.17e-6
[lattice]
dx = 2.5e-6
tau = 0.8
[geometry]
shape = "pipe"
radius = 10.0e-6
length = 100.0e-6
axis = [1.0, 0.0, 0.0]
[boundaries]
periodic = ["x"]
[rbc]
haematocrit = 0.33
growth_steps = 2000
[output]
every = 0
CASE
sed -e 's/shape = "pipe"/shape = "box"\nsize = [40.0e-6, 40.0e-6, 40.0e-6]/' -e '/^radius\|^length\|^axis/d' \
    -e 's/periodic = \["x"\]/periodic = ["x", "y", "z"]/' "$work/tube.toml" > "$work/box.toml"
run() { local label=$1 case=$2; shift 2
  "$hemoflow" run "$work/$case.toml" "$@" --backend "$backend" --quiet --set run.check_every=2000 \
    --output "$work/$label" --overwrite > "$work/$label.log" 2>&1
  echo "$label exit $? $(awk -F, 'NR>1 && $1%6000==0 {printf "%s:%.2e ", $1, $11}' "$work/$label/cells.csv")"
}
run tube tube
run tube_no_rotational_drag tube --set rbc.drag_rotational=1e-40
run tube_ht005 tube --set rbc.haematocrit=0.05
run tube_drag_third tube --set rbc.drag_translational=2.0e-8 --steps 72000
run tube_support_margin_2dx tube --set rbc.support_margin=5e-6 --steps 72000
run tube_tau06 tube --set lattice.tau=0.6 --steps 72000
run tube_bgk tube --set lb_bgk.collision=\"bgk\"
run box box
run box_no_drag box --set rbc.drag_translational=1e-40 --set rbc.drag_rotational=1e-40 --steps 36000
run box_no_repulsion box --set rbc.repulsion_energy=1e-27 --steps 36000
