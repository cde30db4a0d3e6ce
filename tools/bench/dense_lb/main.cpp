// hemo_dense_lb: runs the DENSE (full box, direct addressing) D3Q19 BGK update on the
// voxels of a case's [geometry], for comparison with hemoflow's SPARSE mesh.
//   hemo_dense_lb CASE.toml [--set k=v]... [--steps N] [--backend cpu|cuda]
//                 [--precision fp32|fp64] [--block-size N]
// Prints one JSON object: voxels, fluid nodes, MFLUPS (fluid-node updates), bytes moved
// per fluid update as counted, and the device memory the arrays take.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/common/error.hpp"
#include "core/config/config.hpp"
#include "core/exec/cuda_runtime.hpp"
#include "core/exec/device_array.hpp"
#include "core/exec/for_each.hpp"
#include "core/geometry/shapes.hpp"
#include "core/sim/case_schema.hpp"
#include "core/sim/units.hpp"
#include "tools/bench/dense_lb/dense_box.hpp"

using namespace hemo;

namespace {

template <class Real>
int run(const config::Config& cfg, exec::Space space, std::int64_t steps, int block_size) {
  const LatticeUnits units = derive_units(cfg);
  const geometry::VoxelGrid vox = geometry::build(cfg.section("geometry"), units.dx, std::int64_t(1) << 32);
  const auto g = cfg.vec3("forcing.acceleration");
  const phys::Vec3<Real> accel{Real(units.acceleration_to_lattice(g[0])), Real(units.acceleration_to_lattice(g[1])),
                               Real(units.acceleration_to_lattice(g[2]))};
  std::size_t free0 = 0, total_mem = 0;
  if (space == exec::Space::cuda) exec::cuda::memory_info(free0, total_mem);
  bench::DenseBox<Real> box(space, vox, accel, Real(units.omega()));
  std::size_t free1 = free0;
  if (space == exec::Space::cuda) exec::cuda::memory_info(free1, total_mem);
  const std::size_t array_bytes = box.array_bytes();
  const std::int64_t fluid_nodes = box.fluid_nodes;
  auto step = [&](std::int64_t s) { box.step(s, block_size); };
  for (int s = 0; s < 10; ++s) step(s);  // warm-up
  if (space == exec::Space::cuda) exec::cuda::synchronize("dense warm-up");
  const auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t s = 0; s < steps; ++s) step(s);
  if (space == exec::Space::cuda) exec::cuda::synchronize("dense steps");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // Check the result is not garbage: the populations must be finite.
  std::vector<Real> host(box.a.size());
  box.a.download(host.data());
  for (std::size_t i = 0; i < host.size(); i += 4099)
    if (!(host[i] == host[i])) throw std::runtime_error("dense run produced NaN");

  const double mlups = double(fluid_nodes) * double(steps) / seconds / 1e6;
  // Counted per fluid-node update: 19 populations read, 19 written, the node's own flag.
  // The 18 neighbour flags are read too but come from cache (neighbouring bytes); they
  // are not counted, as in FluidX3D's 153 B figure.
  const int bytes_per_update = int(2 * 19 * sizeof(Real) + 1);
  std::printf("{\"layout\": \"dense\", \"backend\": \"%s\", \"precision\": \"%s\", \"voxels\": %lld, "
              "\"fluid_nodes\": %lld, \"fluid_fraction\": %.4f, \"steps\": %lld, \"seconds\": %.6f, \"mlups\": %.2f, "
              "\"bytes_per_update\": %d, \"array_bytes\": %zu, \"device_memory_bytes\": %zu, \"block_size\": %d}\n",
              exec::to_string(space), sizeof(Real) == 4 ? "fp32" : "fp64", static_cast<long long>(vox.voxel_count()),
              static_cast<long long>(fluid_nodes), double(fluid_nodes) / double(vox.voxel_count()),
              static_cast<long long>(steps), seconds, mlups, bytes_per_update, array_bytes,
              space == exec::Space::cuda ? free0 - free1 : array_bytes, block_size);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string case_path, backend = "cuda", precision = "fp32";
    std::vector<std::string> sets;
    std::int64_t steps = 100;
    int block_size = exec::default_block_size;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw InputError(a + " needs a value");
        return argv[++i];
      };
      if (a == "--set") sets.push_back(next());
      else if (a == "--steps") steps = std::stoll(next());
      else if (a == "--backend") backend = next();
      else if (a == "--precision") precision = next();
      else if (a == "--block-size") block_size = std::stoi(next());
      else if (case_path.empty() && a[0] != '-') case_path = a;
      else throw InputError("unknown argument '" + a + "'");
    }
    if (case_path.empty()) throw InputError("usage: hemo_dense_lb CASE.toml [--set k=v] [--steps N] [--backend cpu|cuda]");
    config::Document doc = config::Document::load(case_path);
    for (const auto& s : sets) doc.apply_override(s);
    config::Schema schema;
    declare_core_schema(schema);
    // Only core sections are understood: a benchmark case has plain walls and no plugin
    // sections, so the same file runs unchanged in hemoflow.
    const config::Config cfg = doc.validate(schema);
    const exec::Space space = backend == "cuda" ? exec::Space::cuda : exec::Space::host;
    return precision == "fp64" ? run<double>(cfg, space, steps, block_size) : run<float>(cfg, space, steps, block_size);
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
