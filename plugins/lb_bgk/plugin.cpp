// lb_bgk: D3Q19 lattice Boltzmann, pull scheme, two population sets (A-B), SoA, one fused
// collide-stream kernel with Guo forcing; the collision operator (BGK, TRT or regularized)
// is chosen per case. See README.md.
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/for_each.hpp"
#include "core/fields/lattice_fields.hpp"
#include "core/plugin/plugin_api.hpp"
#include "physics/smagorinsky.hpp"
#include "physics/storage16.hpp"
#include "plugins/lb_bgk/kernels.hpp"
#include "plugins/lb_bgk/stability.hpp"

namespace hemo::lb_bgk {

namespace {

/// lb_bgk.smagorinsky: the Smagorinsky constant C of the subgrid eddy viscosity
/// (physics/smagorinsky.hpp), 0 (the default) for none. The eddy viscosity comes from the
/// regularized operators' non-equilibrium stress Pi1 and enters their relaxation rate, so
/// another operator with a constant above 0 is refused (the schema refuses C < 0).
double smagorinsky_constant(const config::Config& cfg) {
  const double C = cfg.real("lb_bgk.smagorinsky");
  const std::string collision = cfg.string("lb_bgk.collision");
  if (C > 0.0 && collision != "regularized" && collision != "recursive_regularized")
    cfg.fail("lb_bgk.smagorinsky",
             str("= ", fmt_g(C, 4), " needs lb_bgk.collision = \"regularized\" or \"recursive_regularized\", not \"", collision,
                 "\": the eddy viscosity is computed from that operator's non-equilibrium stress and added to its "
                 "relaxation; use collision = \"regularized\", or lb_bgk.smagorinsky = 0 (no eddy viscosity)"));
  return C;
}

/// The solver of one (compute precision, population storage) pair.
class SolverBase {
 public:
  virtual ~SolverBase() = default;
  virtual void setup(SetupStage& st) = 0;
  virtual void initialise(SetupStage& st) = 0;
};

/// Real: the precision of the arithmetic and of every field but the populations; Store:
/// the populations' element type (Real, or a 16-bit format of physics/storage16.hpp).
template <class Real, class Store>
class Solver final : public SolverBase {
 public:
  void setup(SetupStage& st) override {
    space_ = st.space;
    nodes_ = st.mesh.num_nodes;
    interior_ = st.mesh.num_interior;
    stride_ = st.mesh.stride;
    select_collision(st);
    // Rounding into a 16-bit storage: nearest-even, or dithered (stochastic rounding with
    // noise from each value's bits and the step: the same answer on any device and rank count).
    if (!phys::is_stored16<Store> && st.config.has("lb_bgk.rounding"))
      log::warn(str(st.config.where("lb_bgk.rounding"), ": lb_bgk.rounding applies only to a 16-bit lb_bgk.storage; ignored"));
    dither_ = phys::is_stored16<Store> && st.config.string("lb_bgk.rounding") == "dithered";
    in_place_ = st.config.string("lb_bgk.streaming") == "aa";
    block_size_ = static_cast<int>(st.config.integer("lb_bgk.block_size"));
    if (block_size_ % 32 != 0) st.config.fail("lb_bgk.block_size", "must be a multiple of 32 (a warp)");
    for (int c = 0; c < 3; ++c) {
      g0_[c] = st.units.acceleration_to_lattice(st.config.vec3("forcing.acceleration")[c]);
      g1_[c] = st.units.acceleration_to_lattice(st.config.vec3("forcing.amplitude")[c]);
    }
    const bool oscillates = g1_[0] != 0.0 || g1_[1] != 0.0 || g1_[2] != 0.0;
    if (oscillates && !st.config.has("forcing.period"))
      st.config.fail("forcing.period", "is required when forcing.amplitude is not zero");
    if (!oscillates && st.config.has("forcing.period"))
      st.config.fail("forcing.period", "applies only with a non-zero forcing.amplitude");
    force_omega_ = oscillates ? 2.0 * M_PI / st.config.real("forcing.period") : 0.0;
    const auto u0 = st.config.vec3("initial.velocity");
    u0_ = {Real(st.units.velocity_to_lattice(u0[0])), Real(st.units.velocity_to_lattice(u0[1])),
           Real(st.units.velocity_to_lattice(u0[2]))};

    auto& fields = st.fields;
    lattice_ = lattice_view(fields, st.mesh);
    // The A set is the state a step starts from: checkpoints keep it.
    // In place (AA): one set, rearranged each step (core/mesh/population_slots.hpp).
    if (in_place_) {
      fields.declare_node_field<Store>("f", d3q19::Q, "lb_bgk", "populations h_q = f_q - w_q, streamed in place (AA)")
          .set_restart_state()
          .set_in_place();
    } else {
      fields.declare_node_field<Store>("f", d3q19::Q, "lb_bgk", "populations h_q = f_q - w_q (A set)").set_restart_state();
      fields.declare_node_field<Store>("f_next", d3q19::Q, "lb_bgk", "populations (B set)");
    }
    fields.declare_node_field<Real>("density", 1, "lb_bgk", "lattice density rho", Quantity::density);
    fields.declare_node_field<Real>("velocity", 3, "lb_bgk", "lattice velocity u (Guo half-force corrected)",
                                    Quantity::velocity);

    // Without a halo the one action is fenced as usual. With one, the edge update, the
    // packing and the interior update are queued without waiting (on the GPU the
    // interior runs while the halo is downloaded and sent); halo_receive waits for all.
    const Scheduler::Sync interior_sync = st.halo.active() ? Scheduler::Sync::overlapped : Scheduler::Sync::fenced;
    if (st.halo.active()) {
      // HemeLB's order (halo_exchange.hpp): the edge nodes first, their values on the way
      // while the interior updates. Each node's update reads only the last step's
      // populations, so the split leaves every value bitwise as on one rank. Only the
      // populations that cross an interface travel.
      // In place: after an even step the halo copies get the opposite rows (where f*
      // sits); after an odd step the edge nodes have written f* into the slots of the
      // halo nodes they pull from, which go back to their owners (a reverse exchange).
      HaloExchange& halo = st.halo;
      const char* out = in_place_ ? "f" : "f_next";
      st.scheduler.add(
          Phase::collide_edge, "collide_stream_edge", "lb_bgk",
          [this, &fields](StepContext& ctx) { collide_stream(fields, ctx, {interior_, nodes_}); },
          Scheduler::Sync::overlapped);
      st.scheduler.add(
          Phase::halo_send, "halo_send", "lb_bgk",
          [this, &fields, &halo, out](StepContext& ctx) {
            if (!in_place_) halo.start(fields.get<Store>(out), HaloRows::crossing_directions);
            else if (ctx.step % 2) halo.start(fields.get<Store>(out), HaloRows::crossing_opposite, HaloDirection::reverse);
            else halo.start(fields.get<Store>(out), HaloRows::crossing_opposite);
          },
          Scheduler::Sync::overlapped);
      st.scheduler.add(Phase::halo_receive, "halo_receive", "lb_bgk",
                       [&fields, &halo, out](StepContext&) { halo.finish(fields.get<Store>(out)); });
    }
    st.scheduler.add(
        Phase::collide_interior, "collide_stream", "lb_bgk",
        [this, &fields](StepContext& ctx) { collide_stream(fields, ctx, {0, interior_}); },
        interior_sync);
    // The viscous stress for a plugin that asks for it (wall_shear), in the update kernel,
    // at each node's own rate (StressOutput: with lb_bgk.smagorinsky, eddy viscosity included).
    st.scheduler.offer_viscous_stress("lb_bgk");
    // The plasma's velocity at the start of the step, for particles that ask for it
    // (Scheduler::require_streamed_velocity; its field is declared in initialise). First
    // in the particles phase (lb_bgk sets up before particle plugins), after begin_step
    // has set this step's link values, so it pulls what the collision will.
    scheduler_ = &st.scheduler;
    st.scheduler.add(Phase::particles, "streamed_velocity", "lb_bgk",
                     [this, &fields](StepContext& ctx) { streamed_velocity(fields, ctx.step, ctx.time); });
    // Pointer swap, not a copy: the B set becomes the next step's A set.
    if (!in_place_)
      st.scheduler.add(Phase::end_step, "swap_populations", "lb_bgk",
                       [&fields](StepContext&) { fields.swap<Store>("f", "f_next"); });
  }

