#pragma once
// Device-safe kernels of the boundaries plugin. Each boundary writes, for each of its
// links k, the value link_value[k] that the fused collide-stream kernel adds to the
// bounced-back population (core/mesh/link_codes.hpp):
//     h_q(n) = h*_opp(q)(n) + link_value[k].
// So every rule below is "what h_q should be, minus h*_opp(q)(n)", and the sum of
// link_value over an iolet's links is exactly the mass that crosses it in one step.
#include <cstdint>

#include "core/mesh/lattice_view.hpp"
#include "core/mesh/link_codes.hpp"
#include "core/mesh/population_slots.hpp"
#include "physics/anti_bounce_back.hpp"
#include "physics/backflow.hpp"
#include "physics/equilibrium.hpp"
#include "physics/interpolated_bounce_back.hpp"
#include "physics/storage16.hpp"
#include "physics/zou_he.hpp"

namespace hemo::boundaries {

namespace d3q19 = phys::d3q19;

/// The most terms a velocity iolet's profile has: the mean, then a cosine and a sine term
/// for each of up to max_womersley_harmonics harmonics (profile = "womersley" with a CSV),
/// and a Zou-He inlet's held-flow correction (hold_flow, iolets.cpp).
inline constexpr int max_womersley_harmonics = 16;
inline constexpr int max_profile_terms = 2 + 2 * max_womersley_harmonics;

/// A velocity iolet's value at a link is sum_j value[j] shape_j(link): the time factors of
/// this step (iolets.cpp, IoletRuntime::coefficients) times the profile's terms.
template <class Real>
struct ProfileCoefficients {
  Real value[max_profile_terms] = {};
  int terms = 1;
  /// The profile at entry i of `shape` (`terms` rows of `count`): sum_j value[j] shape_j(i).
  HEMO_HD Real at(const Real* HEMO_RESTRICT shape, std::size_t count, std::uint32_t i) const {
    Real v = Real(0);
    for (int j = 0; j < terms; ++j) v += value[j] * shape[std::size_t(j) * count + i];
    return v;
  }
};

/// Velocity iolets (Ladd): link_value[link[i]] = sum_j coef[j] * shape[j * count + i],
/// the shapes holding 6 w_q (c_q . d) u_j(x_link) for each of the profile's time terms.
template <class Real>
struct LaddIoletValues {
  Real* HEMO_RESTRICT link_value;
  const std::uint32_t* HEMO_RESTRICT link;
  const Real* HEMO_RESTRICT shape;  // `terms` rows of `count`: the profile's terms at each link
  std::uint32_t count;
  ProfileCoefficients<Real> coef;   // each term's factor at this step
  HEMO_HD void operator()(std::uint32_t i) const { link_value[link[i]] = coef.at(shape, count, i); }
};

/// Link-wise pressure rules. Both take the velocity from the node's post-collision
/// populations of the last step, whose momentum equals the pre-collision one (BGK
/// conserves it; body forces at pressure iolets are neglected), so they need no data from
/// this step.
///  * nash: Nash's zeroth-order rule (HemeLB, seeds/001 sec. 2.3.2; R. W. Nash et al.,
///    Phys. Rev. E 89, 023303 (2014)): the entering population is the equilibrium at the
///    prescribed ("ghost") density and the node's own velocity.
///  * anti_bounce_back: physics/anti_bounce_back.hpp, with u_b the node's velocity.
/// With backflow > 0, the prescribed density drops where the node's flow enters through
/// the iolet (physics/backflow.hpp, after Esmaily Moghadam et al. 2011).
enum class PressureRule : std::uint8_t { nash, anti_bounce_back };

// Kernels that read the populations take their storage type Store (Real, or a 16-bit
// format of physics/storage16.hpp) and read them as Real(f[i]), where
// core/mesh/population_slots.hpp says they are (either streaming scheme of lb_bgk; the
// mesh layout's view, lattice_view.hpp, finds a node's neighbours).

template <class Real, class Store = Real, class View = mesh::NodeListView>
struct PressureLinks {
  Real* HEMO_RESTRICT link_value;
  const std::uint32_t* HEMO_RESTRICT link;
  const std::uint32_t* HEMO_RESTRICT link_node;
  const std::uint8_t* HEMO_RESTRICT link_direction;
  const Store* HEMO_RESTRICT f;          // post-collision populations of the last step
  mesh::PopulationSlots<View> slots;     // where they are
  Real drho;  // prescribed density - 1
  PressureRule rule;
  phys::Vec3<Real> outward;  // unit normal out of the fluid
  Real backflow;             // beta of the backflow stabilization; 0: off
  HEMO_HD void operator()(std::uint32_t i) const {
    const std::uint32_t k = link[i], n = link_node[k];
    const int q = link_direction[k];
    Real h[d3q19::Q];
    HEMO_UNROLL
    for (int p = 0; p < d3q19::Q; ++p) h[p] = Real(f[slots.post_collision(p, n)]);
    const phys::Moments<Real> m = phys::moments(h);
    const Real inv_rho = Real(1) / (Real(1) + m.drho);
    const phys::Vec3<Real> u{m.j.x * inv_rho, m.j.y * inv_rho, m.j.z * inv_rho};
    const Real leaving = h[d3q19::opposite(q)];
    const Real target = drho - phys::backflow_density_drop(u, outward, Real(1) + m.drho, backflow);
    const Real entering = rule == PressureRule::nash ? phys::equilibrium_shifted(q, target, u)
                                                     : phys::anti_bounce_back(q, leaving, target, u);
    link_value[k] = entering - leaving;
  }
};

/// Zou-He iolet nodes (physics/zou_he.hpp): gathers the node's populations as the fused
/// kernel will (pull, bounce-back, coded links), lets Zou-He fill the ones that come
/// through the iolet, and stores them as link values. unknown[i] has bit q set for each
/// direction q whose link crosses the plane; bit 31 marks a pressure node with the full
/// set of five on an axis-aligned plane, which gets Zou-He's rule with Hecht & Harting's
/// transverse correction; every other node (the rim, tilted planes, every velocity node)
/// gets the general non-equilibrium bounce-back (nebb_*). Pressure: target = prescribed
/// density - 1; velocity: target = coef.at(shape, count, i), the normal velocity at the
/// node.
inline constexpr std::uint32_t zou_he_full_face = 1u << 31;

template <class Real, class Store = Real>
struct ZouHeNodes {
  Real* HEMO_RESTRICT link_value;
  const std::uint32_t* HEMO_RESTRICT node;
  const std::uint32_t* HEMO_RESTRICT unknown;
  const std::uint32_t* HEMO_RESTRICT sources;  // 18 rows of count: each node's pull codes (link_codes.hpp)
  const Store* HEMO_RESTRICT f;
  const Real* HEMO_RESTRICT shape;  // velocity only: coef.terms rows of count
  std::uint32_t stride, count;
  int axis, sign;  // axis < 0: the plane is tilted
  Real normal[3];  // inward unit normal
  bool pressure;
  Real target_drho;
  ProfileCoefficients<Real> coef;  // velocity only
  mesh::PopulationState state = mesh::PopulationState::ab;  // of the populations after the last step
  const std::uint32_t* HEMO_RESTRICT link_source = nullptr;  // coded links between fluid nodes pull (lb_vlbm)
  HEMO_HD void operator()(std::uint32_t i) const {
    const std::uint32_t n = node[i], mask = unknown[i];
    Real h[d3q19::Q];
    h[0] = Real(f[n]);
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) {
      const std::uint32_t src = sources[std::size_t(q - 1) * count + i];
      const Real reflected = Real(f[mesh::incoming_slot(state, stride, q, n, mesh::wall_link)]);
      // The unknown directions are overwritten by Zou-He; reading their old link values
      // here is harmless.
      const bool coded = mesh::is_coded_link(src);
      const std::uint32_t from = mesh::is_node(src) ? src : (coded && link_source ? link_source[mesh::link_index(src)] : mesh::wall_link);
      const Real read = from != mesh::wall_link ? Real(f[mesh::incoming_slot(state, stride, q, n, from)]) : reflected;
      h[q] = coded ? read + link_value[mesh::link_index(src)] : read;
    }
    const Real u = pressure ? Real(0) : coef.at(shape, count, i);
    if (!pressure) phys::nebb_velocity(h, mask, normal, u);  // bit 31 is beyond q < 19
    else if (mask & zou_he_full_face) phys::zou_he_pressure(h, axis, sign, Real(1) + target_drho);
    else phys::nebb_pressure(h, mask, normal, Real(1) + target_drho);
    HEMO_UNROLL
    for (int q = 1; q < d3q19::Q; ++q) {
      if (!(mask >> q & 1u)) continue;
      const std::uint32_t src = sources[std::size_t(q - 1) * count + i];
      link_value[mesh::link_index(src)] = h[q] - Real(f[mesh::incoming_slot(state, stride, q, n, mesh::wall_link)]);
    }
  }
};

