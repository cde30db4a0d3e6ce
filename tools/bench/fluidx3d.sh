#!/usr/bin/env bash
# Build FluidX3D (github.com/ProjectPhysX/FluidX3D, OpenCL) from a source tree and run its
# own benchmark setup (D3Q19 SRT, empty 256^3 box, 10000 steps) in three storage modes:
# FP32/FP32, FP32/FP16S and FP32/FP16C. Issue 16 compares hemoflow with FluidX3D measured
# in the same device session. FluidX3D is not a dependency of hemoflow and none of its code
# is part of hemoflow: this script only compiles and runs a checkout of it, changing nothing
# but #define switches in src/defines.hpp per mode (every change is recorded in the JSON).
#
# Getting the tree (the device has no network): on a networked machine, from the repository
# root, `git clone https://github.com/ProjectPhysX/FluidX3D /tmp/fx && git -C /tmp/fx rev-parse
# HEAD > .fluidx3d/COMMIT && cp -r /tmp/fx .fluidx3d/src-tree` (.fluidx3d/ is ignored; src/,
# make.sh and LICENSE.md are all it needs, about 2 MB), then carry .fluidx3d to the device
# (tools/bench/storage_session.sh). FluidX3D's licence allows this use (research,
# measurement; no commercial or military use): keep its LICENSE.md with the tree.
#
# usage: tools/bench/fluidx3d.sh SRC_TREE OUT_JSON [DEVICE]
#   SRC_TREE  FluidX3D tree (src/, LICENSE.md, ...); its commit is read from SRC_TREE/COMMIT,
#             SRC_TREE/../COMMIT, `git -C SRC_TREE rev-parse HEAD` or $FLUIDX3D_COMMIT.
#   OUT_JSON  list of results, one entry per storage mode; full logs go to OUT_JSON.logs/.
#   DEVICE    optional: an OpenCL device id (as FluidX3D numbers them: all devices of all
#             platforms, in order) or a case-insensitive part of the device name; without it
#             FluidX3D picks the fastest device itself.
# environment (all optional):
#   FLUIDX3D_MODES="FP32 FP16S FP16C"  FLUIDX3D_TIMEOUT=240 (s per run)  FLUIDX3D_JOBS=$(nproc)
#   FLUIDX3D_CXXFLAGS (default: the flags of FluidX3D's make.sh/makefile for Linux without X11)
#   FLUIDX3D_OPENCL_LOADER=/path/libOpenCL.so.1, FLUIDX3D_NVIDIA_OPENCL=/path/libnvidia-opencl.so.1
#     (skip the searches for the ICD loader and for NVIDIA's OpenCL driver library)
#   FLUIDX3D_NO_ETC=1 (never write /etc/OpenCL/vendors; use OCL_ICD_* variables only)
#   FLUIDX3D_RUN_ANYWAY=1 (run FluidX3D even if the OpenCL probe finds no device)
#   FLUIDX3D_KEEP=1 (keep the temporary build folder)
# exit status: 0 if every mode gave a result, 1 otherwise (OUT_JSON is written in any case),
#              2 for a usage error. Needs no network.
set -uo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 2
fi
src=$1 out_json=$2 device_arg=${3:-}
modes=${FLUIDX3D_MODES:-FP32 FP16S FP16C}
run_timeout=${FLUIDX3D_TIMEOUT:-240}
jobs=${FLUIDX3D_JOBS:-$(nproc 2>/dev/null || echo 4)}
cxxflags=${FLUIDX3D_CXXFLAGS:--std=c++17 -pthread -O -Wno-comment}