  void initialise(SetupStage& st) override {
    auto& fields = st.fields;
    std::visit(
        [&](auto lattice) {
          InitEquilibrium<Real, Store, decltype(lattice)> init{lattice, fields.get<Store>("f").data(),
                                                               fields.get<Real>("density").data(),
                                                               fields.get<Real>("velocity").data(), u0_, stride_, in_place_};
          exec::for_each(space_, {0, nodes_}, init, "lb_bgk::init_equilibrium");
        },
        lattice_);
    st.halo.exchange(fields.get<Store>("f"), in_place_ ? HaloRows::crossing_opposite : HaloRows::crossing_directions);
    // The force-density field is optional: a particle plugin may declare it.
    has_force_ = fields.contains("force");
    // Scheduler::require_viscous_stress: its requester declared both fields in its setup.
    if (st.scheduler.viscous_stress_required()) {
      stress_ = &fields.get<Real>("viscous_stress");
      stress_nodes_ = &fields.get<std::uint8_t>("viscous_stress_nodes");
    }
    // Scheduler::require_relaxation_time: likewise, written every step.
    if (st.scheduler.relaxation_time_required()) {
      relaxation_time_ = &fields.get<Real>("relaxation_time");
      relaxation_nodes_ = &fields.get<std::uint8_t>("relaxation_time_nodes");
    }
    if (st.scheduler.streamed_velocity_required())
      fields.declare_node_field<Real>("streamed_velocity", 3, "lb_bgk",
                                      "lattice velocity of the populations streaming in at the start of the step (with "
                                      "half the body acceleration, without the force-density field)",
                                      Quantity::velocity);
  }

