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
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<double, hemo::phys::TrtCollision<double>, double, hemo::mesh::NodeListView>);
HEMO_INSTANTIATE_HOST(hemo::lb_bgk::CollideStream<double, hemo::phys::TrtCollision<double>, double, hemo::mesh::BrickView>);

namespace {
struct Lattice {
  mesh::SparseMesh mesh;
  std::vector<double> a, b, rho, u, link_value;
  lb_bgk::CollideStream<double> kernel(double omega, bool moments = true) {
    return {a.data(), b.data(), {mesh.neighbours.data(), mesh.stride}, link_value.empty() ? nullptr : link_value.data(), nullptr,
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

TEST_CASE("bricks: three steps give bitwise the node list's populations (walls, coded links, holes, periodic axis)") {
  geometry::VoxelGrid v;
  v.dims = {8, 7, 6};  // x periodic (a multiple of 4); y, z closed and not multiples of 4
  v.dx = 1.0;
  v.hold(geometry::VoxelWindow::whole(v.dims), 1);
  v.fluid[v.index(2, 2, 1)] = 0;
  v.fluid[v.index(3, 2, 2)] = 0;
  v.fluid[v.index(5, 6, 5)] = 0;
  mesh::MeshRequest req;
  req.periodic = {true, false, false};
  req.add_link_class("lid", [](const std::array<int, 3>& y) { return y[1] >= 7; });  // a moving wall: link values
  const auto nodes = mesh::build_mesh(v, req, mesh::Ordering::morton);
  const auto bricks = mesh::build_mesh(v, req, mesh::Ordering::lexicographic, nullptr, mesh::Layout::bricks);
  REQUIRE(bricks.num_fluid() == nodes.num_nodes);
  REQUIRE(bricks.num_nodes > bricks.num_fluid());  // there are holes
  // The same random state at each voxel, the same value on each lid link (by voxel, direction).
  struct State {
    std::vector<double> a, b, rho, u, link_value;
  };
  auto prepare = [&](const mesh::SparseMesh& m) {
    State st;
    const std::size_t s = m.stride;
    st.a.assign(q19::Q * s, 0.0), st.b.assign(q19::Q * s, 0.0), st.rho.assign(s, 0.0), st.u.assign(3 * s, 0.0);
    for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {
      const std::uint32_t n = m.fluid_node(f);
      std::mt19937 rng(std::uint32_t(m.voxel_index(n)));
      std::uniform_real_distribution<double> d(-0.01, 0.01);
      for (int q = 0; q < q19::Q; ++q) st.a[q * s + n] = d(rng);
    }
    for (std::size_t k = 0; k < m.links.size(); ++k)
      st.link_value.push_back(1e-3 * double(m.voxel_index(m.links.node[k]) % 7) + 1e-4 * m.links.direction[k]);
    return st;
  };
  State sn = prepare(nodes), sb = prepare(bricks);
  const phys::TrtCollision<double> trt{1.3, 1.1};
  const phys::Vec3<double> g{1e-5, -2e-6, 3e-6};
  for (int step = 0; step < 3; ++step) {
    lb_bgk::CollideStream<double, phys::TrtCollision<double>, double, mesh::NodeListView> kn{
        sn.a.data(), sn.b.data(), {nodes.neighbours.data(), nodes.stride}, sn.link_value.data(), nullptr, sn.rho.data(),
        sn.u.data(), g, trt, nodes.stride, true};
    const mesh::BrickView view{bricks.brick_table.data(), bricks.fluid_mask.data(), bricks.link_mask.data(),
                               bricks.link_word.data(), bricks.link_first.data()};
    lb_bgk::CollideStream<double, phys::TrtCollision<double>, double, mesh::BrickView> kb{
        sb.a.data(), sb.b.data(), view, sb.link_value.data(), nullptr, sb.rho.data(), sb.u.data(), g, trt, bricks.stride, true};
    exec::launch_host(kn, {0, nodes.num_nodes});
    exec::launch_host(kb, {0, bricks.num_nodes});
    std::swap(sn.a, sn.b);
    std::swap(sb.a, sb.b);
  }
  std::size_t compared = 0;
  for (std::uint32_t f = 0; f < bricks.num_fluid(); ++f) {
    const std::uint32_t nb = bricks.fluid_node(f);
    const std::uint32_t nn = *nodes.find(bricks.i[nb], bricks.j[nb], bricks.k[nb]);
    for (int q = 0; q < q19::Q; ++q, ++compared)
      if (sb.a[q * bricks.stride + nb] != sn.a[q * nodes.stride + nn]) FAIL_CHECK("differs at slot " << nb << ", q " << q);
    CHECK(sb.rho[nb] == sn.rho[nn]);
  }
  CHECK(compared == std::size_t(q19::Q) * nodes.num_nodes);
  for (std::uint32_t n = 0; n < bricks.num_nodes; ++n)  // holes are never written
    if (!bricks.is_fluid(n)) REQUIRE(sb.rho[n] == 0.0);
}
