#include "plugins/boundaries/iolets.hpp"

#include <algorithm>
#include <cmath>
#include <bit>
#include <filesystem>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/for_each.hpp"
#include "core/exec/reduce.hpp"
#include "core/fields/lattice_fields.hpp"
#include "physics/d3q19.hpp"
#include "physics/windkessel.hpp"
#include "physics/womersley.hpp"
#include "plugins/boundaries/kernels.hpp"

namespace hemo::boundaries {

namespace q19 = phys::d3q19;

namespace {

/// Spatial profile of a velocity iolet at distance r from its axis (1 at the centre).
double poiseuille_shape(double r, double R) { return r < R ? 1.0 - (r * r) / (R * R) : 0.0; }

/// hold_flow: the share of each step's measured excess that the estimate takes in (an
/// exponential average over about 1 / 0.01 = 100 steps, short against a cardiac cycle's
/// 10^5). Taken whole (1), the correction fed the closure's own response back and the
/// aorta's reversing inlet (tools/stability/aorta_inlet_pipe.toml, tau 0.5024) diverged
/// within 500 steps; 0.1, 0.01 and 0.001 ran (tools/validation/notes.md).
constexpr double held_flow_relaxation = 0.01;

}  // namespace

template <class Real>
ProfileCoefficients<Real> IoletRuntime<Real>::coefficients(const IoletSpec& s, double t) const {
  ProfileCoefficients<Real> c;
  c.terms = s.profile_terms();
  if (s.profile == IoletSpec::Profile::womersley) {
    // u = sum_j c_j shape_j: the mean's term, then Re[U_n e^{i theta_n}] = U_n.re cos - U_n.im sin.
    const double r = s.ramp_factor(t), w = 2.0 * M_PI / s.period;
    const bool csv = s.time == IoletSpec::Time::csv;
    const double tau = csv ? t - s.series->first_time() : t;
    c.value[0] = Real(r);
    for (int n = 1; 2 * n < c.terms; ++n) {
      const double theta = n * w * tau + (csv ? 0.0 : s.phase);
      c.value[2 * n - 1] = Real(r * std::cos(theta));
      c.value[2 * n] = Real(-r * std::sin(theta));
    }
  } else {
    c.value[0] = Real(s.value_at(t));
  }
  return c;
}

template <class Real>
void IoletRuntime<Real>::build(SetupStage& st, const IoletSpec& s, Device& d) {
  const auto& links = st.mesh.links;
  const mesh::SparseMesh& m = st.mesh;
  std::vector<std::uint32_t> link;
  for (std::size_t k = 0; k < links.size(); ++k)
    if (links.link_class[k] == s.link_class) link.push_back(static_cast<std::uint32_t>(k));
  // Links and nodes in voxel order (not node order): the monitor's sums then add the same
  // values in the same order on every mesh layout and node ordering.
  auto by_voxel = [&](std::uint32_t a, std::uint32_t b) {
    const std::uint64_t va = m.voxel_index(links.node[a]), vb = m.voxel_index(links.node[b]);
    return va != vb ? va < vb : links.direction[a] < links.direction[b];
  };
  std::sort(link.begin(), link.end(), by_voxel);
  std::vector<std::uint32_t> node;
  for (std::uint32_t k : link) node.push_back(links.node[k]);
  node.erase(std::unique(node.begin(), node.end()), node.end());  // a node's links are adjacent
  // Over all ranks (a rank may hold none of an iolet's links).
  std::uint64_t total[2] = {link.size(), node.size()};
  st.comm.sum(total);
  if (total[0] == 0)  // check_cuts_fluid ran before the mesh was built; links can still go to an earlier class
    s.cfg.fail("center", str("iolet '", s.name, "' has no links: another boundary claims all its voxels"));

  // Zou-He owns every node of its iolet. On a pressure iolet, a node whose five entering
  // populations all cross the plane gets the classical rule, with Hecht & Harting's
  // transverse correction; every other node gets the general non-equilibrium bounce-back
  // (physics/zou_he.hpp), which still imposes the node's density or normal velocity: the
  // rim (some of them come from the wall), and every node of a velocity iolet, where the
  // transverse correction is unstable at low viscosity (physics/zou_he.hpp, "Why a
  // velocity node has no transverse correction"). The other models are link-wise.
  // zh_unknown has one mask per entry of `node` (Zou-He runs over the iolet's nodes).
  // zh_sources: the nodes' pull codes (18 rows of the node count), the mesh's table for
  // these nodes on any layout.
  std::vector<std::uint32_t> zh_unknown, zh_sources, by_link = link;
  if (s.model == IoletSpec::Model::zou_he) {
    by_link.clear();
    zh_sources.resize(std::size_t(q19::Q - 1) * node.size());
    for (std::size_t i = 0; i < node.size(); ++i)
      for (int q = 1; q < q19::Q; ++q)
        zh_sources[std::size_t(q - 1) * node.size() + i] = m.neighbours[std::size_t(q - 1) * m.stride + node[i]];
    for (std::uint32_t n : node) {
      std::uint32_t mask = 0;
      int entering = 0;
      for (int q = 1; q < q19::Q; ++q) {
        const std::uint32_t code = m.neighbours[std::size_t(q - 1) * m.stride + n];
        if (mesh::is_coded_link(code) && links.link_class[mesh::link_index(code)] == s.link_class) {
          mask |= 1u << q;
          if (s.axis >= 0) entering += s.sign * q19::c(q, s.axis) == 1;
        }
      }
      if (s.condition == IoletSpec::Condition::pressure && entering == 5 && std::popcount(mask) == 5)
        mask |= zou_he_full_face;
      zh_unknown.push_back(mask);
    }
  }

  const double to_lattice = run_.units.dt / run_.units.dx;  // m/s -> lattice velocity
  const Vec inward{-s.normal[0], -s.normal[1], -s.normal[2]};
  // Profile terms at a point (m/s per unit coefficient, coefficients()): the steady part,
  // then for each harmonic its cos and -sin parts.
  const int terms = s.profile_terms();
  auto profile = [&](const Vec& p) {
    std::array<double, max_profile_terms> u{};
    const double r = s.radial(p);
    switch (s.profile) {
      case IoletSpec::Profile::uniform: u[0] = r < s.radius ? 1.0 : 0.0; break;
      case IoletSpec::Profile::parabolic: u[0] = poiseuille_shape(r, s.radius); break;
      case IoletSpec::Profile::womersley: {
        const double w = 2.0 * M_PI / s.period, nu = run_.units.viscosity, rr = std::min(r, s.radius);
        if (s.time == IoletSpec::Time::csv) {
          // The mean velocity c_0 with the Poiseuille shape, each harmonic c_n with the
          // Womersley shape of unit mean velocity: the CSV's flow, harmonic by harmonic.
          u[0] = 2.0 * s.mean_harmonics[0].re * poiseuille_shape(r, s.radius);
          for (int n = 1; 2 * n < terms; ++n) {
            const phys::Complex a =
                (2.0 * phys::womersley_profile_per_mean_velocity(rr, s.radius, nu, n * w)) * s.mean_harmonics[n];
            u[2 * n - 1] = r < s.radius ? a.re : 0.0;
            u[2 * n] = r < s.radius ? a.im : 0.0;
          }
        } else {
          const double g1 = 4.0 * nu * s.amplitude / (s.radius * s.radius);
          const phys::Complex a = phys::womersley_amplitude(rr, s.radius, nu, g1, w);
          u = {s.value * poiseuille_shape(r, s.radius), a.re, a.im};
        }
        break;
      }
    }
    return u;
  };

  if (s.condition == IoletSpec::Condition::velocity) {
    const auto along = [&](int q) { return q19::c(q, 0) * inward[0] + q19::c(q, 1) * inward[1] + q19::c(q, 2) * inward[2]; };
    // Ladd: the term 6 w_q (c_q . d) u at the link's midpoint, x_n - c_q dx / 2, per term.
    const auto ladd_terms = [&](std::uint32_t k) {
      const int q = links.direction[k];
      auto p = m.position(links.node[k]);
      for (int a = 0; a < 3; ++a) p[a] -= 0.5 * q19::c(q, a) * m.dx;
      auto u = profile(p);
      for (int j = 0; j < terms; ++j) u[j] = 6.0 * q19::w<double>(q) * along(q) * u[j] * to_lattice;
      return u;
    };
    const std::size_t count = by_link.size();
    std::vector<Real> shape(std::size_t(terms) * count, Real(0));
    for (std::size_t i = 0; i < count; ++i) {
      const auto t = ladd_terms(by_link[i]);
      for (int j = 0; j < terms; ++j) shape[j * count + i] = Real(t[j]);
    }
    d.rule_shape = exec::to_device(run_.space, shape);
    // hold_flow: one more row, the correction's shape (the steady profile's, 1 at the
    // centre), and the flows each term sends through the links (Ladd's rule: the profile
    // at each link's midpoint on the plane) and through Zou-He's nodes (the velocity at
    // each node times W = 6 sum_{q in M} w_q c_q . n, physics/zou_he.hpp), per unit factor.
    const std::size_t rows = std::size_t(terms) + (s.hold_flow ? 1 : 0);
    std::vector<Real> zh(rows * zh_unknown.size(), Real(0));
    std::vector<double> flows(2 * std::size_t(terms) + 1, 0.0);  // target, nodes, correction_nodes
    for (std::size_t i = 0; i < zh_unknown.size(); ++i) {
      const Vec p = m.position(node[i]);
      const auto u = profile(p);
      for (int j = 0; j < terms; ++j) zh[j * zh_unknown.size() + i] = Real(u[j] * to_lattice);
      if (!s.hold_flow) continue;
      const double r = s.radial(p);
      const double c = s.profile == IoletSpec::Profile::uniform ? (r < s.radius ? 1.0 : 0.0) : poiseuille_shape(r, s.radius);
      zh[std::size_t(terms) * zh_unknown.size() + i] = Real(c);
      double w = 0.0;
      for (int q = 1; q < q19::Q; ++q)
        if (zh_unknown[i] >> q & 1u) w += 6.0 * q19::w<double>(q) * along(q);
      // The node's velocity as the kernel takes it (Real), so that the nominal flow is the
      // one imposed.
      for (int j = 0; j < terms; ++j) flows[terms + j] += w * double(zh[j * zh_unknown.size() + i]);
      flows[2 * terms] += w * double(Real(c));
    }
    if (s.hold_flow) {
      for (std::uint32_t k : link) {
        const auto t = ladd_terms(k);
        for (int j = 0; j < terms; ++j) flows[j] += t[j];
      }
      st.comm.sum(flows);
      for (int j = 0; j < terms; ++j) {
        d.held.target[j] = flows[j];
        d.held.nodes[j] = flows[terms + j];
      }
      d.held.correction_nodes = flows[2 * terms];
      if (!(d.held.correction_nodes > 0.0))
        s.cfg.fail("hold_flow", str("iolet '", s.name, "' has no node inside its disc to hold the flow with"));
      log::info(str("iolet '", s.name, "': hold_flow: the nodes' velocities send ", fmt_g(d.held.nodes[0] / d.held.target[0], 6),
                    " times the profile's flow through the links before the closure's own difference; each step adds "
                    "the steady profile's shape times what cancels the last step's excess"));
    }
    d.zh_shape = exec::to_device(run_.space, zh);
  }
  d.links = static_cast<std::uint32_t>(link.size());
  d.nodes = static_cast<std::uint32_t>(node.size());
  d.zou_he_nodes = static_cast<std::uint32_t>(zh_unknown.size());
  d.rule_links = static_cast<std::uint32_t>(by_link.size());
  d.link = exec::to_device(run_.space, link);
  d.node = exec::to_device(run_.space, node);
  d.zh_unknown = exec::to_device(run_.space, zh_unknown);
  d.zh_sources = exec::to_device(run_.space, zh_sources);
  d.rule_link = exec::to_device(run_.space, by_link);
  d.scratch = exec::DeviceArray<Real>(run_.space, std::max(link.size(), node.size()));

  std::uint64_t full = std::uint64_t(
      std::count_if(zh_unknown.begin(), zh_unknown.end(), [](std::uint32_t u) { return u & zou_he_full_face; }));
  full = st.comm.sum(full);
  std::string how = s.model == IoletSpec::Model::zou_he
                        ? str("Zou-He: ", full, " full-face nodes, ", total[1] - full, " by non-equilibrium bounce-back")
                        : s.model == IoletSpec::Model::ladd ? "Ladd"
                        : s.model == IoletSpec::Model::nash ? "Nash"
                                                            : "anti-bounce-back";
  log::info(str("iolet '", s.name, "': ", s.condition_name(), " (", how, "), ", total[0], " links at ", total[1],
                " nodes", s.backflow > 0.0 ? str(", backflow stabilization beta = ", fmt_g(s.backflow, 3)) : std::string()));
  if (s.profile == IoletSpec::Profile::womersley && s.time == IoletSpec::Time::csv) {
    // How closely the harmonics imposed reproduce the CSV's mean velocity over a period.
    const double t0 = s.series->first_time();
    double worst = 0.0, peak = 0.0;
    for (int k = 0; k < 2000; ++k) {
      const double tau = s.period * k / 2000.0, u = 0.5 * s.series->at(t0 + tau, true);
      worst = std::max(worst, std::fabs(fourier_sum(s.mean_harmonics, tau, s.period) - u));
      peak = std::max(peak, std::fabs(u));
    }
    const int harmonics = int(s.mean_harmonics.size()) - 1;
    log::info(str("iolet '", s.name, "': Womersley profile of the CSV's mean and first ", harmonics,
                  " harmonics (period ", fmt_g(s.period), " s, alpha = ",
                  fmt_g(phys::womersley_number(s.radius, 2.0 * M_PI / s.period, run_.units.viscosity), 3), " to ",
                  fmt_g(phys::womersley_number(s.radius, 2.0 * M_PI * harmonics / s.period, run_.units.viscosity), 3),
                  "); they reproduce the CSV's mean velocity within ", fmt_g(100.0 * worst / peak, 2),
                  "% of its peak (more: boundaries.iolet.harmonics)"));
  }
}

template <class Real>
void IoletRuntime<Real>::refresh(const IoletSpec& s, Device& d, FieldRegistry& fields, std::int64_t step, double time,
                                 double pressure) {
  visit_populations<Real>(fields, "f", [&](auto& f) { refresh(s, d, fields, f.data(), step, time, pressure); });
}

template <class Real>
template <class Store>
void IoletRuntime<Real>::refresh(const IoletSpec& s, Device& d, FieldRegistry& fields, const Store* f, std::int64_t step,
                                 double time, double pressure) {
  // The populations after the last step, where lb_bgk's streaming left them.
  const PopulationSlotsOf slots = population_slots(fields, *run_.mesh, step - 1);
  Real* link_value = fields.get<Real>("link_value").data();
  const ProfileCoefficients<Real> coef = coefficients(s, time);
  // p -> lattice density: rho = 1 + p / (c_s^2 rho_0) in lattice units.
  const Real drho = Real(3.0 * pressure * run_.units.dt * run_.units.dt / (run_.units.density * run_.units.dx * run_.units.dx));
  const bool velocity = s.condition == IoletSpec::Condition::velocity;
  // Ladd's values depend only on time, so a constant profile is written once; Nash and
  // Zou-He depend on the populations and run every step.
  const bool ladd_current = velocity && d.ladd_written && !s.time_dependent();
  if (d.rule_links && !ladd_current) {
    if (velocity) {
      d.ladd_written = true;
      LaddIoletValues<Real> k{link_value, d.rule_link.data(), d.rule_shape.data(), d.rule_links, coef};
      exec::for_each(run_.space, {0, d.rule_links}, k, "boundaries::ladd_iolet");
    } else {
      const PressureRule rule = s.model == IoletSpec::Model::nash ? PressureRule::nash : PressureRule::anti_bounce_back;
      std::visit(
          [&](auto where) {
            PressureLinks<Real, Store, decltype(where.lattice)> k{
                link_value, d.rule_link.data(), fields.get<std::uint32_t>("link_node").data(),
                fields.get<std::uint8_t>("link_direction").data(), f, where, drho, rule,
                {Real(s.normal[0]), Real(s.normal[1]), Real(s.normal[2])}, Real(s.backflow)};
            exec::for_each(run_.space, {0, d.rule_links}, k, "boundaries::pressure_links");
          },
          slots);
    }
  }
  ProfileCoefficients<Real> node_coef = coef;
  if (s.hold_flow) {
    // The flow the profile sends through the links (the target) and through the nodes at
    // this step's factors, and the correction that makes the nodes' flow plus the excess
    // the last step measured (measure_flows) equal the target: every rank computes the
    // same doubles from the same sums.
    HeldFlow& h = d.held;
    double target = 0.0, nominal = 0.0;
    for (int j = 0; j < coef.terms; ++j) {
      target += double(coef.value[j]) * h.target[j];
      nominal += double(coef.value[j]) * h.nodes[j];
    }
    // An absorbing inlet lets the wave the last steps saw arriving pass (physics/windkessel.hpp):
    // its density from the populations the last step left (collective: every rank
    // refreshes every iolet), its mean over absorbing_time.
    if (s.is_absorbing_inlet()) {
      std::visit(
          [&](auto where) {
            NodeDensity<Real, Store, decltype(where.lattice)> k{d.scratch.data(), f, d.node.data(), where};
            exec::for_each(run_.space, {0, d.nodes}, k, "boundaries::node_density");
          },
          slots);
      const double inlet_drho = run_.comm->sum(exec::sum(run_.space, d.scratch.data(), d.nodes)) / h.node_count;
      h.mean_density += s.absorbing_share(run_.units.dt) * (inlet_drho - h.mean_density);
      const double arriving = phys::arriving_wave(h.flow, h.mean_flow, inlet_drho, h.mean_density, h.impedance);
      target = phys::absorbing_inflow(target, arriving, h.last_arriving, h.impedance);
      h.last_arriving = arriving;
    }
    node_coef.value[coef.terms] = Real((target - nominal - h.excess) / h.correction_nodes);
    h.nominal = nominal + double(node_coef.value[coef.terms]) * h.correction_nodes;
    node_coef.terms = coef.terms + 1;
  }
  if (d.zou_he_nodes) {
    ZouHeNodes<Real, Store> k{link_value, d.node.data(), d.zh_unknown.data(), d.zh_sources.data(), f,
                       d.zh_shape.data(), run_.stride, d.zou_he_nodes, s.axis, s.sign,
                       {Real(-s.normal[0]), Real(-s.normal[1]), Real(-s.normal[2])}, !velocity, drho,
                       node_coef, std::visit([](auto where) { return where.state; }, slots),
                       fields.get<std::uint32_t>("link_source").count() ? fields.get<std::uint32_t>("link_source").data() : nullptr};
    exec::for_each(run_.space, {0, d.zou_he_nodes}, k, "boundaries::zou_he");
  }
}

template <class Real>
double IoletRuntime<Real>::mass_through(Device& d, FieldRegistry& fields, bool weighted) {
  // The mass through the iolet in one step is the sum of its link values (kernels.hpp),
  // each weighted by the fluid share of its cell where lb_vlbm gives cells one.
  if (weighted && fields.contains("fluid_share")) {
    exec::for_each(run_.space, {0, d.links},
                   GatherWeighted<Real>{d.scratch.data(), fields.get<Real>("link_value").data(), d.link.data(),
                                        fields.get<std::uint32_t>("link_node").data(),
                                        fields.get<Real>("fluid_share").data()},
                   "boundaries::gather_weighted");
  } else {
    exec::for_each(run_.space, {0, d.links},
                   Gather<Real>{d.scratch.data(), fields.get<Real>("link_value").data(), d.link.data()},
                   "boundaries::gather");
  }
  return exec::sum(run_.space, d.scratch.data(), d.links);
}

template <class Real>
double IoletRuntime<Real>::density_sum(Device& d, FieldRegistry& fields) {
  exec::for_each(run_.space, {0, d.nodes}, Gather<Real>{d.scratch.data(), fields.get<Real>("density").data(), d.node.data()},
                 "boundaries::gather");
  return exec::sum(run_.space, d.scratch.data(), d.nodes);
}

template <class Real>
void IoletRuntime<Real>::measure_flows(StepContext& ctx) {
  // After the step's collide-stream used the link values its begin_step wrote: their sum
  // is the mass that crossed in this step. Measured here, not at the next begin_step, so
  // that a checkpoint written after this step holds it (link values are not checkpointed).
  // Every rank gets the same sum, hence the same state: they agree without talking again.
  // A held-flow inlet's sum is unweighted, like the target it is held to (Ladd's link
  // values).
  std::vector<double> mass;
  for (std::size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].has_state()) mass.push_back(mass_through(device_[i], *ctx.fields, !specs_[i].hold_flow));
  run_.comm->sum(mass);
  const double to_flow = run_.units.dx * run_.units.dx * run_.units.dx / run_.units.dt;  // lattice mass/step -> m^3/s
  std::size_t at = 0;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (!specs_[i].has_state()) continue;
    const double m = mass[at++];
    if (specs_[i].hold_flow) {
      HeldFlow& h = device_[i].held;
      h.excess += held_flow_relaxation * (m - h.nominal - h.excess);
      if (specs_[i].is_absorbing_inlet()) {  // the mean over absorbing_time (first order)
        h.flow = m;
        h.mean_flow += specs_[i].absorbing_share(run_.units.dt) * (h.flow - h.mean_flow);
      }
    } else {
      windkessel_[i].previous_outflow = windkessel_[i].outflow;
      windkessel_[i].outflow = -m * to_flow;  // inflow positive -> outflow
    }
  }
}