 private:
  /// The uniform body acceleration at `time`, lattice units.
  phys::Vec3<Real> acceleration_at(double time) const {
    const double wave = std::cos(force_omega_ * time);
    return {Real(g0_[0] + g1_[0] * wave), Real(g0_[1] + g1_[1] * wave), Real(g0_[2] + g1_[2] * wave)};
  }

  void streamed_velocity(FieldRegistry& fields, std::int64_t step, double time) {
    if (!scheduler_->streamed_velocity_required()) return;
    auto& links = fields.get<Real>("link_value");
    std::visit(
        [&](auto lattice) {
          StreamedVelocity<Real, Store, decltype(lattice)> k{fields.get<Store>("f").data(), lattice,
                                                             links.count() ? links.data() : nullptr,
                                                             fields.get<Real>("streamed_velocity").data(),
                                                             acceleration_at(time), stride_,
                                                             mesh::population_state(in_place_, step - 1)};
          exec::for_each(space_, {0, nodes_}, k, "lb_bgk::streamed_velocity", block_size_);
        },
        lattice_);
  }

  void collide_stream(FieldRegistry& fields, const StepContext& ctx, exec::Range nodes) {
    const bool moments = ctx.moments_due;
    const double time = ctx.time;
    const std::int64_t step = ctx.step;
    StressOutput<Real> stress{};
    if (ctx.stress_due && stress_) {
      stress.out = stress_->data();
      stress.nodes = stress_nodes_->data();
    }
    if (relaxation_time_) {
      stress.relaxation_time = relaxation_time_->data();
      stress.relaxation_nodes = relaxation_nodes_->data();
    }
    auto& links = fields.get<Real>("link_value");
    // The force at the time of the moments this step computes (state after the step).
    const phys::Vec3<Real> acceleration = acceleration_at(time);
    const std::uint32_t seed = dither_ ? (phys::mix32(std::uint32_t(step)) | 1u) : 0u;
    Real* density = fields.get<Real>("density").data();
    Real* velocity = fields.get<Real>("velocity").data();
    const Real* force = has_force_ ? fields.get<Real>("force").data() : nullptr;
    const Real* link_values = links.count() ? links.data() : nullptr;
    // The update with the stress output only on the steps it is due (StressOutput).
    auto launch = [&](auto collision, auto lattice, auto with_stress) {
      using Collision = decltype(collision);
      using View = decltype(lattice);
      constexpr bool stressed = decltype(with_stress)::value;
      if (in_place_) {
        CollideStreamInPlace<Real, Collision, Store, View, stressed> k{
            fields.get<Store>("f").data(), lattice, link_values, force, density, velocity, acceleration, collision,
            stride_, moments, seed, step % 2 != 0, stress};
        exec::for_each(space_, nodes, k, "lb_bgk::collide_stream_in_place", block_size_);
      } else {
        CollideStream<Real, Collision, Store, View, stressed> k{
            fields.get<Store>("f").data(), fields.get<Store>("f_next").data(), lattice, link_values, force, density,
            velocity, acceleration, collision, stride_, moments, seed, stress};
        exec::for_each(space_, nodes, k, "lb_bgk::collide_stream", block_size_);
      }
    };
    std::visit(
        [&](auto collision, auto lattice) {
          if (stress.any()) launch(collision, lattice, std::true_type{});
          else launch(collision, lattice, std::false_type{});
        },
        collision_, lattice_);
  }