say() { printf '[fluidx3d] %s\n' "$*" >&2; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", b-a}'; }
# JSON string from arbitrary text: escape \ and ", newlines as \n, drop other control characters
jstr() {
  printf '"'
  printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/ /g' | tr -d '\000-\010\013-\037' |
    awk 'BEGIN{ORS=""} NR>1{print "\\n"} {print}'
  printf '"'
}
# FluidX3D's console output: colour escapes removed, carriage-return progress updates on their own lines
clean_log() { sed -E 's/\x1b\[[0-9;]*[A-Za-z]//g' "$1" | tr '\r' '\n' | grep -v '^[[:space:]]*$'; }

mkdir -p "$(dirname "$out_json")" || { echo "cannot create the folder of $out_json" >&2; exit 2; }
out_json=$(cd "$(dirname "$out_json")" && pwd)/$(basename "$out_json")
logdir=$out_json.logs
rm -rf "$logdir"; mkdir -p "$logdir"
work=$(mktemp -d "${TMPDIR:-/tmp}/fluidx3d-bench.XXXXXX") || { echo "mktemp failed" >&2; exit 2; }
if [[ -z ${FLUIDX3D_KEEP:-} ]]; then trap 'rm -rf "$work"' EXIT; else say "keeping $work"; fi

global_error=""   # set when nothing can be built or run at all
declare -A steps median summary err compile_s run_s mlups device box lbm_type last_progress changes eff_defines tail_log rc_run

# ---------------------------------------------------------------- source tree, commit, compiler
commit=${FLUIDX3D_COMMIT:-}
if [[ -z $commit ]]; then
  for f in "$src/COMMIT" "$src/../COMMIT"; do [[ -f $f ]] && { commit=$(head -c 40 "$f"); break; }; done
fi
[[ -z $commit ]] && commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
if [[ ! -f $src/src/defines.hpp || ! -f $src/src/setup.cpp || ! -f $src/src/main.cpp ]]; then
  global_error="SRC_TREE '$src' has no src/defines.hpp, src/setup.cpp, src/main.cpp"
fi
cxx=${CXX:-$(command -v g++ || command -v c++ || true)}
if [[ -z $global_error ]] && { [[ -z $cxx ]] || ! command -v "$cxx" > /dev/null; }; then
  global_error="no C++ compiler: ${CXX:+CXX=$CXX is not runnable; }neither g++ nor c++ is on PATH"
fi
cxx_version=$([[ -n $cxx ]] && command -v "$cxx" > /dev/null && "$cxx" --version 2>&1 | head -1)
[[ -n $global_error ]] && say "ERROR: $global_error"

# the benchmark setup of this FluidX3D version: box and step count, read from setup.cpp
box_src="" steps_src=""
if [[ -z $global_error ]]; then
  box_src=$(sed -n '/^#ifdef BENCHMARK/,/^#endif/p' "$src/src/setup.cpp" |
    grep -E '^[[:space:]]*LBM lbm\([0-9]+u, *[0-9]+u, *[0-9]+u' | head -1 |
    sed -E 's/^[[:space:]]*LBM lbm\(([0-9]+)u, *([0-9]+)u, *([0-9]+)u.*/\1,\2,\3/')
  steps_src=$(sed -n '/^#ifdef BENCHMARK/,/^#endif/p' "$src/src/setup.cpp" | grep -oE 'lbm\.run\([^;]*\);' | head -1)
  say "FluidX3D $commit, benchmark box from setup.cpp: [${box_src:-?}], run call: ${steps_src:-?}"
  [[ $box_src != 256,256,256 ]] && say "WARNING: the active benchmark box is not 256^3 but [${box_src}]"
fi

# ---------------------------------------------------------------- OpenCL: loader and NVIDIA ICD
env_report=""
note() { env_report+="$*"$'\n'; say "$*"; }
loaders=()   # ICD loaders found, best first; the first one with which the probe sees a device is used
if [[ -n ${FLUIDX3D_OPENCL_LOADER:-} ]]; then
  loaders=("$(readlink -f "$FLUIDX3D_OPENCL_LOADER")")
else
  cands=()
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-*/targets/x86_64-linux/lib; do
    cands+=("$d/libOpenCL.so.1" "$d/libOpenCL.so")
  done
  while read -r p; do cands+=("$p"); done < <(ldconfig -p 2>/dev/null | awk '/libOpenCL\.so\.1 .*x86-64/{print $NF}')
  cands+=(/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 /lib/x86_64-linux-gnu/libOpenCL.so.1 /usr/lib64/libOpenCL.so.1)
  cands+=("$src/src/OpenCL/lib/libOpenCL.so")   # the ICD loader FluidX3D ships (reads /etc/OpenCL/vendors)
  for c in "${cands[@]}"; do
    [[ -f $c ]] || continue
    r=$(readlink -f "$c")
    head -c 4 "$r" 2>/dev/null | grep -q 'ELF' || continue
    [[ " ${loaders[*]} " == *" $r "* ]] || loaders+=("$r")
  done
fi
# $oclrt/libOpenCL.so{,.1} -> the loader: FluidX3D is linked with -L$oclrt and run with it on LD_LIBRARY_PATH
oclrt=$work/oclrt; mkdir -p "$oclrt"
use_loader() { loader=$1; ln -sfn "$1" "$oclrt/libOpenCL.so.1"; ln -sfn "$1" "$oclrt/libOpenCL.so"; }
loader=""
if [[ ${#loaders[@]} -gt 0 && -f ${loaders[0]} ]]; then
  use_loader "${loaders[0]}"
  for l in "${loaders[@]}"; do
    note "OpenCL ICD loader candidate: $l (soname $(objdump -p "$l" 2>/dev/null | awk '/SONAME/{print $2}'))"
  done
else
  note "no OpenCL ICD loader found (looked in /usr/local/cuda, ldconfig, /usr/lib*, and SRC_TREE/src/OpenCL/lib)"
  [[ -z $global_error ]] && global_error="no OpenCL ICD loader (libOpenCL.so.1) found"
fi

nvlib=${FLUIDX3D_NVIDIA_OPENCL:-}
[[ -z $nvlib ]] && while read -r p; do [[ -f $p ]] && { nvlib=$p; break; }; done < <(ldconfig -p 2>/dev/null | awk '/libnvidia-opencl\.so\.1 .*x86-64/{print $NF}')
if [[ -z $nvlib ]]; then
  for d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib; do
    [[ -d $d ]] || continue
    p=$(find "$d" -maxdepth 3 \( -name 'libnvidia-opencl.so.1' -o -name 'libnvidia-opencl.so.[0-9]*' \) 2>/dev/null | sort | head -1)
    [[ -n $p ]] && { nvlib=$p; break; }
  done
fi
note "NVIDIA OpenCL driver library: ${nvlib:-not found}"
icd_ok=""
if [[ -d /etc/OpenCL/vendors ]]; then
  for f in /etc/OpenCL/vendors/*.icd; do
    [[ -f $f ]] || continue
    l=$(head -1 "$f" | tr -d '[:space:]')
    note "existing ICD $f -> $l"
    if [[ $l == *nvidia* ]]; then
      if [[ $l == /* && -f $l ]] || ldconfig -p 2>/dev/null | grep -q " $l "; then icd_ok=$f; fi
    fi
  done
else
  note "no /etc/OpenCL/vendors"
fi
if [[ -z $icd_ok && -n $nvlib ]]; then
  # register the NVIDIA driver with the loader: a file in our own folder for loaders that honour
  # OCL_ICD_VENDORS (ocl-icd, Khronos since 2020), and one in /etc/OpenCL/vendors for older ones
  # (such as the loader FluidX3D ships, which only reads /etc/OpenCL/vendors)
  mkdir -p "$work/vendors"; printf '%s\n' "$nvlib" > "$work/vendors/nvidia.icd"
  # (not also OCL_ICD_FILENAMES: the Khronos loader would then load the driver twice and list every GPU twice)
  export OCL_ICD_VENDORS=$work/vendors
  note "set OCL_ICD_VENDORS=$OCL_ICD_VENDORS (holds nvidia.icd -> $nvlib)"
  if [[ -z ${FLUIDX3D_NO_ETC:-} ]]; then
    name=nvidia.icd; [[ -e /etc/OpenCL/vendors/$name ]] && name=nvidia-absolute-path.icd
    if mkdir -p /etc/OpenCL/vendors 2>/dev/null && printf '%s\n' "$nvlib" > "/etc/OpenCL/vendors/$name" 2>/dev/null; then
      note "wrote /etc/OpenCL/vendors/$name -> $nvlib"
    else
      note "could not write /etc/OpenCL/vendors/$name (not root?); relying on OCL_ICD_* variables"
    fi
  fi
fi
# ---------------------------------------------------------------- OpenCL probe (own code, not FluidX3D's)
probe_out="" probe_ok=""
if [[ -z $global_error ]]; then
  cat > "$work/probe.cpp" <<'EOF'
// Lists OpenCL platforms and devices, numbering the devices the way FluidX3D does.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <cstdio>
#include <string>
#include <vector>
template<class F> static std::string text(F query) {
  size_t n = 0;
  if (query(0, nullptr, &n) != CL_SUCCESS || n == 0) return "?";
  std::string s(n, '\0');
  if (query(n, &s[0], nullptr) != CL_SUCCESS) return "?";
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
int main() {
  cl_uint np = 0;
  cl_int e = clGetPlatformIDs(0, nullptr, &np);
  std::printf("clGetPlatformIDs: code %d, %u platform(s)\n", e, np);
  if (e != CL_SUCCESS || np == 0) return 3;
  std::vector<cl_platform_id> ps(np);
  clGetPlatformIDs(np, ps.data(), nullptr);
  unsigned id = 0;
  for (cl_uint i = 0; i < np; i++) {
    auto pinfo = [&](cl_platform_info k) { return text([&](size_t n, void* v, size_t* r) { return clGetPlatformInfo(ps[i], k, n, v, r); }); };
    std::printf("platform %u: %s | %s | %s\n", i, pinfo(CL_PLATFORM_NAME).c_str(), pinfo(CL_PLATFORM_VENDOR).c_str(), pinfo(CL_PLATFORM_VERSION).c_str());
    cl_uint nd = 0;
    e = clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
    if (e != CL_SUCCESS) { std::printf("  clGetDeviceIDs: code %d\n", e); continue; }
    std::vector<cl_device_id> ds(nd);
    clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr);
    for (cl_device_id d : ds) {
      auto dinfo = [&](cl_device_info k) { return text([&](size_t n, void* v, size_t* r) { return clGetDeviceInfo(d, k, n, v, r); }); };
      cl_ulong mem = 0;
      clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(mem), &mem, nullptr);
      std::printf("device %u: %s | %s | driver %s | %s | %llu MB\n", id++, dinfo(CL_DEVICE_NAME).c_str(), dinfo(CL_DEVICE_VENDOR).c_str(),
                  dinfo(CL_DRIVER_VERSION).c_str(), dinfo(CL_DEVICE_VERSION).c_str(), (unsigned long long)(mem >> 20));
    }
  }
  return id > 0 ? 0 : 3;
}
EOF
  if "$cxx" -std=c++17 -O1 -w "$work/probe.cpp" -o "$work/probe" -I"$src/src/OpenCL/include" -L"$oclrt" -lOpenCL > "$work/probe_build.log" 2>&1; then
    first=${loaders[0]}
    for l in "${loaders[@]}"; do
      use_loader "$l"
      o=$(LD_LIBRARY_PATH=$oclrt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout -k 5 60 "$work/probe" 2>&1); prc=$?
      probe_out+="with loader $l:"$'\n'"$o"$'\n'"(probe exit code $prc)"$'\n'
      [[ $prc == 0 ]] && { probe_ok=1; break; }
    done
    [[ -z $probe_ok ]] && use_loader "$first"
    note "OpenCL ICD loader used: $loader, linked and run via $oclrt"
  else
    probe_out="probe did not build: $(tail -5 "$work/probe_build.log")"
  fi
  printf '%s\n' "$probe_out" > "$logdir/opencl_probe.log"
  say "OpenCL probe:"; printf '%s\n' "$probe_out" | sed 's/^/    /' >&2
  if [[ -z $probe_ok ]]; then
    say "OpenCL sees no device. Diagnostics:"
    { echo "ldconfig -p | grep -i opencl:"; ldconfig -p 2>/dev/null | grep -i opencl
      echo "ls -l /etc/OpenCL/vendors:"; ls -l /etc/OpenCL/vendors 2>&1
      echo "ldd probe:"; LD_LIBRARY_PATH=$oclrt ldd "$work/probe" 2>&1 | grep -i opencl
      echo "nvidia-smi -L:"; command -v nvidia-smi > /dev/null && nvidia-smi -L 2>&1 | head -4; } | tee -a "$logdir/opencl_probe.log" | sed 's/^/    /' >&2
  fi
fi

export LD_LIBRARY_PATH=$oclrt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# FluidX3D takes device ids as command line arguments
dev_ids=()
if [[ -n $device_arg ]]; then
  if [[ $device_arg =~ ^[0-9]+$ ]]; then dev_ids=("$device_arg")
  elif [[ -n $probe_ok ]]; then
    id=$(printf '%s\n' "$probe_out" | grep -i '^device [0-9]*: ' | grep -iF -- "$device_arg" | head -1 | sed -E 's/^device ([0-9]+):.*/\1/')
    if [[ -n $id ]]; then dev_ids=("$id"); say "device '$device_arg' is OpenCL device $id"
    else [[ -z $global_error ]] && global_error="no OpenCL device matches '$device_arg'"; fi
  fi
fi
nvsmi=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)

# ---------------------------------------------------------------- one source copy per mode, defines.hpp switched by sed
on_off() {  # on_off FILE on|off NAME: (un)comment the line "#define NAME ..."
  local f=$1 what=$2 n=$3
  # only in the switch section at the top (up to the first "// ####" line), not in the logic below it
  if [[ $what == on ]]; then sed -E -i "1,/^\/\/ *####/ s@^[[:space:]]*//[[:space:]]*(#define[[:space:]]+$n)([[:space:]]|\$)@\\1\\2@" "$f"
  else sed -E -i "1,/^\/\/ *####/ s@^[[:space:]]*(#define[[:space:]]+$n)([[:space:]]|\$)@//\\1\\2@" "$f"; fi
}
watched="D2Q9 D3Q15 D3Q19 D3Q27 SRT TRT FP16S FP16C BENCHMARK VOLUME_FORCE FORCE_FIELD EQUILIBRIUM_BOUNDARIES MOVING_BOUNDARIES SURFACE TEMPERATURE SUBGRID PARTICLES INTERACTIVE_GRAPHICS INTERACTIVE_GRAPHICS_ASCII GRAPHICS UPDATE_FIELDS"
built_modes=()
if [[ -z $global_error ]]; then
  for m in $modes; do
    case $m in FP32|FP16S|FP16C) ;; *) err[$m]="unknown storage mode '$m' (FP32, FP16S or FP16C)"; continue ;; esac
    d=$work/$m; mkdir -p "$d/obj"; cp -r "$src/src" "$d/src"
    f=$d/src/defines.hpp
    for n in D3Q19 SRT BENCHMARK; do on_off "$f" on $n; done
    for n in D2Q9 D3Q15 D3Q27 TRT FP16S FP16C VOLUME_FORCE FORCE_FIELD EQUILIBRIUM_BOUNDARIES MOVING_BOUNDARIES SURFACE TEMPERATURE SUBGRID PARTICLES INTERACTIVE_GRAPHICS INTERACTIVE_GRAPHICS_ASCII GRAPHICS; do
      on_off "$f" off $n
    done
    [[ $m != FP32 ]] && on_off "$f" on $m
    changes[$m]=$(diff -U0 "$src/src/defines.hpp" "$f" | grep -E '^[-+][^-+]' || true)
    [[ -z ${changes[$m]} ]] && changes[$m]="(none: this defines.hpp already selects $m)"
    # short form: "+NAME" switched on, "-NAME" switched off
    summary[$m]=$(printf '%s\n' "${changes[$m]}" | sed -nE 's@^\+#define[[:space:]]+([A-Za-z0-9_]+).*@+\1@p; s@^\+//#define[[:space:]]+([A-Za-z0-9_]+).*@-\1@p' | tr '\n' ' ')
    summary[$m]=${summary[$m]% }; [[ -z ${summary[$m]} ]] && summary[$m]="(none)"
    # what the compiler actually sees after defines.hpp's own logic (BENCHMARK #undefs the extensions)
    eff=$(printf '#include "defines.hpp"\n' | "$cxx" -x c++ -std=c++17 -E -dM -I"$d/src" - 2>/dev/null |
          awk -v w=" $watched " '$1=="#define" && index(w, " " $2 " ") {print $2}' | sort | tr '\n' ' ')
    eff_defines[$m]=${eff% }
    want="BENCHMARK D3Q19 SRT"; [[ $m != FP32 ]] && want+=" $m"
    want=$(printf '%s\n' $want | sort | tr '\n' ' '); want=${want% }
    if [[ ${eff_defines[$m]} != "$want" ]]; then
      err[$m]="defines.hpp switching failed: active switches '${eff_defines[$m]}', expected '$want'"; say "$m: ${err[$m]}"; continue
    fi
    say "$m: defines.hpp switches changed: ${summary[$m]:-none}; active now: ${eff_defines[$m]}"
    built_modes+=("$m")
  done
fi

# ---------------------------------------------------------------- compile: all translation units of all modes in parallel
if [[ ${#built_modes[@]} -gt 0 ]]; then
  say "compiling ${#built_modes[@]} variant(s) with $jobs parallel jobs: $cxx $cxxflags"
  t_all=$(now)
  for m in "${built_modes[@]}"; do for c in "$work/$m"/src/*.cpp; do printf '%s %s\n' "$m" "$(basename "$c" .cpp)"; done; done |
    CXX=$cxx CXXFLAGS=$cxxflags W=$work INC=$src/src/OpenCL/include xargs -P "$jobs" -L 1 bash -c '
      m=$1 u=$2 t0=$(date +%s.%N)
      $CXX -c "$W/$m/src/$u.cpp" -o "$W/$m/obj/$u.o" $CXXFLAGS -I"$INC" > "$W/$m/obj/$u.log" 2>&1; rc=$?
      echo "$rc $(awk -v a=$t0 -v b=$(date +%s.%N) "BEGIN{printf \"%.2f\", b-a}")" > "$W/$m/obj/$u.status"' _
  for m in "${built_modes[@]}"; do
    d=$work/$m failed="" tsum=0
    for s in "$d"/obj/*.status; do
      read -r rc t < "$s"; tsum=$(awk -v a="$tsum" -v b="$t" 'BEGIN{printf "%.2f", a+b}')
      u=$(basename "$s" .status)
      [[ $rc != 0 ]] && failed+="$u.cpp "
    done
    [[ $(ls "$d"/obj/*.status 2>/dev/null | wc -l) != $(ls "$d"/src/*.cpp | wc -l) ]] && failed+="(missing results) "
    cat "$d"/obj/*.log > "$logdir/$m.compile.log" 2>/dev/null
    if [[ -n $failed ]]; then
      err[$m]="compile failed: $failed; $(grep -h -m3 -E 'error' "$d"/obj/*.log | head -5)"
      tail_log[$m]=$(tail -20 "$logdir/$m.compile.log"); compile_s[$m]=$tsum
      say "$m: ${err[$m]}"; tail -20 "$logdir/$m.compile.log" >&2; continue
    fi
    t0=$(now)
    "$cxx" "$d"/obj/*.o -o "$d/FluidX3D" $cxxflags -L"$oclrt" -lOpenCL >> "$logdir/$m.compile.log" 2>&1; rc=$?
    compile_s[$m]=$(awk -v a="$tsum" -v b="$(secs "$t0" "$(now)")" 'BEGIN{printf "%.2f", a+b}')
    if [[ $rc != 0 ]]; then
      err[$m]="link failed: $(tail -3 "$logdir/$m.compile.log" | tr '\n' ' ')"; tail_log[$m]=$(tail -20 "$logdir/$m.compile.log")
      say "$m: ${err[$m]}"; continue
    fi
    say "$m: built in ${compile_s[$m]} s of compiler time"
  done
  say "compile wall time for all variants: $(secs "$t_all" "$(now)") s"
fi

# ---------------------------------------------------------------- run the variants one after the other
for m in "${built_modes[@]}"; do
  [[ -n ${err[$m]:-} ]] && continue
  d=$work/$m
  if [[ -z $probe_ok && -z ${FLUIDX3D_RUN_ANYWAY:-} ]]; then
    err[$m]="not run: OpenCL finds no platform/device (see opencl_probe); probe: $(printf '%s' "$probe_out" | head -3 | tr '\n' ' ')"
    continue
  fi
  say "$m: running FluidX3D ${dev_ids[*]:-} (timeout $run_timeout s)"
  t0=$(now)
  (cd "$d" && timeout -k 10 "$run_timeout" ./FluidX3D "${dev_ids[@]}" < /dev/null > "$logdir/$m.run.raw.log" 2>&1); rc=$?
  run_s[$m]=$(secs "$t0" "$(now)"); rc_run[$m]=$rc
  clean_log "$logdir/$m.run.raw.log" > "$logdir/$m.run.log"
  L=$logdir/$m.run.log
  if grep -q -E '(Error|error)' "$L"; then  # around the first error; FluidX3D appends driver installation notes after it
    tail_log[$m]=$(grep -m1 -n -B6 -A2 -E '(Error|error)' "$L" | sed -E 's/^[0-9]+[:-]//')
  else
    tail_log[$m]=$(grep -vE '^\|[[:space:]]*[0-9]+ \|' "$L" | tail -12; grep -E '^\|[[:space:]]*[0-9]+ \|' "$L" | tail -2)
  fi
  device[$m]=$(grep -m1 -E '^\| Device Name +\|' "$L" | sed -E 's/^\| Device Name +\| *//; s/ *\|$//')
  lbm_type[$m]=$(grep -m1 -E '^\| LBM Type +\|' "$L" | sed -E 's/^\| LBM Type +\| *//; s/ *\|$//')
  box[$m]=$(grep -m1 -E '^\| Grid Resolution +\|' "$L" | sed -E 's/.*\| *([0-9]+) x ([0-9]+) x ([0-9]+) = .*/\1,\2,\3/')
  last_progress[$m]=$(grep -E '^\|[[:space:]]*[0-9]+ \|[[:space:]]*[0-9]+ GB/s \|' "$L" | tail -1)
  steps[$m]=$(grep -m1 -E '^\| Time Steps +\|' "$L" | grep -oE '[0-9]+' | head -1)
  # FluidX3D prints its (smoothed) MLUPs every 50 ms: the median over the second half of these lines
  vals=$(grep -E '^\|[[:space:]]*[0-9]+ \|[[:space:]]*[0-9]+ GB/s \|' "$L" | awk -F'|' '{print $2+0}')
  nv=$(printf '%s' "$vals" | grep -c .)
  median[$m]=""
  [[ $nv -ge 4 ]] && median[$m]=$(printf '%s\n' "$vals" | tail -n $((nv - nv/2)) | sort -n |
    awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
  peak=$(grep -oE 'Peak MLUPs/s = [0-9]+' "$L" | tail -1 | grep -oE '[0-9]+$')
  if [[ $rc == 124 || $rc == 137 ]]; then err[$m]="timed out after $run_timeout s"
  elif [[ $rc != 0 ]]; then err[$m]="FluidX3D exited with code $rc: $(grep -m1 -A1 -E '(Error|error)' "$L" | tr -s ' \n' ' ')"
  elif [[ -z $peak ]]; then err[$m]="no 'Peak MLUPs/s = N' line in the output"
  elif [[ ${lbm_type[$m]} != *"FP32/$m"* ]]; then err[$m]="LBM type printed is '${lbm_type[$m]}', expected D3Q19 SRT (FP32/$m)"
  else mlups[$m]=$peak; fi
  if [[ -n ${err[$m]:-} ]]; then say "$m: FAILED: ${err[$m]}"; printf '%s\n' "${tail_log[$m]}" | sed 's/^/    /' >&2
  else say "$m: ${mlups[$m]} MLUPs/s on ${device[$m]} (${run_s[$m]} s)"; fi
done

# ---------------------------------------------------------------- JSON
bytes_for() { [[ $1 == FP32 ]] && echo 153 || echo 77; }   # FluidX3D: 19*2*sizeof(fpxx)+1 (flags) per cell update
{
  echo "["
  first=1
  for m in $modes; do
    [[ -n $first ]] || echo ","; first=""
    bx=${box[$m]:-${box_src:-256,256,256}}
    printf '  {"code": "FluidX3D", "commit": %s, "storage": %s, "box": [%s],\n' "$(jstr "$commit")" "$(jstr "$m")" "$bx"
    e=${err[$m]:-$global_error}
    if [[ -z $e && -n ${mlups[$m]:-} ]]; then printf '   "mlups": %s.0,\n' "${mlups[$m]}"
    else printf '   "error": %s,\n' "$(jstr "${e:-no result}")"; fi
    printf '   "mlups_definition": "FluidX3D'"'"'s own Peak MLUPs/s: the maximum, sampled after each lbm.run call of the setup, of N*1e-6/(exponentially smoothed time per step)",\n'
    printf '   "time_steps": %s, "median_progress_mlups": %s,\n' "${steps[$m]:-null}" "${median[$m]:-null}"
    printf '   "bytes_per_cell_update": %s, "device": %s, "device_id_arg": %s, "nvidia_smi": %s,\n' "$(bytes_for "$m")" \
      "$(jstr "${device[$m]:-}")" "$(jstr "${dev_ids[*]:-auto}")" "$(jstr "$nvsmi")"
    printf '   "lbm_type": %s, "last_progress_line": %s,\n' "$(jstr "${lbm_type[$m]:-}")" "$(jstr "${last_progress[$m]:-}")"
    printf '   "compile_seconds": %s, "run_seconds": %s, "run_exit_code": %s,\n' "${compile_s[$m]:-null}" "${run_s[$m]:-null}" "${rc_run[$m]:-null}"
    printf '   "defines_switched": %s, "defines_changes": %s, "active_switches": %s,\n' "$(jstr "${summary[$m]:-}")" \
      "$(jstr "${changes[$m]:-}")" "$(jstr "${eff_defines[$m]:-}")"
    printf '   "compiler": %s, "cxxflags": %s, "benchmark_run_call": %s,\n' "$(jstr "$cxx_version")" "$(jstr "$cxxflags")" "$(jstr "$steps_src")"
    printf '   "opencl_loader": %s, "opencl_setup": %s, "opencl_probe": %s,\n' "$(jstr "$loader")" "$(jstr "$env_report")" "$(jstr "$probe_out")"
    printf '   "logs": %s, "log": %s}' "$(jstr "$logdir")" "$(jstr "${tail_log[$m]:-}")"
  done
  echo; echo "]"
} > "$out_json"
say "wrote $out_json"

status=0
for m in $modes; do [[ -n ${mlups[$m]:-} && -z ${err[$m]:-} && -z $global_error ]] || status=1; done
exit $status
