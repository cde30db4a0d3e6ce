#include "core/sim/population_state.hpp"

#include <cstring>

#include "core/mesh/population_slots.hpp"
#include "physics/d3q19.hpp"

namespace hemo {

namespace {
namespace d3q19 = phys::d3q19;

/// SparseMesh::pulls_from, with direction 0 "pulled" from the node itself.
std::uint32_t pull_code(const mesh::SparseMesh& m, int q, std::uint32_t n) { return q == 0 ? n : m.pulls_from(q, n); }
}  // namespace

std::vector<unsigned char> post_collision_row(const mesh::SparseMesh& m, const FieldBase& f, int q, std::int64_t after_step) {
  const std::size_t e = f.element_bytes(), nodes = m.num_nodes;
  if (!f.in_place()) return f.component_bytes(q);
  const int o = d3q19::opposite(q);
  std::vector<unsigned char> own = f.row_bytes(o);
  own.resize(nodes * e);
  if (!(after_step % 2) || q == 0) return own;  // after an even step: row opp(q) of the node
  // After an odd step: row q of the node at x + c_q (the one that pulls q from x), where
  // that is fluid; else the node's own row opp(q).
  const std::vector<unsigned char> down = f.row_bytes(q);
  std::vector<unsigned char> out(nodes * e);
  for (std::uint32_t x = 0; x < nodes; ++x) {
    const std::uint32_t y = pull_code(m, o, x);  // x pulls opp(q) from x + c_q
    const unsigned char* from = mesh::is_node(y) ? &down[std::size_t(y) * e] : &own[std::size_t(x) * e];
    std::memcpy(&out[std::size_t(x) * e], from, e);
  }
  return out;
}

void post_collision_to_in_place(const mesh::SparseMesh& m, FieldBase& f, std::int64_t after_step) {
  if (!f.in_place()) return;
  const std::size_t e = f.element_bytes(), stride = f.stride();
  std::vector<std::vector<unsigned char>> canonical(static_cast<std::size_t>(d3q19::Q));
  for (int q = 0; q < d3q19::Q; ++q) canonical[std::size_t(q)] = f.row_bytes(q);
  std::vector<std::vector<unsigned char>> rows(std::size_t(d3q19::Q), std::vector<unsigned char>(stride * e, 0));
  if (!(after_step % 2)) {
    // After an even step f*_q(x) sits in row opp(q) of x: a swap of rows (halo included).
    for (int q = 0; q < d3q19::Q; ++q) rows[std::size_t(d3q19::opposite(q))] = canonical[std::size_t(q)];
  } else {
    // After an odd step row q of y holds what y pulls in direction q: f*_q(x) from the
    // node x at y - c_q, or f*_opp(q)(y) where that pull bounces back. A halo node y that
    // an owned x pulls q from gets, in row opp(q), f*_opp(q)(x): what x wrote there.
    for (std::uint32_t f_index = 0; f_index < m.num_fluid(); ++f_index) {
      const std::uint32_t y = m.fluid_node(f_index);
      for (int q = 0; q < d3q19::Q; ++q) {
        const std::uint32_t x = pull_code(m, q, y);
        const int o = d3q19::opposite(q);
        const unsigned char* from = mesh::is_node(x) ? &canonical[std::size_t(q)][std::size_t(x) * e]
                                                     : &canonical[std::size_t(o)][std::size_t(y) * e];
        std::memcpy(&rows[std::size_t(q)][std::size_t(y) * e], from, e);
        if (q > 0 && mesh::is_node(x) && x >= m.num_nodes)
          std::memcpy(&rows[std::size_t(o)][std::size_t(x) * e], &canonical[std::size_t(o)][std::size_t(y) * e], e);
      }
    }
  }
  for (int q = 0; q < d3q19::Q; ++q) f.set_row_bytes(q, rows[std::size_t(q)]);
}

}  // namespace hemo