  /// The collision operator and its rates, from [lb_bgk] and tau.
  void select_collision(SetupStage& st) {
    const std::string name = st.config.string("lb_bgk.collision");
    const double tau = st.units.tau, omega = st.units.omega();
    if (name != "trt" && st.config.has("lb_bgk.magic"))
      log::warn(str(st.config.where("lb_bgk.magic"), ": lb_bgk.magic applies only to collision = \"trt\"; ignored with \"",
                    name, "\""));
    if (name == "trt") {
      const double magic = st.config.real("lb_bgk.magic"), omega_minus = phys::trt_omega_minus(tau, magic);
      collision_ = phys::TrtCollision<Real>{Real(omega), Real(omega_minus)};
      log::info(str("lb_bgk: TRT collision, magic parameter ", fmt_g(magic, 6), ": omega+ = ", fmt_g(omega, 6),
                    ", omega- = ", fmt_g(omega_minus, 6)));
      return;
    }
    // The eddy viscosity's constant, checked in plan() (smagorinsky_constant): 0 unless regularized.
    const double smagorinsky = smagorinsky_constant(st.config);
    const Real c = Real(phys::smagorinsky_coefficient(smagorinsky));
    if (name == "bgk") collision_ = phys::BgkCollision<Real>{Real(omega)};
    else if (name == "recursive_regularized") collision_ = phys::RecursiveRegularizedCollision<Real>{Real(omega), c};
    else collision_ = phys::RegularizedCollision<Real>{Real(omega), c};
    log::info(str("lb_bgk: ",
                  name == "bgk"           ? "BGK"
                  : name == "regularized" ? "regularized (Latt & Chopard)"
                                          : "recursive regularized (Malaspinas; Coreixas et al.)",
                  " collision, omega = ",
                  fmt_g(omega, 6),
                  smagorinsky > 0.0 ? str(", Smagorinsky eddy viscosity C = ", fmt_g(smagorinsky, 4),
                                          " (each node relaxes at its own tau_eff >= tau = ", fmt_g(tau, 6), ")")
                                    : std::string()));
  }

