// The fused collide-stream kernel of lb_bgk on small meshes (host backend).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "core/exec/launch_host.hpp"
#include "core/mesh/sparse_mesh.hpp"
#include "plugins/lb_bgk/kernels.hpp"

using namespace hemo;
namespace q19 = hemo::phys::d3q19;

HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<double>);

namespace {
struct Lattice {
  mesh::SparseMesh mesh;
  std::vector<double> a, b, rho, u, link_value;
  lb_bgk::CollideStream<double> kernel(double omega, bool moments = true) {
    return {a.data(), b.data(), mesh.neighbours.data(), link_value.empty() ? nullptr : link_value.data(), nullptr,
            rho.data(), u.data(), {0, 0, 0}, {omega}, mesh.stride, moments};
  }
};

Lattice closed_box_with_obstacle() {
  geometry::VoxelGrid v;
  v.dims = {6, 5, 4};
  v.dx = 1.0;
  v.hold(geometry::VoxelWindow::whole(v.dims), 1);
  v.fluid[v.index(2, 2, 1)] = 0;  // a solid voxel inside: links on all its sides
  v.fluid[v.index(3, 2, 2)] = 0;
  Lattice l;
  l.mesh = mesh::build_mesh(v, {}, mesh::Ordering::morton);
  const std::size_t s = l.mesh.stride;
  l.a.assign(q19::Q * s, 0.0);
  l.b.assign(q19::Q * s, 0.0);
  l.rho.assign(s, 0.0);
  l.u.assign(3 * s, 0.0);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> d(-0.01, 0.01);
  for (int q = 0; q < q19::Q; ++q)
    for (std::uint32_t n = 0; n < l.mesh.num_nodes; ++n) l.a[q * s + n] = d(rng);
  return l;
}

std::vector<double> populations(const std::vector<double>& f, const mesh::SparseMesh& m) {
  std::vector<double> out;
  for (int q = 0; q < q19::Q; ++q)
    for (std::uint32_t n = 0; n < m.num_nodes; ++n) out.push_back(f[std::size_t(q) * m.stride + n]);
  return out;
}
}  // namespace

TEST_CASE("streaming with bounce-back permutes the populations: mass is conserved exactly") {
  Lattice l = closed_box_with_obstacle();
  // omega = 0 and no force: the collision is the identity, so one step is pure streaming.
  exec::launch_host(l.kernel(0.0), {0, l.mesh.num_nodes});
  auto before = populations(l.a, l.mesh), after = populations(l.b, l.mesh);
  std::sort(before.begin(), before.end());
  std::sort(after.begin(), after.end());
  CHECK(before == after);
}

TEST_CASE("a wall link returns the node's own opposite population") {
  Lattice l = closed_box_with_obstacle();
  exec::launch_host(l.kernel(0.0), {0, l.mesh.num_nodes});
  const auto n = *l.mesh.find(0, 0, 0);
  const std::size_t s = l.mesh.stride;
  // Direction 1 (+x) at x = 0 is pulled from x = -1: a wall; it comes back from direction 2.
  CHECK(l.b[1 * s + n] == l.a[2 * s + n]);
  // Direction 2 (-x) is pulled from x = 1.
  const auto right = *l.mesh.find(1, 0, 0);
  CHECK(l.b[2 * s + n] == l.a[2 * s + right]);
}

TEST_CASE("the kernel writes density and velocity only when asked") {
  Lattice l = closed_box_with_obstacle();
  exec::launch_host(l.kernel(1.0, false), {0, l.mesh.num_nodes});
  CHECK(std::all_of(l.rho.begin(), l.rho.end(), [](double r) { return r == 0.0; }));
  exec::launch_host(l.kernel(1.0, true), {0, l.mesh.num_nodes});
  // Density is 1 + the sum of the pulled (shifted) populations.
  const auto n = *l.mesh.find(4, 3, 3);
  double sum = 1.0;
  for (int q = 0; q < q19::Q; ++q) {
    const std::uint32_t code = q == 0 ? n : l.mesh.neighbours[std::size_t(q - 1) * l.mesh.stride + n];
    sum += mesh::is_node(code) ? l.a[q * l.mesh.stride + code] : l.a[q19::opposite(q) * l.mesh.stride + n];
  }
  CHECK(l.rho[n] == doctest::Approx(sum).epsilon(1e-14));
}