template <class Real>
void IoletRuntime<Real>::advance_windkessels(double time) {
  // Coupling with a lag of one step: the flow of the last step drives the model over this
  // step (held constant, integrated exactly), and this step's prescribed pressure is
  // p_c + R_p Q damped by the lattice's own response (physics/windkessel.hpp: p moves from
  // the last step's p towards p_c + R_p Q by 1 / (1 + k), k = R_p / Z; stable for any R_p).
  // A fresh run starts with Q = 0 (nothing has flowed yet) and p = p_c.
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (!specs_[i].follows_outflow()) continue;
    Windkessel& w = windkessel_[i];
    // An absorbing outlet's target is the iolet's own value, which may vary in time.
    if (specs_[i].is_absorbing()) w.model.pressure_distal = specs_[i].value_at(time);
    const phys::WindkesselRCR& m = w.model;
    w.capacitor_pressure = phys::windkessel_step(m, w.capacitor_pressure, w.outflow, run_.units.dt);
    // An absorbing outlet's load must answer the flow as it is, not k steps late: the
    // damped coupling's lag is compensated by extrapolating the flow (absorbing_flow).
    const double flow = specs_[i].is_absorbing()
                            ? phys::absorbing_flow(w.outflow, w.previous_outflow, m.resistance_proximal / w.impedance)
                            : w.outflow;
    w.pressure = phys::windkessel_damped_pressure(m, w.impedance, w.capacitor_pressure, flow, w.pressure);
  }
}