  exec::Space space_ = exec::Space::host;
  std::uint32_t nodes_ = 0, interior_ = 0, stride_ = 0;
  // The case's operator with its rates; the kernel is instantiated for each alternative.
  std::variant<phys::BgkCollision<Real>, phys::TrtCollision<Real>, phys::RegularizedCollision<Real>,
               phys::RecursiveRegularizedCollision<Real>>
      collision_;
  LatticeView lattice_;  // the mesh layout's addressing (core/fields/lattice_fields.hpp)
  double g0_[3] = {0, 0, 0}, g1_[3] = {0, 0, 0}, force_omega_ = 0.0;  // lattice units, rad/s
  phys::Vec3<Real> u0_{};
  bool has_force_ = false, dither_ = false, in_place_ = false;
  int block_size_ = exec::default_block_size;
  const Scheduler* scheduler_ = nullptr;
  Field<Real>* stress_ = nullptr;              // "viscous_stress", where a plugin asked for it
  Field<std::uint8_t>* stress_nodes_ = nullptr;  // "viscous_stress_nodes"
  Field<Real>* relaxation_time_ = nullptr;            // "relaxation_time", where a plugin asked for it
  Field<std::uint8_t>* relaxation_nodes_ = nullptr;  // "relaxation_time_nodes"
};

/// lb_bgk.storage (default: the run's precision): fp32 and fp64 as computed; the 16-bit
/// formats with fp32 arithmetic only (docs/bytes_per_update.md).
std::string population_storage(const config::Config& cfg, Precision run_precision) {
  const bool fp32 = run_precision == Precision::fp32;
  const std::string precision = fp32 ? "fp32" : "fp64";
  const std::string storage = cfg.has("lb_bgk.storage") ? cfg.string("lb_bgk.storage") : precision;
  if ((storage == "fp32" || storage == "fp64") && storage != precision)
    cfg.fail("lb_bgk.storage", str("is \"", storage, "\" but run.precision is \"", precision,
                                   "\": the populations are stored in the run's precision or in 16 bits "
                                   "(\"fp16s\", \"e4m11\")"));
  if ((storage == "fp16s" || storage == "e4m11") && !fp32)
    cfg.fail("lb_bgk.storage", str("\"", storage, "\" needs run.precision = \"fp32\" (16-bit storage is "
                                   "converted to and from fp32 arithmetic)"));
  return storage;
}

/// Refuses a flow faster than the collision operator survives at this resolution
/// (stability.hpp): the grid Reynolds number U dx / nu above the operator's limit, or
/// lb_bgk.max_grid_reynolds. Warns above the lowest limit the stability map measured, and
/// where tau is large enough for bounce-back walls to move (BGK, regularized).
void check_stability(const PlanStage& st) {
  const config::Config& cfg = st.config;
  const std::string collision = cfg.string("lb_bgk.collision");
  const double magic = cfg.real("lb_bgk.magic"), tau = st.units.tau;
  const GridReynoldsLimit limit = grid_reynolds_limit(collision, magic);
  const bool own_limit = cfg.has("lb_bgk.max_grid_reynolds");
  const double refuse = own_limit ? cfg.real("lb_bgk.max_grid_reynolds") : limit.refuse;
  const std::string name = collision == "trt" ? str("\"trt\" (magic ", fmt_g(magic, 4), ")") : str("\"", collision, "\"");
  if (st.flow.velocity > 0.0) {
    const double re_grid = st.flow.velocity * st.units.dx / st.units.viscosity;
    // tau - 1/2 = 3 u_lattice / Re_grid: the stable range of tau at this lattice velocity.
    const double tau_min = 0.5 + 3.0 * st.flow.u_lattice / refuse;
    if (re_grid > refuse) {
      const double dx_max = floor_significant(refuse * st.units.viscosity / st.flow.velocity, 3);
      std::string others;
      for (const char* alt : {"regularized", "recursive_regularized", "bgk", "trt"})
        if (alt != collision && grid_reynolds_limit(alt, 3.0 / 16.0).refuse > re_grid)
          others += str(others.empty() ? "" : " or ", "lb_bgk.collision = \"", alt, "\" (limit ",
                        fmt_g(grid_reynolds_limit(alt, 3.0 / 16.0).refuse, 3), ")");
      cfg.fail("lattice.dx",
               str("= ", fmt_g(st.units.dx, 4), " m gives the grid Reynolds number U dx / nu = ", fmt_g(st.flow.velocity, 4),
                   " m/s x ", fmt_g(st.units.dx, 4), " m / ", fmt_g(st.units.viscosity, 4), " m^2/s = ", fmt_g(re_grid, 3),
                   " (U: ", st.flow.velocity_source, "), above ", fmt_g(refuse, 3), ", the limit of lb_bgk.collision = ", name,
                   own_limit ? " set by lb_bgk.max_grid_reynolds" : str(" (", limit.basis, "; docs/stability.md)"),
                   ": lattice.tau = ", fmt_g(tau, 5), " is below its stable range at u_lattice = ", fmt_g(st.flow.u_lattice, 3),
                   " (tau - 1/2 >= 3 u_lattice / ", fmt_g(refuse, 3), ", tau >= ", fmt_g(tau_min, 5),
                   "), but a larger tau or dt raises u_lattice with it, so at this U and dx no tau is: use lattice.dx <= ",
                   fmt_g(dx_max, 3), " m", others.empty() ? "" : ", or " + others,
                   "; lb_bgk.max_grid_reynolds overrides the limit"));
    }
    if (!own_limit && re_grid > limit.warn)
      log::warn(str("lb_bgk: the grid Reynolds number U dx / nu = ", fmt_g(re_grid, 3), " is above ", fmt_g(limit.warn, 3),
                    ", where some runs of lb_bgk.collision = ", name, " diverged in the stability map (docs/stability.md; ",
                    "it refuses above ", fmt_g(limit.refuse, 3), "); a finer lattice.dx is safer"));
  }
  // Large tau: halfway bounce-back walls move with tau under BGK and the regularized
  // operator (TRT keeps them with its magic parameter). Plane channel, 8 nodes across
  // (tests/integration/trt_channel.py's case), relative L2 error of the velocity: BGK 0.7%
  // at tau 1, 9.3% at 1.5, 24% at 2, 69% at 3; regularized 0.7%, 3.6%, 6.4%, 12%; TRT
  // (magic 3/16) 1e-14 at every tau. The error falls as 1/N^2.
  const double tau_warn = collision == "bgk" ? 1.5 : collision == "regularized" ? 2.0 : 0.0;
  if (tau_warn > 0.0 && tau > tau_warn)
    log::warn(str("lb_bgk: tau = ", fmt_g(tau, 4), " > ", tau_warn, ": with collision = \"", collision, "\" bounce-back ",
                  "walls move with tau (a plane channel 8 nodes across is ", collision == "bgk" ? "9%, 24% and 69%" : "4%, 6% and 12%",
                  " off at tau 1.5, 2 and 3); reduce lattice.dt (or lattice.tau), or use collision = \"trt\""));
}

class BgkPlugin final : public Plugin {
 public:
  void plan(PlanStage& st) override {
    check_stability(st);
    smagorinsky_constant(st.config);
    // What setup() declares (Solver::setup): the populations in their storage, one set in
    // place or two, the moments in the run's precision; the halo's staging buffers.
    const std::string storage = population_storage(st.config, st.precision);
    const bool in_place = st.config.string("lb_bgk.streaming") == "aa";
    const std::size_t store = storage == "fp64" ? 8 : storage == "fp32" ? 4 : 2;
    const std::size_t real = st.precision == Precision::fp32 ? 4 : 8;
    MemoryPlan& m = st.memory;
    const std::uint64_t set = std::uint64_t(d3q19::Q) * m.stride() * store;
    m.node_field("lb_bgk", "f", d3q19::Q, store);
    if (!in_place) m.node_field("lb_bgk", "f_next", d3q19::Q, store);
    m.node_field("lb_bgk", "density", 1, real);
    m.node_field("lb_bgk", "velocity", 3, real);
    // Halo: at most every population of each halo node, sent and received; on CUDA packed
    // on the device too (HaloExchange::reserve, with its growth of a half).
    const std::uint64_t halo = 2ull * st.mesh.num_halo * d3q19::Q * store;
    if (st.space == exec::Space::cuda) {
      m.host("lb_bgk", "halo staging (pinned)", halo);
      m.array("lb_bgk", "halo packing", halo + halo / 2, 1);
    } else {
      m.array("lb_bgk", "halo staging", halo, 1);
    }
    if (!in_place) m.advise("lb_bgk.streaming = \"aa\"", set, "one population set, bitwise the same results");
    if (st.precision == Precision::fp64)
      m.advise("run.precision = \"fp32\"", (in_place ? 1 : 2) * set / 2 + 4ull * m.stride() * 4,
               "the populations and moments; the other real fields halve too");
    if (storage == "fp32" || storage == "fp64")
      m.advise(str("lb_bgk.storage = \"e4m11\" or \"fp16s\"", storage == "fp64" ? " with run.precision = \"fp32\"" : ""),
               (in_place ? 1 : 2) * (set - set * 2 / store), "16-bit populations; their accuracy in docs/validation.md");
  }
  void setup(SetupStage& st) override {
    solver_ = make_solver(st);
    solver_->setup(st);
  }
  void initialise(SetupStage& st) override { solver_->initialise(st); }

