# `cpack -G DEB` in the build folder (or `make package`): a Debian package of what
# `cmake --install` installs (cmake/install.cmake), under /usr. Its dependencies are the
# Debian packages of the shared libraries hemoflow, libhemo_core and the plugins need, as
# dpkg-shlibdeps finds them (libhemo_core, in the package, is resolved through the
# $ORIGIN RPATHs). The CUDA runtime (libcudart) of a CUDA build comes from NVIDIA's
# toolkit, not from Debian: it is not listed, and must be on the loader path.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hemoflow)
set(CPACK_PACKAGE_VENDOR "hemoflow developers")
set(CPACK_PACKAGE_CONTACT "hemoflow developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "lattice-Boltzmann blood-flow solver with plugins")
set(package_gpus "")
set(package_cuda_runtime "")
set(package_ranks "one rank (built without MPI)")
if(HEMO_HAVE_MPI)
  set(package_ranks "MPI across ranks")
endif()
if(HEMO_HAVE_CUDA)
  set(package_gpus " and NVIDIA GPUs (CUDA, sm_${CMAKE_CUDA_ARCHITECTURES})")
  set(package_cuda_runtime "The CUDA ${CUDAToolkit_VERSION_MAJOR} runtime (libcudart) comes from NVIDIA, not from Debian.\n")
endif()
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "hemoflow simulates blood flow in vessels with the lattice-Boltzmann method\n"
       "on the CPU (OpenMP)${package_gpus}, with ${package_ranks};\n"
       "its physics are plugins loaded at run time.\n"
       "${package_cuda_runtime}"
       "The package holds the executable, libhemo_core, the plugins, the plugin\n"
       "headers and the CMake package (find_package(hemoflow)) for plugins built\n"
       "outside the source tree (plugin ABI ${HEMOFLOW_PLUGIN_ABI}), and the documentation.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "hemoflow developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A plugin package can depend on the ABI it was built for.
set(CPACK_DEBIAN_PACKAGE_PROVIDES "hemoflow-plugin-abi-${HEMOFLOW_PLUGIN_ABI}")
# What building a plugin against the package takes.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.24), g++, libhdf5-dev")
include(CPack)