template <class Real>
void IoletRuntime<Real>::monitor(StepContext& ctx) {
  if (!run_.due(ctx.step) || !csv_) return;
  FieldRegistry& fields = *ctx.fields;
  // Per iolet: the mass through it, the sum of its nodes' densities and their count, on
  // this rank, then summed over the ranks.
  std::vector<double> sums;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    Device& d = device_[i];
    sums.push_back(mass_through(d, fields));
    sums.push_back(density_sum(d, fields));
    sums.push_back(double(d.nodes));
  }
  run_.comm->sum(sums);
  csv_.begin(ctx.step, ctx.time);
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const double mass = sums[3 * i], rho = sums[3 * i + 1] / sums[3 * i + 2];
    const double flow = mass * run_.units.dx * run_.units.dx * run_.units.dx / run_.units.dt;  // m^3/s, inflow positive
    csv_.value(flow);
    csv_.value(run_.units.pressure_to_physical(rho));
    if (specs_[i].is_windkessel()) {  // what the RCR model imposed in this step, and its state
      csv_.value(windkessel_[i].pressure);
      csv_.value(windkessel_[i].capacitor_pressure);
    } else if (specs_[i].is_absorbing()) {
      csv_.value(windkessel_[i].pressure);
    }
  }
  csv_.end();
}