 private:
  static std::unique_ptr<SolverBase> make_solver(SetupStage& st) {
    const bool fp32 = st.precision == Precision::fp32;
    const std::string precision = fp32 ? "fp32" : "fp64";
    const std::string storage = population_storage(st.config, st.precision);
    if (storage != precision) log::info(str("lb_bgk: populations stored as ", storage, " (arithmetic in fp32)"));
    if (storage == "fp16s") return std::make_unique<Solver<float, phys::Fp16s>>();
    if (storage == "e4m11") return std::make_unique<Solver<float, phys::E4m11s>>();
    if (fp32) return std::make_unique<Solver<float, float>>();
    return std::make_unique<Solver<double, double>>();
  }

  std::unique_ptr<SolverBase> solver_;
};

void declare_config(config::Schema& schema) {
  // The physics parameters are core keys ([lattice] tau, [forcing], [initial]); this
  // section holds the plugin's own tuning.
  schema.section("lb_bgk", "lb_bgk", "D3Q19 solver options: the collision operator and kernel tuning")
      .string("collision",
              "Collision operator: 'bgk' (single relaxation time), 'trt' (two relaxation times, Ginzburg) or "
              "'regularized' (Latt & Chopard, the default: by far the most stable near tau = 1/2, docs/stability.md) or "
              "'recursive_regularized' (Malaspinas 2015; Coreixas et al. 2017: regularized with the third-order terms "
              "D3Q19 holds; not yet in the stability map); all "
              "give nu = (tau - 1/2)/3 in lattice units")
      .choices({"bgk", "trt", "regularized", "recursive_regularized"})
      .default_value(std::string("regularized"))
      .real("magic", "1",
            "TRT magic parameter Lambda = (tau - 1/2)(1/omega- - 1/2): 3/16 puts bounce-back walls exactly halfway "
            "in a lattice-aligned channel for any tau, 1/4 is the most stable (collision = 'trt' only)")
      .greater_than(0.0)
      .default_value(3.0 / 16.0)
      .string("storage",
              "How the populations are stored: 'fp32' or 'fp64' (as computed; the default is run.precision), "
              "'fp16s' (IEEE half of f - w, FluidX3D's FP16S) or 'e4m11' (1 sign, 4 exponent, 11 mantissa bits of "
              "f - w: twice as accurate per rounding). The 16-bit storages need run.precision = 'fp32' and halve the "
              "population bytes (docs/bytes_per_update.md, the accuracy cost in docs/validation.md)")
      .choices({"fp32", "fp64", "fp16s", "e4m11"})
      .string("rounding",
              "How a 16-bit storage rounds: 'dithered' (the default: stochastically, up with the probability of the "
              "value's distance from the code below, with deterministic noise from the value and the step, so that "
              "increments smaller than half a step are kept on average instead of lost) or 'nearest' (to nearest, ties "
              "to even: faster for fp16s, whose device conversion is one instruction, but in the validation studies at "
              "fine resolution it lost accuracy that dithering keeps; docs/validation.md)")
      .choices({"nearest", "dithered"})
      .default_value(std::string("dithered"))
      .string("streaming",
              "'ab' (two population sets: read one, write the other) or 'aa' (one set, streamed in place by the AA "
              "pattern: half the population memory, the same bytes per update, bitwise the same results)")
      .choices({"ab", "aa"})
      .default_value(std::string("ab"))
      .integer("block_size", "1",
               "CUDA threads per block of the collide-stream kernel (a multiple of 32). 128 (the default) was the fastest "
               "of 64-512 on an H200 for bricks (4-6% over 256) and within 1% of the best for the node list "
               "(docs/bytes_per_update.md, section 9)")
      .at_least(32)
      .at_most(exec::max_block_size)
      .default_value(std::int64_t{128})
      .real("max_grid_reynolds", "1",
            "Largest grid Reynolds number U dx / nu (U: flow.reference_velocity or its estimate) a run may have; "
            "default: the limit of lb_bgk.collision, one grid step above the highest the stability map survived "
            "(bgk 34, trt 12 with magic >= 1/12, regularized 270; docs/stability.md). `hemoflow check` and `run` "
            "refuse a case above it and print the lattice.dx that keeps within it; a larger tau or dt does not help, "
            "it raises the lattice velocity as much. Set it higher to run past the map (tools/stability does)")
      .greater_than(0.0)
      .real("smagorinsky", "1",
            "Smagorinsky constant C of a subgrid (LES) eddy viscosity nu_t = (C dx)^2 |S| (Smagorinsky 1963; Hou et "
            "al. 1996): each node relaxes at its own tau_eff = (tau + sqrt(tau^2 + 18 sqrt(2) C^2 |Pi1| / rho)) / 2 "
            "from its non-equilibrium stress Pi1, |Pi1| = sqrt(Pi1:Pi1) (lattice units), so the viscosity rises where "
            "the resolved shear is strong. 0 (the default) is off and changes no bit of a run; 0.1-0.17 are usual. "
            "A model of unresolved eddies, for flows that are turbulent or transitional at this dx; not a cure for a "
            "laminar run that diverges (an aorta whose inflow reverses runs without it on a Zou-He velocity inlet, "
            "docs/windkessel.md). It changes the physics (the effective viscosity is nu + nu_t, the wall shear stress "
            "includes the eddy stress; plugins/lb_bgk/README.md). collision = 'regularized' or "
            "'recursive_regularized' only")
      .at_least(0.0)
      .default_value(0.0);
}

Plugin* create() { return new BgkPlugin(); }

const PluginDescriptor descriptor{"lb_bgk", "lb", "0.1.0",
                                  "D3Q19 BGK/TRT/regularized, fused pull collide-stream, A-B populations, Guo body force",
                                  &declare_config, &create};

}  // namespace
}  // namespace hemo::lb_bgk

HEMO_EXPORT_PLUGIN(hemo::lb_bgk::descriptor)
