#include "core/setup/resources.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace hemo::setup {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  return "unknown CPU";
}

std::int64_t voxel_limit() {
  constexpr std::int64_t index_limit = std::int64_t(1) << 31;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return index_limit;
  return std::min(index_limit, std::int64_t(pages) * std::int64_t(page) / 9);
}

int ranks_on_this_node(int ranks, bool in_process, const std::function<const char*(const char*)>& environment) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"})
    if (const char* v = environment(name)) {
      const int n = std::atoi(v);
      if (n > 0) return std::min(n, ranks);
    }
  return in_process ? ranks : 1;
}

}  // namespace hemo::setup