template <class Real>
void IoletRuntime<Real>::setup(SetupStage& st) {
  if (specs_.empty()) return;
  run_ = RunContext::of(st);
  device_.resize(specs_.size());
  for (std::size_t i = 0; i < specs_.size(); ++i) build(st, specs_[i], device_[i]);

  std::string header;
  for (const IoletSpec& s : specs_) {
    header += "," + s.name + "_flow_m3_per_s," + s.name + "_pressure_Pa";
    if (s.is_windkessel()) header += "," + s.name + "_windkessel_pressure_Pa," + s.name + "_capacitor_pressure_Pa";
    if (s.is_absorbing()) header += "," + s.name + "_imposed_pressure_Pa";
  }
  csv_.open(st.comm, st.output_dir, "iolets.csv", header, st.first_step);

  // Windkessel and absorbing outlets: their state is three doubles each (p_c, the last step's outflow
  // and the pressure imposed in the last step), a held-flow inlet's one (the excess the last
  // step measured beyond the flow imposed at its nodes), kept through checkpoints as restart
  // values of a table of boundaries' own (no rows: a
  // checkpoint stores a table's bound values whatever its rows), declared only when a case
  // has such an outlet, so that other runs' checkpoints stay as they were. A restart sets
  // the values after initialise, before the first step.
  windkessel_.resize(specs_.size());
  ParticleTable* state = nullptr;
  const OutflowShares expected = outflow_shares(specs_);
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (!specs_[i].has_state()) continue;
    if (!state) state = &st.fields.declare_particle_table("windkessel", "boundaries", 1);
    if (specs_[i].hold_flow) {  // a held-flow inlet's state: the excess the last step measured
      HeldFlow& h = device_[i].held;
      h.excess = 0.0;
      state->bind_restart_value(specs_[i].name + ".held_flow_excess", h.excess);
      if (specs_[i].is_absorbing_inlet()) {
        // A fresh run starts at rest: no flow, the lattice's reference density (drho 0).
        const double area = M_PI * specs_[i].radius * specs_[i].radius / (run_.units.dx * run_.units.dx);
        h.node_count = st.comm.sum(double(device_[i].nodes));
        h.impedance = std::sqrt(3.0) / area;
        state->bind_restart_value(specs_[i].name + ".absorbing_flow", h.flow);
        state->bind_restart_value(specs_[i].name + ".absorbing_mean_flow", h.mean_flow);
        state->bind_restart_value(specs_[i].name + ".absorbing_mean_density", h.mean_density);
        state->bind_restart_value(specs_[i].name + ".absorbing_last_arriving", h.last_arriving);
        log::info(str("iolet '", specs_[i].name, "': absorbing velocity inlet, the flow held to the target less b' / Z "
                      "(b' the wave arriving from the vessel, Z = rho c_s / (pi r^2)), means over ",
                      fmt_g(specs_[i].absorbing_time, 4), " s"));
      }
      continue;
    }
    Windkessel& w = windkessel_[i];
    w.outflow = w.previous_outflow = 0.0;
    // The damped coupling's impedance (physics/windkessel.hpp): coupling_share (a quarter
    // by default) of the lattice's acoustic impedance rho_0 c_s / A at the outlet, with
    // A = pi r^2 the iolet disc's area (not the area its links cover on the staircase:
    // close to it for a disc that spans the vessel's section).
    const double area = M_PI * specs_[i].radius * specs_[i].radius;
    const double share = specs_[i].windkessel_coupling_share;
    w.impedance = phys::windkessel_coupling_impedance(run_.units.density, run_.units.dx, run_.units.dt, area, share);
    const double acoustic = w.impedance / share;
    state->bind_restart_value(specs_[i].name + ".capacitor_pressure_Pa", w.capacitor_pressure);
    state->bind_restart_value(specs_[i].name + ".outflow_m3_per_s", w.outflow);
    state->bind_restart_value(specs_[i].name + ".pressure_Pa", w.pressure);
    if (specs_[i].is_absorbing())
      state->bind_restart_value(specs_[i].name + ".previous_outflow_m3_per_s", w.previous_outflow);
    w.model = specs_[i].is_absorbing()
                  ? phys::absorbing_outlet(acoustic, specs_[i].absorbing_time, specs_[i].value_at(0.0))
                  : specs_[i].windkessel;
    const phys::WindkesselRCR& m = w.model;
    if (specs_[i].is_absorbing()) {
      // Q_mean starts at the flow the outlet is expected to carry, its area share of the
      // velocity iolets' lasting inflow (physics/windkessel.hpp, absorbing_start).
      double expected_flow = 0.0;
      for (std::size_t k = 0; k < expected.outlets.size(); ++k)
        if (expected.outlets[k] == &specs_[i] && expected.inflow > 0.0)
          expected_flow = expected.share[k] * expected.lasting_inflow / expected.inflow;
      w.capacitor_pressure = phys::absorbing_start(m, expected_flow);
      w.pressure = w.capacitor_pressure;  // p = p_c + R_p Q with Q = 0
      log::info(str("iolet '", specs_[i].name, "': absorbing pressure outlet, p + Z (Q - Q_mean) with Z = rho c_s / (pi r^2) = ",
                    fmt_g(acoustic, 4), " Pa s/m^3 (the lattice's characteristic impedance) and Q_mean over ",
                    fmt_g(specs_[i].absorbing_time, 4), " s, from ", fmt_g(expected_flow, 4),
                    " m^3/s (its area share of the inflow); damped coupling k = ",
                    fmt_g(m.resistance_proximal / w.impedance, 4)));
      continue;
    }
    w.capacitor_pressure = specs_[i].windkessel_initial;
    w.pressure = w.capacitor_pressure;  // p = p_c + R_p Q with Q = 0
    log::info(str("iolet '", specs_[i].name, "': Windkessel (RCR) outlet, R_p = ", fmt_g(m.resistance_proximal, 4),
                  " Pa s/m^3, C = ", fmt_g(m.compliance, 4), " m^3/Pa, R_d = ", fmt_g(m.resistance_distal, 4),
                  " Pa s/m^3 (R_d C = ", fmt_g(m.time_constant(), 4), " s), p_d = ", fmt_g(m.pressure_distal, 4),
                  " Pa; damped coupling: lattice acoustic impedance rho c_s / (pi r^2) = ", fmt_g(acoustic, 4),
                  " Pa s/m^3, Z = ", fmt_g(share, 3), " of it = ", fmt_g(w.impedance, 4), " Pa s/m^3, k = R_p / Z = ",
                  fmt_g(m.resistance_proximal / w.impedance, 4), " (lag of about k steps)"));
  }

  // Before the collide-stream kernel: it reads the link values these write.
  st.scheduler.add(Phase::begin_step, "iolets", "boundaries", [this](StepContext& ctx) {
    advance_windkessels(ctx.time);
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      const IoletSpec& s = specs_[i];
      const double pressure = s.follows_outflow() ? windkessel_[i].pressure : s.value_at(ctx.time);
      refresh(s, device_[i], *ctx.fields, ctx.step, ctx.time, pressure);
    }
  });
  if (state)
    st.scheduler.add(Phase::end_step, "iolet_flows", "boundaries",
                     [this](StepContext& ctx) { measure_flows(ctx); });
  st.scheduler.add(Phase::output, "iolet_monitor", "boundaries", [this](StepContext& ctx) { monitor(ctx); });
}

template class IoletRuntime<float>;
template class IoletRuntime<double>;

}  // namespace hemo::boundaries
