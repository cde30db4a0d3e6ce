#!/usr/bin/env bash
# hemoflow as a plugin author gets it (issue 15; docs/architecture.md, "Installed layout
# and the CMake package"). Usage: sdk.sh CMAKE BUILD SOURCE WORK SCENARIO
#   install-prefix  `cmake --install BUILD` into a prefix, then moved elsewhere: nothing
#                   names the first prefix; the moved hemoflow lists every plugin of
#                   SOURCE/plugins from its lib/hemoflow, whose libhemo_core is the
#                   moved one; `check` and a 5-step run of a small case pass; every
#                   installed header keeps its includes inside the tree, none needs
#                   toml++, SCOTCH, MPI or Boost (hdf5.h: core/io/hdf5_file.hpp alone),
#                   and all compile in a project that finds the package
#                   (tests/sdk/headers). Leaves the moved prefix in WORK/prefix.
#   out-of-tree     every example the prefix installed (PREFIX/share/hemoflow/examples/*/,
#                   the copies the plugin guide starts from) configured, built and tested
#                   (its own ctest) in a build folder of its own against WORK/prefix
#                   (left by install-prefix, with the same WORK), never the source tree;
#                   and the guide's commands as written (docs/plugin-guide.md, "In five
#                   minutes"): PATH, the example copied into an empty folder, configured,
#                   built, hemoflow info listing it, a run, ctest.
#   deb             `cpack -G DEB` in BUILD, unpacked with dpkg-deb -x into a staging
#                   folder: the package's fields (version, ABI, Depends), its docs, the
#                   checks of install-prefix on STAGE/usr (but compiling the headers: the
#                   files are the same), and the examples built and tested against it.
# HEMO_SDK_EXAMPLES=DIR builds DIR/*/ instead of the installed examples (to try a plugin).
# HEMO_SDK_PYTHON=PYTHON (the Python hemoflow's tests use) comes first on the PATH of the
# examples' builds and tests, so that they find the same one.
set -euo pipefail

cmake=$1 build=$2 source=$3 work=$4 scenario=$5
cmake_bin=$(dirname "$cmake")
unset HEMO_PLUGIN_PATH   # the installed hemoflow must find its plugins by itself
if [ -n "${HEMO_SDK_PYTHON:-}" ]; then PATH=$(dirname "$HEMO_SDK_PYTHON"):$PATH; fi
jobs=2

