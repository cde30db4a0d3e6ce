// hemo_brick_lb: the BRICK prototype (kernels.hpp) on the voxels of a case's [geometry]:
// measures what the brick layout gives (issue 16) before the mesh moves to it.
//   hemo_brick_lb CASE.toml [--set k=v]... [--steps N] [--backend cpu|cuda]
//                 [--storage fp32|fp64|fp16s|e4m11] [--streaming ab|aa] [--block-size N]
//                 [--check-steps N]
// --streaming aa: in-place streaming, one population array (BrickCollideStreamAA).
// --check-steps N (fp32, fp64): also runs the DENSE reference (tools/bench/dense_lb, the
// same update with direct addressing) for N steps and requires every fluid voxel's 19
// populations to be bitwise equal to the brick run's; exit 1 otherwise.
// Prints one JSON object: voxels, fluid nodes, bricks, fill, MFLUPS, the bytes per fluid
// update as counted and the device memory the arrays take.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/config/config.hpp"
#include "core/exec/cuda_runtime.hpp"
#include "core/exec/device_array.hpp"
#include "core/exec/for_each.hpp"
#include "core/geometry/shapes.hpp"
#include "core/sim/case_schema.hpp"
#include "core/sim/units.hpp"
#include "physics/storage16.hpp"
#include "tools/bench/brick_lb/kernels.hpp"
#include "tools/bench/dense_lb/dense_box.hpp"

using namespace hemo;

namespace {

/// The bricks of 4^3 voxels that hold fluid, in lexicographic brick order.
struct Bricks {
  int nb[3] = {0, 0, 0};                 // bricks per axis (the box rounded up)
  std::vector<std::uint32_t> id_of;      // per brick of the box: its id, or no_brick
  std::vector<std::int64_t> origin;      // per stored brick: its box brick index
  std::vector<std::uint64_t> mask;       // per stored brick: fluid slots
  std::vector<std::uint32_t> table;      // 27 per stored brick
  std::int64_t fluid = 0;
};

Bricks make_bricks(const geometry::VoxelGrid& vox) {
  Bricks b;
  for (int a = 0; a < 3; ++a) b.nb[a] = (vox.dims[a] + 3) / 4;
  const std::int64_t boxes = std::int64_t(b.nb[0]) * b.nb[1] * b.nb[2];
  std::vector<std::uint64_t> box_mask(std::size_t(boxes), 0);
  for (int k = 0; k < vox.dims[2]; ++k)
    for (int j = 0; j < vox.dims[1]; ++j)
      for (int i = 0; i < vox.dims[0]; ++i)
        if (vox.is_fluid(i, j, k)) {
          const std::int64_t bb = i / 4 + b.nb[0] * (j / 4 + std::int64_t(b.nb[1]) * (k / 4));
          box_mask[std::size_t(bb)] |= std::uint64_t(1) << ((i & 3) + 4 * (j & 3) + 16 * (k & 3));
          ++b.fluid;
        }
  b.id_of.assign(std::size_t(boxes), bench::no_brick);
  for (std::int64_t bb = 0; bb < boxes; ++bb)
    if (box_mask[std::size_t(bb)]) {
      b.id_of[std::size_t(bb)] = std::uint32_t(b.origin.size());
      b.origin.push_back(bb);
      b.mask.push_back(box_mask[std::size_t(bb)]);
    }
  b.table.resize(b.origin.size() * 27);
  for (std::size_t s = 0; s < b.origin.size(); ++s) {
    const std::int64_t bb = b.origin[s];
    const int bi = int(bb % b.nb[0]), bj = int(bb / b.nb[0] % b.nb[1]), bk = int(bb / (std::int64_t(b.nb[0]) * b.nb[1]));
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int x = bi + dx, y = bj + dy, z = bk + dz;
          const bool inside = x >= 0 && y >= 0 && z >= 0 && x < b.nb[0] && y < b.nb[1] && z < b.nb[2];
          b.table[s * 27 + std::size_t((dx + 1) + 3 * (dy + 1) + 9 * (dz + 1))] =
              inside ? b.id_of[std::size_t(x + b.nb[0] * (y + std::int64_t(b.nb[1]) * z))] : bench::no_brick;
        }
  }
  return b;
}