/// out[i] = the density less 1 at node[i] after the last step: the sum of its stored
/// populations h*_q = f*_q - w_q, post-collision (a collision keeps the mass), where lb_bgk's
/// streaming left them (an absorbing inlet's pressure, every step: the density field is
/// written only on the steps that need it).
template <class Real, class Store, class View>
struct NodeDensity {
  Real* HEMO_RESTRICT out;
  const Store* HEMO_RESTRICT f;
  const std::uint32_t* HEMO_RESTRICT node;
  mesh::PopulationSlots<View> slots;
  HEMO_HD void operator()(std::uint32_t i) const {
    Real drho = Real(0);
    HEMO_UNROLL
    for (int q = 0; q < d3q19::Q; ++q) drho += Real(f[slots.post_collision(q, node[i])]);
    out[i] = drho;
  }
};

/// out[i] = values[index[i]]: gathers the entries a monitor sums (link values of one
/// iolet, densities of its nodes).
template <class Real>
struct Gather {
  Real* HEMO_RESTRICT out;
  const Real* HEMO_RESTRICT values;
  const std::uint32_t* HEMO_RESTRICT index;
  HEMO_HD void operator()(std::uint32_t i) const { out[i] = values[index[i]]; }
};

/// out[i] = values[index[i]] * weight[node[index[i]]]: an iolet's link values weighted by
/// the fluid share 1 - P of the cells they enter (lb_vlbm's "fluid_share" field), so that
/// their sum is the particle number that crosses the iolet.
template <class Real>
struct GatherWeighted {
  Real* HEMO_RESTRICT out;
  const Real* HEMO_RESTRICT values;
  const std::uint32_t* HEMO_RESTRICT index;
  const std::uint32_t* HEMO_RESTRICT node;
  const Real* HEMO_RESTRICT weight;
  HEMO_HD void operator()(std::uint32_t i) const { out[i] = values[index[i]] * weight[node[index[i]]]; }
};

