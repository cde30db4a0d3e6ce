# hemoflow_add_plugin(NAME SOURCES ... [CUDA_SOURCES ...] [LINK ...])
#
# Builds a hemoflow plugin: a shared library hemo_plugin_<NAME>.so that the loader
# (core/plugin/loader) finds through HEMO_PLUGIN_PATH or beside the installed plugins.
# The same function builds the plugins in this repository and, through
# find_package(hemoflow), a plugin outside it; the target links hemoflow::core.
#
#   SOURCES       host sources (plugin.cpp with HEMO_EXPORT_PLUGIN, cpu.cpp with the
#                 functors instantiated for the host backend, ...)
#   CUDA_SOURCES  .cu files with the same functors instantiated for the CUDA backend;
#                 compiled only where hemoflow has a CUDA backend (HEMOFLOW_HAVE_CUDA)
#                 and a CUDA compiler is found (HEMOFLOW_PLUGIN_CUDA; without one the
#                 plugin is built for the CPU alone, and a run with --backend cuda
#                 stops at its first kernel saying so),
#                 with hemoflow's flags: its CUDA architectures, C++20, relaxed
#                 constexpr and, unless hemoflow was built with HEMO_CUDA_FMAD, no FMA
#                 contraction (so GPU results equal the CPU's bitwise). Keep host-only
#                 headers (toml++, hdf5, mpi, boost) out of them: include only the
#                 plugin's kernels.hpp and core/exec/launch_cuda.cuh.
#   LINK          further libraries (e.g. HDF5::HDF5 when the plugin writes files
#                 through core/io/hdf5_file.hpp)
#
# Variables it reads (set by hemoflowConfig.cmake, or by hemoflow's own build):
#   HEMOFLOW_HAVE_CUDA, HEMOFLOW_PLUGIN_CUDA (default: HEMOFLOW_HAVE_CUDA),
#   HEMOFLOW_CUDA_ARCHITECTURES, HEMOFLOW_CUDA_FMAD,
#   HEMOFLOW_PLUGIN_INSTALL_DIR (where `cmake --install` puts the plugin; relative
#   paths are under CMAKE_INSTALL_PREFIX; lib/hemoflow, where hemoflow looks, unless
#   set before find_package(hemoflow)).
function(hemoflow_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;CUDA_SOURCES;LINK")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hemoflow_add_plugin(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS} "
                        "(expected SOURCES, CUDA_SOURCES, LINK)")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "hemoflow_add_plugin(${name}): SOURCES is empty (a plugin needs at least the "
                        "file with HEMO_EXPORT_PLUGIN)")
  endif()
  if(NOT name MATCHES "^[a-z][a-z0-9_]*$")
    message(FATAL_ERROR "hemoflow_add_plugin(${name}): a plugin name is lower case letters, digits and "
                        "underscores, starting with a letter (it is the case file's table name)")
  endif()
  set(target hemo_plugin_${name})
  set(sources ${ARG_SOURCES})
  set(cuda ${HEMOFLOW_HAVE_CUDA})
  if(DEFINED HEMOFLOW_PLUGIN_CUDA AND NOT HEMOFLOW_PLUGIN_CUDA)
    set(cuda OFF)
  endif()
  if(cuda)
    if(NOT ARG_CUDA_SOURCES)
      message(FATAL_ERROR "hemoflow_add_plugin(${name}): this hemoflow has a CUDA backend, so the plugin "
                          "needs CUDA_SOURCES (a .cu file instantiating its functors with "
                          "HEMO_INSTANTIATE_CUDA)")
    endif()
    list(APPEND sources ${ARG_CUDA_SOURCES})
  endif()
  add_library(${target} MODULE ${sources})
  set_target_properties(${target} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden
                        CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  target_link_libraries(${target} PRIVATE hemoflow::core ${ARG_LINK})
  if(HEMOFLOW_HAVE_CUDA AND NOT cuda)
    target_compile_definitions(${target} PRIVATE HEMO_PLUGIN_CPU_ONLY=1)
    message(STATUS "hemoflow_add_plugin(${name}): built for the CPU alone (HEMOFLOW_PLUGIN_CUDA is off)")
  endif()
  if(cuda)
    set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${HEMOFLOW_CUDA_ARCHITECTURES}"
                          CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON CUDA_EXTENSIONS OFF)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
    if(NOT HEMOFLOW_CUDA_FMAD)
      target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false>)
    endif()
  endif()
  if(HEMOFLOW_PLUGIN_INSTALL_DIR)
    # Installed one folder below libhemo_core (<prefix>/lib/hemoflow beside <prefix>/lib),
    # the plugin finds it there however the prefix is moved. (Loaded by hemoflow, it finds
    # the core already loaded anyway; the path serves ldd and dpkg-shlibdeps.)
    set_target_properties(${target} PROPERTIES INSTALL_RPATH "\$ORIGIN/..")
    install(TARGETS ${target} LIBRARY DESTINATION ${HEMOFLOW_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
