# `cmake --install build --prefix PREFIX` (docs/architecture.md, "Installed layout and the
# CMake package"):
#   bin/hemoflow
#   lib/libhemo_core.so              (RPATH $ORIGIN/../lib from bin, $ORIGIN/.. from plugins)
#   lib/hemoflow/hemo_plugin_*.so    (hemoflow_add_plugin installs them; the loader looks here)
#   include/hemoflow/core/..., physics/...   the public headers, at their repository paths
#   lib/cmake/hemoflow/              the CMake package: find_package(hemoflow)
#   share/doc/hemoflow/              README.md, docs/*.md and their images
#   share/hemoflow/examples/         the example plugins, to copy (docs/plugin-guide.md)
# Nothing in it names PREFIX: the tree works wherever it is moved.
include(CMakePackageConfigHelpers)

install(TARGETS hemoflow RUNTIME DESTINATION ${HEMOFLOW_INSTALL_BINDIR})
install(TARGETS hemo_core EXPORT hemoflowTargets LIBRARY DESTINATION ${HEMOFLOW_INSTALL_LIBDIR})

# The public headers: the plugin API (core/plugin/plugin_api.hpp) and what a plugin may
# use with it. Headers named *_detail.hpp are private to their folder's sources
# (config/toml_detail.hpp needs toml++); core/app, core/partition, core/setup and the rest of core/sim
# are the executable's. No public header needs toml++, SCOTCH, MPI or Boost; hdf5.h is
# needed by core/io/hdf5_file.hpp alone (find_package(hemoflow COMPONENTS HDF5)).
set(HEMOFLOW_PUBLIC_HEADERS
    core/common/*.hpp core/comm/*.hpp core/config/*.hpp core/exec/*.hpp core/exec/*.cuh
    core/fields/*.hpp core/geometry/*.hpp core/io/*.hpp core/mesh/*.hpp core/plugin/*.hpp
    core/scheduler/*.hpp core/sim/memory_plan.hpp core/sim/units.hpp physics/*.hpp)
file(GLOB public_headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR} ${HEMOFLOW_PUBLIC_HEADERS})
list(FILTER public_headers EXCLUDE REGEX "_detail\\.hpp$")
foreach(header IN LISTS public_headers)
  get_filename_component(folder ${header} DIRECTORY)
  install(FILES ${header} DESTINATION ${HEMOFLOW_INSTALL_INCLUDEDIR}/${folder})
endforeach()

# The CMake package. Exact version: a plugin runs only with the hemoflow whose plugin
# ABI it was compiled for (the loader refuses any other number), and before 1.0 the ABI
# changes within a release series, so no other release is promised to be compatible.
install(EXPORT hemoflowTargets NAMESPACE hemoflow:: DESTINATION ${HEMOFLOW_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hemoflowConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/generated/hemoflowConfig.cmake
                              INSTALL_DESTINATION ${HEMOFLOW_INSTALL_CMAKEDIR}
                              PATH_VARS HEMOFLOW_INSTALL_BINDIR HEMOFLOW_PLUGIN_INSTALL_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/generated/hemoflowConfigVersion.cmake
                                 COMPATIBILITY ExactVersion)
install(FILES ${PROJECT_BINARY_DIR}/generated/hemoflowConfig.cmake
              ${PROJECT_BINARY_DIR}/generated/hemoflowConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/hemoflowPlugin.cmake
        DESTINATION ${HEMOFLOW_INSTALL_CMAKEDIR})

install(FILES README.md DESTINATION ${HEMOFLOW_INSTALL_DOCDIR})
file(GLOB docs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${docs} DESTINATION ${HEMOFLOW_INSTALL_DOCDIR})
install(DIRECTORY docs/img DESTINATION ${HEMOFLOW_INSTALL_DOCDIR})
# The example plugins, the plugin guide's starting point on an installed tree.
install(DIRECTORY examples/ DESTINATION ${HEMOFLOW_INSTALL_EXAMPLESDIR})