/// Momentum that one bounce-back link gives the wall in one step (momentum exchange,
/// A. Ladd, J. Fluid Mech. 271 (1994)): the population h*_o leaving node n towards the
/// wall (direction o = opp(q)) comes back as h_q = h*_o + link_value, so the wall
/// receives c_o h*_o - c_q h_q = -c_q (2 h*_o + link_value). Written as 3 rows.
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct WallMomentum {
  Real* HEMO_RESTRICT out;  // 3 rows of count
  const std::uint32_t* HEMO_RESTRICT link;
  const std::uint32_t* HEMO_RESTRICT link_node;
  const std::uint8_t* HEMO_RESTRICT link_direction;
  const Real* HEMO_RESTRICT link_value;
  const Store* HEMO_RESTRICT f;
  mesh::PopulationSlots<View> slots;
  std::uint32_t count;
  HEMO_HD void operator()(std::uint32_t i) const {
    const std::uint32_t k = link[i], n = link_node[k];
    const int q = link_direction[k];
    const Real leaving = Real(f[slots.post_collision(d3q19::opposite(q), n)]);
    const Real transfer = Real(2) * leaving + link_value[k];
    out[i] = -Real(d3q19::cx(q)) * transfer;
    out[count + i] = -Real(d3q19::cy(q)) * transfer;
    out[2 * count + i] = -Real(d3q19::cz(q)) * transfer;
  }
};

/// Interpolated bounce-back on the wall's links (physics/interpolated_bounce_back.hpp):
/// link_value = kappa (partner - reflected), from the post-collision populations of the
/// last step where lb_bgk's streaming left them. Links [0, near) have the wall nearer
/// than halfway (delta < 1/2) and take their partner f*_opp(q) at the second node
/// x + c_q, which x pulls direction opp(q) from (a halo node on another rank's edge is
/// exchanged for exactly that pull); the others take f*_q(x) at the node itself. The
/// kernel reads populations only, so it runs before any boundary that reads link values
/// (the Zou-He nodes of an iolet's rim).
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct InterpolatedWallLinks {
  Real* HEMO_RESTRICT link_value;
  const std::uint32_t* HEMO_RESTRICT link;     // k
  const std::uint32_t* HEMO_RESTRICT node;     // x
  const std::uint32_t* HEMO_RESTRICT partner;  // x + c_q, for links [0, near)
  const std::uint8_t* HEMO_RESTRICT direction;  // q, the pulled direction
  const Real* HEMO_RESTRICT kappa;
  const Store* HEMO_RESTRICT f;
  mesh::PopulationSlots<View> slots;
  std::uint32_t near;
  HEMO_HD void operator()(std::uint32_t i) const {
    const int q = direction[i], o = d3q19::opposite(q);
    const std::uint32_t x = node[i];
    const Real reflected = Real(f[slots.post_collision(o, x)]);
    const Real other = i < near ? Real(f[slots.post_collision_pulled(o, partner[i], x)]) : Real(f[slots.post_collision(q, x)]);
    link_value[link[i]] = phys::interpolated_wall_term(kappa[i], reflected, other);
  }
};

/// The mass the interpolated links bring a node beyond what left it (halfway bounce-back
/// returns exactly what left, so it conserves mass; the sum of the node's link values is
/// the excess) is taken back from the node's rest population, which it pulls from itself:
/// the step then conserves mass as halfway bounce-back does, and the rest population
/// carries no momentum, so the interpolated momentum is kept. One thread per wall node,
/// its links [first[j], first[j + 1]) in a fixed order (bitwise the same on CPU and GPU).
template <class Real, class Store = Real, class View = mesh::NodeListView>
struct ReturnWallExcess {
  const std::uint32_t* HEMO_RESTRICT node;
  const std::uint32_t* HEMO_RESTRICT first;
  const std::uint32_t* HEMO_RESTRICT link;  // link indices k, grouped by node
  const Real* HEMO_RESTRICT link_value;
  Store* HEMO_RESTRICT f;
  mesh::PopulationSlots<View> slots;
  HEMO_HD void operator()(std::uint32_t j) const {
    Real excess = Real(0);
    for (std::uint32_t i = first[j]; i < first[j + 1]; ++i) excess += link_value[link[i]];
    Store& rest = f[slots.post_collision(0, node[j])];
    rest = phys::store_population<Store>(Real(rest) - excess, 0, 0u);
  }
};

}  // namespace hemo::boundaries