fail() { echo "sdk $scenario: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

# The plugin ABI as the header states it.
plugin_abi() { sed -n 's/^inline constexpr int plugin_abi_version = \([0-9]*\);.*/\1/p' "$source/core/plugin/plugin_api.hpp"; }

# check_hemoflow PREFIX: the hemoflow at PREFIX finds its plugins and runs a case.
check_hemoflow() {
  local prefix=$1 info name plugin core
  step "hemoflow info at $prefix"
  info=$("$prefix/bin/hemoflow" info) || fail "hemoflow info at $prefix exited with $?"
  echo "$info"
  for dir in "$source"/plugins/*/; do
    name=$(basename "$dir")
    plugin=$prefix/lib/hemoflow/hemo_plugin_$name.so
    grep -qE "^  $name +" <<<"$info" || fail "hemoflow info does not list plugin $name"
    grep -qF "$plugin" <<<"$info" || fail "plugin $name is not listed from $plugin"
    core=$(ldd "$plugin" | awk '$1 == "libhemo_core.so" {print $3}')
    [ -n "$core" ] && [ "$(realpath "$core")" = "$(realpath "$prefix/lib/libhemo_core.so")" ] ||
      fail "$plugin resolves libhemo_core.so to '$core', not $prefix/lib/libhemo_core.so (RPATH \$ORIGIN/..)"
  done
  step "hemoflow check and run at $prefix"
  "$prefix/bin/hemoflow" check "$source/cases/poiseuille_pipe.toml" || fail "hemoflow check at $prefix failed"
  "$prefix/bin/hemoflow" run "$source/cases/poiseuille_pipe.toml" --steps 5 --quiet --output "$work/run" ||
    fail "hemoflow run at $prefix failed"
}

# check_header_includes INCLUDE_DIR: the plugin API's entry headers and every core/io
# header are installed; every quoted include resolves inside the tree; no third-party
# header but hdf5.h (in core/io/hdf5_file.hpp) and the CUDA runtime's.
check_header_includes() {
  local inc=$1 header target bad io_headers=("$source"/core/io/*.hpp)
  step "installed headers under $inc"
  for header in core/plugin/plugin_api.hpp core/exec/launch_cuda.cuh core/exec/launch_host.hpp \
                core/exec/for_each.hpp physics/bgk.hpp "${io_headers[@]#"$source/"}"; do
    [ -f "$inc/$header" ] || fail "$inc/$header is not installed"
  done
  while IFS= read -r header; do
    while IFS= read -r target; do
      [ -f "$inc/$target" ] || fail "${header#"$inc/"} includes \"$target\", which is not installed"
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$header")
  done < <(find "$inc" -name '*.hpp' -o -name '*.cuh')
  bad=$(grep -rnE '^\s*#\s*include\s*<(toml|scotch|ptscotch|mpi|boost/|hdf5)' "$inc" |
        grep -v '^[^:]*/core/io/hdf5_file.hpp:[0-9]*:#include <hdf5.h>' || true)
  [ -z "$bad" ] || fail "installed headers need private third-party headers:"$'\n'"$bad"
}

# build_examples PREFIX: each example configured, built and tested against PREFIX.
build_examples() {
  local prefix=$1 examples=${HEMO_SDK_EXAMPLES:-$1/share/hemoflow/examples} list=() ex name dir
  for ex in "$examples"/*/CMakeLists.txt; do [ -f "$ex" ] && list+=("$(dirname "$ex")"); done
  [ ${#list[@]} -gt 0 ] || fail "no example plugin: $examples/*/CMakeLists.txt matches nothing (an out-of-tree plugin must be built here)"
  for ex in "${list[@]}"; do
    name=$(basename "$ex")
    dir=$work/examples/$name
    step "example $name against $prefix, in $dir"
    rm -rf "$dir"
    "$cmake" -S "$ex" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ||
      fail "example $name: configure failed"
    "$cmake" --build "$dir" -j "$jobs" || fail "example $name: build failed"
    if grep -qE -- "(-I|-isystem )$source(/core|/physics)?( |\")" "$dir/compile_commands.json"; then
      fail "example $name compiles against the source tree ($source), not the installed headers"
    fi
    "$cmake_bin/ctest" --test-dir "$dir" --output-on-failure || fail "example $name: its tests failed"
  done
}

# follow_guide PREFIX: the plugin guide's five-minute path, its commands as written there
# with /opt/hemoflow replaced by PREFIX, in an empty folder (docs/plugin-guide.md).
follow_guide() {
  local prefix=$1 dir=$work/guide
  step "the plugin guide's five minutes against $prefix, in $dir"
  rm -rf "$dir" && mkdir -p "$dir"
  (
    set -e
    cd "$dir"
    export PATH=$prefix/bin:$PATH
    cp -r "$prefix/share/hemoflow/examples/kinetic_energy" .
    cd kinetic_energy
    "$cmake" -S . -B build -DCMAKE_PREFIX_PATH="$prefix" > configure.log
    "$cmake" --build build -j "$jobs" > build.log
    export HEMO_PLUGIN_PATH=$PWD/build
    hemoflow info | grep -qE '^  kinetic_energy ' || { echo "hemoflow info does not list kinetic_energy"; exit 1; }
    hemoflow run pipe.toml --output out --quiet
    [ -s out/kinetic_energy.csv ] || { echo "no out/kinetic_energy.csv"; exit 1; }
    "$cmake_bin/ctest" --test-dir build --output-on-failure > ctest.log || { cat ctest.log; exit 1; }
    grep -q "built for the CPU alone" configure.log && { echo "built for the CPU alone though nvcc is here"; exit 1; }
    # For the CPU alone, as where no nvcc is: no GPU kernel compiled or needed, and the
    # plugin loads into a hemoflow with a CUDA backend and runs its case on the CPU.
    "$cmake" -S . -B build-cpu -DCMAKE_PREFIX_PATH="$prefix" -DHEMOFLOW_PLUGIN_CUDA=OFF > configure-cpu.log
    "$cmake" --build build-cpu -j "$jobs" > build-cpu.log
    if "$prefix/bin/hemoflow" info | grep -q "cuda.*built"; then
      grep -q "built for the CPU alone" configure-cpu.log || { echo "HEMOFLOW_PLUGIN_CUDA=OFF did not say so"; exit 1; }
    fi
    ! ls build-cpu/CMakeFiles/hemo_plugin_kinetic_energy.dir/*.cu.o > /dev/null 2>&1 || { echo "CUDA objects built"; exit 1; }
    "$cmake_bin/ctest" --test-dir build-cpu --output-on-failure > ctest-cpu.log || { cat ctest-cpu.log; exit 1; }
  ) || fail "the plugin guide's commands failed (in $dir)"
}

case $scenario in
  install-prefix)
    first=$work/first prefix=$work/prefix
    rm -rf "$work" && mkdir -p "$work"
    step "cmake --install $build --prefix $first"
    "$cmake" --install "$build" --prefix "$first" > "$work/install.log" || fail "cmake --install failed"
    mv "$first" "$prefix"
    hits=$(grep -rlF "$first" "$prefix" || true)
    [ -z "$hits" ] || fail "installed files name the install prefix $first (not relocatable):"$'\n'"$hits"
    check_hemoflow "$prefix"
    check_header_includes "$prefix/include/hemoflow"
    step "the public headers compile against the package (tests/sdk/headers)"
    "$cmake" -S "$source/tests/sdk/headers" -B "$work/headers" -DCMAKE_PREFIX_PATH="$prefix" ||
      fail "find_package(hemoflow COMPONENTS HDF5) against $prefix failed"
    "$cmake" --build "$work/headers" -j "$jobs" || fail "the installed headers do not compile"
    ;;
  out-of-tree)
    [ -x "$work/prefix/bin/hemoflow" ] || fail "no installed tree at $work/prefix (run scenario install-prefix first)"
    build_examples "$work/prefix"
    follow_guide "$work/prefix"
    ;;
  deb)
    rm -rf "$work" && mkdir -p "$work"
    step "cpack -G DEB in $build"
    (cd "$build" && "$cmake_bin/cpack" -G DEB -B "$work/package") > "$work/cpack.log" ||
      { cat "$work/cpack.log"; fail "cpack failed"; }
    debs=("$work"/package/*.deb)
    [ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "cpack made ${#debs[@]} .deb files"
    deb=${debs[0]}
    dpkg-deb --info "$deb"
    version=$(sed -n 's/^project(hemoflow VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
    [ "$(dpkg-deb -f "$deb" Package)" = hemoflow ] || fail "package name is not hemoflow"
    [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "package version is not $version"
    [ "$(dpkg-deb -f "$deb" Provides)" = "hemoflow-plugin-abi-$(plugin_abi)" ] || fail "Provides is not the plugin ABI"
    for lib in libhdf5 libtomlplusplus libscotch libboost-filesystem libgomp1; do
      dpkg-deb -f "$deb" Depends | grep -q "$lib" || fail "Depends lacks $lib"
    done
    stage=$work/stage
    dpkg-deb -x "$deb" "$stage"
    for doc in README.md architecture.md plugin-guide.md; do
      [ -f "$stage/usr/share/doc/hemoflow/$doc" ] || fail "the package lacks /usr/share/doc/hemoflow/$doc"
    done
    check_hemoflow "$stage/usr"
    check_header_includes "$stage/usr/include/hemoflow"
    build_examples "$stage/usr"
    ;;
  *) fail "unknown scenario (install-prefix, out-of-tree, deb)" ;;
esac
echo "sdk $scenario: ok"
