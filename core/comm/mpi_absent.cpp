// Built without MPI: every run is serial, and a launcher's ranks are refused.
#include "core/comm/communicator.hpp"
#include "core/common/error.hpp"

namespace hemo::comm {

bool built_with_mpi() { return false; }

std::unique_ptr<Communicator> world(int&, char**&) {
  if (launched_by_mpi())
    throw InputError("this hemoflow was built without MPI (HEMO_MPI=OFF or no MPI found by CMake); "
                     "run it without mpirun, or rebuild with MPI");
  return serial();
}

}  // namespace hemo::comm