template <class Real, class Store>
int run(const config::Config& cfg, exec::Space space, std::int64_t steps, int block_size, int check_steps,
        const char* storage, bool aa) {
  const LatticeUnits units = derive_units(cfg);
  const geometry::VoxelGrid vox = geometry::build(cfg.section("geometry"), units.dx, std::int64_t(1) << 32);
  const Bricks br = make_bricks(vox);
  const std::size_t slots = br.origin.size() * 64;
  if (slots >= (std::size_t(1) << 32) - 64) throw InputError("too many bricks for 32-bit node indices");
  const auto stride = static_cast<std::uint32_t>(slots);  // a multiple of 64: rows stay aligned

  std::size_t free0 = 0, total_mem = 0;
  if (space == exec::Space::cuda) exec::cuda::memory_info(free0, total_mem);
  exec::DeviceArray<Store> a(space, std::size_t(19) * stride), b(space, aa ? 0 : std::size_t(19) * stride);
  exec::DeviceArray<Real> rho(space, stride), vel(space, std::size_t(3) * stride);
  exec::DeviceArray<std::uint64_t> mask(space, br.mask.size());
  exec::DeviceArray<std::uint32_t> table(space, br.table.size());
  mask.upload(br.mask);
  table.upload(br.table);
  std::size_t free1 = free0;
  if (space == exec::Space::cuda) exec::cuda::memory_info(free1, total_mem);
  const std::size_t array_bytes = a.bytes() + b.bytes() + rho.bytes() + vel.bytes() + mask.bytes() + table.bytes();

  exec::for_each(space, {0, stride}, bench::DenseInit<Store>{a.data(), stride}, "brick_init", block_size);
  if (!aa) exec::for_each(space, {0, stride}, bench::DenseInit<Store>{b.data(), stride}, "brick_init", block_size);
  const auto g = cfg.vec3("forcing.acceleration");
  const phys::Vec3<Real> accel{Real(units.acceleration_to_lattice(g[0])), Real(units.acceleration_to_lattice(g[1])),
                               Real(units.acceleration_to_lattice(g[2]))};
  bench::BrickCollideStream<Real, Store> k{};
  k.fluid_mask = mask.data();
  k.brick_table = table.data();
  k.density = rho.data();
  k.velocity = vel.data();
  k.acceleration = accel;
  k.collision.omega = Real(units.omega());
  k.stride = stride;
  k.write_moments = false;
  bench::BrickCollideStreamAA<Real, Store> kaa{a.data(), mask.data(), table.data(), rho.data(), vel.data(),
                                              accel, {Real(units.omega())}, stride, false, false};
  auto step = [&](std::int64_t s) {
    if (aa) {
      kaa.odd = s % 2 == 1;
      exec::for_each(space, {0, stride}, kaa, "brick_collide_stream_aa", block_size);
      return;
    }
    k.f_in = (s % 2 == 0) ? a.data() : b.data();
    k.f_out = (s % 2 == 0) ? b.data() : a.data();
    exec::for_each(space, {0, stride}, k, "brick_collide_stream", block_size);
  };
  if (aa && check_steps % 2 == 0) ++check_steps;  // compare after an even step: f*_q in slot opp(q)

  int status = 0;
  std::string check = "not run";
  if (check_steps > 0) {
    if constexpr (std::is_same_v<Real, Store>) {
      // The DENSE reference on the same voxels, the same number of steps from h = 0.
      bench::DenseBox<Real> dense_box(space, vox, accel, Real(units.omega()));
      for (int s = 0; s < check_steps; ++s) {
        dense_box.step(s);
        step(s);
      }
      std::vector<Real> dense(dense_box.a.size()), brick(a.size());
      dense_box.state(check_steps).download(dense.data());
      ((aa || check_steps % 2 == 0) ? a : b).download(brick.data());
      std::int64_t compared = 0, differ = 0;
      for (std::size_t s = 0; s < br.origin.size(); ++s) {
        const std::int64_t bb = br.origin[s];
        const int bi = int(bb % br.nb[0]), bj = int(bb / br.nb[0] % br.nb[1]), bk = int(bb / (std::int64_t(br.nb[0]) * br.nb[1]));
        for (int slot = 0; slot < 64; ++slot) {
          if (!(br.mask[s] >> slot & 1u)) continue;
          const int i = 4 * bi + (slot & 3), j = 4 * bj + (slot >> 2 & 3), kk = 4 * bk + (slot >> 4);
          const std::size_t dn = dense_box.index(i, j, kk), bn = s * 64 + std::size_t(slot);
          for (int q = 0; q < 19; ++q) {
            ++compared;
            const int slot_q = aa ? phys::d3q19::opposite(q) : q;
            if (std::memcmp(&dense[std::size_t(q) * dense_box.stride + dn], &brick[std::size_t(slot_q) * stride + bn], sizeof(Real)))
              ++differ;
          }
        }
      }
      check = str(compared, " populations after ", check_steps, " steps, ", differ, " differ from DENSE");
      if (differ) status = 1;
      exec::for_each(space, {0, stride}, bench::DenseInit<Store>{a.data(), stride}, "brick_init", block_size);
      if (!aa) exec::for_each(space, {0, stride}, bench::DenseInit<Store>{b.data(), stride}, "brick_init", block_size);
    } else {
      check = "not run (16-bit storage: DENSE has none)";
    }
  }

  for (int s = 0; s < 10; ++s) step(s);  // warm-up
  if (space == exec::Space::cuda) exec::cuda::synchronize("brick warm-up");
  const auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t s = 0; s < steps; ++s) step(s);
  if (space == exec::Space::cuda) exec::cuda::synchronize("brick steps");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::vector<Store> host(a.size());
  a.download(host.data());
  for (std::size_t i = 0; i < host.size(); i += 4099)
    if (!(double(host[i]) == double(host[i]))) throw std::runtime_error("brick run produced NaN");

  const double fill = double(br.fluid) / double(slots);
  const double mlups = double(br.fluid) * double(steps) / seconds / 1e6;
  // Counted per fluid-node update, every slot of a brick moving its populations (the
  // upper bound of docs/layouts.md's brick column): 38 values per slot, the brick's mask
  // (8 B) and table (27 x 4 B), over the brick's fluid slots.
  const double bytes_per_update = (38.0 * double(sizeof(Store)) * 64.0 + 8.0 + 108.0) / (64.0 * fill);
  std::printf("{\"layout\": \"brick4\", \"streaming\": \"%s\", \"backend\": \"%s\", \"storage\": \"%s\", \"voxels\": %lld, "
              "\"fluid_nodes\": %lld, \"bricks\": %zu, \"fill\": %.4f, \"steps\": %lld, \"seconds\": %.6f, "
              "\"mlups\": %.2f, \"bytes_per_update\": %.1f, \"array_bytes\": %zu, \"device_memory_bytes\": %zu, "
              "\"block_size\": %d, \"check\": \"%s\"}\n",
              aa ? "aa" : "ab", exec::to_string(space), storage, static_cast<long long>(vox.voxel_count()),
              static_cast<long long>(br.fluid), br.origin.size(), fill, static_cast<long long>(steps), seconds, mlups,
              bytes_per_update, array_bytes, space == exec::Space::cuda ? free0 - free1 : array_bytes, block_size,
              check.c_str());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string case_path, backend = "cuda", storage = "fp32", streaming = "ab";
    std::vector<std::string> sets;
    std::int64_t steps = 100;
    int block_size = exec::default_block_size, check_steps = 0;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw InputError(a + " needs a value");
        return argv[++i];
      };
      if (a == "--set") sets.push_back(next());
      else if (a == "--steps") steps = std::stoll(next());
      else if (a == "--backend") backend = next();
      else if (a == "--storage") storage = next();
      else if (a == "--streaming") streaming = next();
      else if (a == "--block-size") block_size = std::stoi(next());
      else if (a == "--check-steps") check_steps = std::stoi(next());
      else if (case_path.empty() && a[0] != '-') case_path = a;
      else throw InputError("unknown argument '" + a + "'");
    }
    if (case_path.empty())
      throw InputError("usage: hemo_brick_lb CASE.toml [--set k=v] [--steps N] [--backend cpu|cuda] [--storage S]");
    config::Document doc = config::Document::load(case_path);
    for (const auto& s : sets) doc.apply_override(s);
    config::Schema schema;
    declare_core_schema(schema);
    const config::Config cfg = doc.validate(schema);
    const exec::Space space = backend == "cuda" ? exec::Space::cuda : exec::Space::host;
    const char* st = storage.c_str();
    if (streaming != "ab" && streaming != "aa") throw InputError("--streaming must be ab or aa, not '" + streaming + "'");
    const bool aa = streaming == "aa";
    if (storage == "fp32") return run<float, float>(cfg, space, steps, block_size, check_steps, st, aa);
    if (storage == "fp64") return run<double, double>(cfg, space, steps, block_size, check_steps, st, aa);
    if (storage == "fp16s") return run<float, phys::Fp16s>(cfg, space, steps, block_size, check_steps, st, aa);
    if (storage == "e4m11") return run<float, phys::E4m11s>(cfg, space, steps, block_size, check_steps, st, aa);
    throw InputError("--storage must be fp32, fp64, fp16s or e4m11, not '" + storage + "'");
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
