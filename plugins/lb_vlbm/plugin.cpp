// lb_vlbm: the volumetric lattice Boltzmann method (VLBM paper, seeds/000, sec. 2.1) on
// top of lb_bgk. The collision (eqs. 3-4) is lb_bgk's BGK on the density per fluid volume;
// what VLBM adds is the generalized streaming (eqs. 5-6) between cells of different solid
// fraction P, which this plugin expresses as link values (kernels.hpp), so lb_bgk's fused
// kernel runs unchanged. Cells with P = 1 are not stored; cells with 0 < P < 1 are.
// See README.md.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/for_each.hpp"
#include "core/exec/reduce.hpp"
#include "core/fields/lattice_fields.hpp"
#include "core/io/series_csv.hpp"
#include "core/plugin/plugin_api.hpp"
#include "physics/partial_volume.hpp"
#include "plugins/lb_vlbm/kernels.hpp"

namespace hemo::vlbm {

namespace {

/// P of the voxels that are neither fluid nor solid, looked up by voxel index (a
/// partial-cell list instead of a box-sized array: only a thin shell has 0 < P < 1).
class SolidFractions {
 public:
  explicit SolidFractions(const geometry::VoxelGrid& v) : voxels_(&v), dims_(v.dims) {
    if (v.solid_fraction.empty()) return;
    // The voxels held (this rank's window), in ascending global voxel index.
    const auto& w = v.window;
    for (int k = w.lo[2]; k < w.lo[2] + w.extent[2]; ++k)
      for (int j = w.lo[1]; j < w.lo[1] + w.extent[1]; ++j)
        for (int i = w.lo[0]; i < w.lo[0] + w.extent[0]; ++i) {
          const auto n = std::size_t(v.index(i, j, k));
          if (v.fluid[n] && v.solid_fraction[n] > 0.0f) {
            index_.push_back(v.voxel_index(i, j, k));
            value_.push_back(v.solid_fraction[n]);
          }
        }
  }
  std::size_t partial_cells() const { return index_.size(); }
  /// P of voxel v while the voxels exist (mesh building): solid, or cut away by an
  /// iolet since, counts as 1.
  float operator()(const std::array<int, 3>& v) const {
    return voxels_->is_fluid(v[0], v[1], v[2]) ? of_fluid(v) : 1.0f;
  }
  /// P of a voxel known to be fluid (a mesh node); needs only the partial-cell list.
  float of_fluid(const std::array<int, 3>& v) const {
    const std::int64_t i = v[0] + std::int64_t(dims_[0]) * (v[1] + std::int64_t(dims_[1]) * v[2]);  // voxel_index
    const auto it = std::lower_bound(index_.begin(), index_.end(), i);
    return it != index_.end() && *it == i ? value_[std::size_t(it - index_.begin())] : 0.0f;
  }

 private:
  const geometry::VoxelGrid* voxels_;  // valid during mesh building only
  std::array<int, 3> dims_;
  std::vector<std::int64_t> index_;
  std::vector<float> value_;
};

class Vlbm {
 public:
  virtual ~Vlbm() = default;
  virtual void setup(SetupStage& st, int link_class, const SolidFractions& p) = 0;
};

/// lb_vlbm.mixing: the share m of a bounce-back in a pull from a more solid cell
/// (physics/partial_volume.hpp).
enum class Mixing { volume, viscosity_weighted };

/// Whether the viscosity-weighted share takes each node's tau_eff: under lb_bgk's
/// Smagorinsky eddy viscosity (regularized operator only, which lb_bgk checks).
bool per_node_tau(const config::Config& cfg) {
  return cfg.string("lb_vlbm.mixing") == "viscosity_weighted" && cfg.real("lb_bgk.smagorinsky") > 0.0 &&
         cfg.string("lb_bgk.collision") == "regularized";
}

template <class Real>
class VlbmIn final : public Vlbm {
 public:
  explicit VlbmIn(Mixing mixing) : mixing_(mixing) {}
  void setup(SetupStage& st, int link_class, const SolidFractions& p) override {
    const mesh::SparseMesh& m = st.mesh;
    // Under lb_bgk's Smagorinsky eddy viscosity (regularized operator only) each node
    // relaxes at its own tau_eff >= tau, and the viscosity-weighted share takes the
    // receiving node's, which lb_bgk writes every step (Scheduler::require_relaxation_time):
    // with lattice.tau instead the wall moved outward by up to 0.23 dx (README).
    const bool per_node = per_node_tau(st.config);
    // The class's links, grouped by the node they enter (ReturnExcess runs one such node a thread).
    std::vector<std::uint32_t> order;
    for (std::size_t k = 0; k < m.links.size(); ++k)
      if (m.links.link_class[k] == link_class) order.push_back(static_cast<std::uint32_t>(k));
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return m.links.node[a] < m.links.node[b]; });
    std::vector<std::uint32_t> link, from, to, node, first;
    std::vector<std::uint8_t> direction;
    std::vector<Real> mix, returned;
    for (const std::uint32_t k : order) {
      const std::uint32_t y = m.links.node[k], x = m.links.source[k];
      if (node.empty() || node.back() != y) {
        node.push_back(y);
        first.push_back(static_cast<std::uint32_t>(link.size()));
      }
      const float p_x = p.of_fluid({m.i[x], m.j[x], m.k[x]}), p_y = p.of_fluid({m.i[y], m.j[y], m.k[y]});
      const double phi = phys::volumetric_mix(double(p_x), double(p_y));
      const double share = mixing_ == Mixing::volume ? phi : phys::viscosity_weighted_mix(phi, st.units.tau);
      link.push_back(k);
      from.push_back(x);
      to.push_back(y);
      direction.push_back(m.links.direction[k]);
      mix.push_back(Real(per_node ? phi : share));  // per node: the share is formed each step from phi
      returned.push_back(Real(phi - share));
    }
    first.push_back(static_cast<std::uint32_t>(link.size()));
    count_ = static_cast<std::uint32_t>(link.size());
    nodes_mixed_ = static_cast<std::uint32_t>(node.size());
    link_ = exec::to_device(st.space, link);
    from_ = exec::to_device(st.space, from);
    to_ = exec::to_device(st.space, to);
    node_ = exec::to_device(st.space, node);
    first_ = exec::to_device(st.space, first);
    direction_ = exec::to_device(st.space, direction);
    mix_ = exec::to_device(st.space, mix);
    if (mixing_ != Mixing::volume) {
      if (!per_node) returned_ = exec::to_device(st.space, returned);  // per node: formed with m each step
      excess_ = exec::DeviceArray<Real>(st.space, count_);
    }
    mesh_ = &m;
    stride_ = m.stride;
    space_ = st.space;
    nodes_ = m.num_nodes;
    // 1 - P per node, as a field: the boundaries plugin weights an iolet's flow rate by it
    // (a partial cell holds (1 - P) f particles), and outputs can show it.
    std::vector<Real> share(m.stride, Real(0));
    for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {  // a brick's holes keep 0
      const std::uint32_t n = m.fluid_node(f);
      share[n] = Real(1.0 - double(p.of_fluid({m.i[n], m.j[n], m.k[n]})));
    }
    st.fields.declare_node_field<Real>("fluid_share", 1, "lb_vlbm", "1 - P: the fluid share of each cell (VLBM)")
        .array()
        .upload(share);
    if (per_node) {
      // The receiving nodes' tau_eff, lattice.tau before the first collision; restart
      // state (optional: a checkpoint without it starts from lattice.tau), so a restarted
      // run forms the same shares as one run through.
      std::vector<std::uint8_t> receives(m.stride, 0);
      for (const std::uint32_t y : node) receives[y] = 1;
      st.fields.declare_node_field<std::uint8_t>("relaxation_time_nodes", 1, "lb_vlbm",
                                                 "1 where lb_bgk writes relaxation_time for lb_vlbm")
          .array()
          .upload(receives);
      auto& tau = st.fields.declare_node_field<Real>("relaxation_time", 1, "lb_vlbm",
                                                     "tau_eff of each node's last collision (lattice units), at the "
                                                     "nodes that take a pull mixed with bounce-back");
      tau.set_optional_restart_state();
      tau.array().upload(std::vector<Real>(m.stride, Real(st.units.tau)));
      relaxation_time_ = &tau;
      st.scheduler.require_relaxation_time("lb_vlbm");
    }
    scratch_ = exec::DeviceArray<Real>(st.space, m.num_nodes);
    check_every_ = st.check_every;
    comm_ = &st.comm;
    csv_.open(st.comm, st.output_dir, "vlbm.csv", ",particles", st.first_step);
    log::info(str("lb_vlbm: ", p.partial_cells(), " partial cells (0 < P < 1), ", st.comm.sum(std::uint64_t(count_)),
                  " pulls from a more solid cell mixed with bounce-back (",
                  mixing_ == Mixing::volume ? "volume share"
                  : per_node                ? "viscosity-weighted share, by each node's eddy-viscosity tau"
                                            : "viscosity-weighted share", ")"));
    // Before the collide-stream kernel, which reads the link values written here.
    st.scheduler.add(Phase::begin_step, "partial_volume_links", "lb_vlbm", [this](StepContext& ctx) {
      if (!count_) return;
      // The populations after the last step, where lb_bgk's streaming left them.
      const PopulationSlotsOf slots = population_slots(*ctx.fields, *mesh_, ctx.step - 1);
      visit_populations<Real>(*ctx.fields, "f", [&](auto& f) {
        using Store = typename std::remove_cvref_t<decltype(f)>::value_type;
        std::visit(
            [&](auto where) {
              using View = decltype(where.lattice);
              const bool give_back = mixing_ != Mixing::volume;
              PartialVolumeLinks<Real, Store, View> links{ctx.fields->get<Real>("link_value").data(),
                                                          link_.data(),
                                                          from_.data(),
                                                          to_.data(),
                                                          direction_.data(),
                                                          mix_.data(),
                                                          give_back ? returned_.data() : nullptr,
                                                          give_back ? excess_.data() : nullptr,
                                                          f.data(),
                                                          where,
                                                          relaxation_time_ ? relaxation_time_->data() : nullptr};
              exec::for_each(space_, {0, count_}, links, "lb_vlbm::partial_volume_links");
              if (give_back)
                exec::for_each(space_, {0, nodes_mixed_},
                               ReturnExcess<Real, Store, View>{node_.data(), first_.data(), excess_.data(), f.data(), where},
                               "lb_vlbm::return_excess");
            },
            slots);
      });
    });
    st.scheduler.add(Phase::output, "particle_count", "lb_vlbm", [this](StepContext& ctx) { monitor(ctx); });
  }

 private:
  /// vlbm.csv: the domain's particle number sum (1 - P) sum_q f, lattice units, which the
  /// generalized streaming conserves where no iolet adds or removes mass.
  void monitor(StepContext& ctx) {
    if (ctx.step % check_every_ != 0) return;
    const PopulationSlotsOf slots = population_slots(*ctx.fields, *mesh_, ctx.step);
    visit_populations<Real>(*ctx.fields, "f", [&](auto& f) {
      using Store = typename std::remove_cvref_t<decltype(f)>::value_type;
      std::visit(
          [&](auto where) {
            CellParticles<Real, Store, decltype(where.lattice)> kernel{
                scratch_.data(), ctx.fields->get<Real>("fluid_share").data(), f.data(), where};
            exec::for_each(space_, {0, nodes_}, kernel, "lb_vlbm::cell_particles");
          },
          slots);
    });
    const double total = comm_->sum(exec::sum(space_, scratch_.data(), nodes_));
    csv_.begin(ctx.step, ctx.time);
    csv_.value(total, 17);
    csv_.end();
  }

  Mixing mixing_;
  Field<Real>* relaxation_time_ = nullptr;  // "relaxation_time": the share from each receiving node's tau_eff
  exec::DeviceArray<std::uint32_t> link_, from_, to_, node_, first_;
  exec::DeviceArray<std::uint8_t> direction_;
  exec::DeviceArray<Real> mix_, returned_, excess_, scratch_;
  const mesh::SparseMesh* mesh_ = nullptr;
  std::uint32_t count_ = 0, nodes_mixed_ = 0, stride_ = 0, nodes_ = 0;
  exec::Space space_ = exec::Space::host;
  std::int64_t check_every_ = 100;
  comm::Communicator* comm_ = nullptr;
  io::SeriesCsv csv_;  // vlbm.csv
};

class VlbmPlugin final : public Plugin {
 public:
  void shape_mesh(MeshStage& st) override {
    fractions_ = std::make_unique<SolidFractions>(st.voxels);
    if (st.voxels.solid_fraction.empty())
      log::warn("lb_vlbm: the geometry has no solid fractions (an analytic shape); every cell is fluid or solid, "
                "so VLBM reduces to halfway bounce-back. Load an STL or a voxel file for partial cells");
    const SolidFractions* p = fractions_.get();
    link_class_ = st.request.add_fluid_link_class(
        "vlbm", [p](const std::array<int, 3>& from, const std::array<int, 3>& to) { return (*p)(from) > (*p)(to); });
    const Mixing mixing = st.config.string("lb_vlbm.mixing") == "volume" ? Mixing::volume : Mixing::viscosity_weighted;
    if (st.config.string("run.precision") == "fp32") impl_ = std::make_unique<VlbmIn<float>>(mixing);
    else impl_ = std::make_unique<VlbmIn<double>>(mixing);
  }
  void plan(PlanStage& st) override {
    // VlbmIn::setup: per link of the class, its index, source node, direction, mix and
    // returned share; per receiving node its index and first link; per node the fluid share
    // and a scratch row.
    std::uint64_t links = 0, receiving = 0;
    std::uint32_t last = ~0u;
    for (std::size_t k = 0; k < st.mesh.links.size(); ++k) {
      if (st.mesh.links.link_class[k] != link_class_) continue;
      ++links;
      if (st.mesh.links.node[k] != last) ++receiving;  // an upper bound where a node's links are not adjacent
      last = st.mesh.links.node[k];
    }
    const std::size_t real = st.precision == Precision::fp32 ? 4 : 8;
    const bool per_node = per_node_tau(st.config);  // no returned share kept: formed each step
    st.memory.array("lb_vlbm", "partial-volume links", links, 3 * sizeof(std::uint32_t) + 1 + (per_node ? 2 : 3) * real);
    st.memory.array("lb_vlbm", "nodes that partial-volume links enter", receiving + 1, 2 * sizeof(std::uint32_t));
    st.memory.node_field("lb_vlbm", "fluid_share", 1, real);
    st.memory.array("lb_vlbm", "particle count scratch", st.mesh.num_nodes, real);
    if (per_node) {
      st.memory.node_field("lb_vlbm", "relaxation_time", 1, real);
      st.memory.node_field("lb_vlbm", "relaxation_time_nodes", 1, 1);
    }
  }
  void setup(SetupStage& st) override {
    warn_if_unstable(st);
    impl_->setup(st, link_class_, *fractions_);
    fractions_.reset();
  }

 private:
  /// The linear stability of the partial-cell wall (tools/analysis/vlbm_stability.py,
  /// docs/vlbm_stability.md: plane walls, Stokes limit): with the viscosity-weighted share
  /// and its rest-population give-back, modes grow at cells of P >= 0.75 under BGK below
  /// tau = 0.53, and at P >= 0.9 under the regularized operator below tau = 0.515; TRT has
  /// none down to tau = 0.5036, nor has the volume share.
  static void warn_if_unstable(const SetupStage& st) {
    if (st.config.string("lb_vlbm.mixing") == "volume" || !st.config.has("lb_bgk.collision")) return;
    const std::string op = st.config.string("lb_bgk.collision");
    const double tau = st.units.tau, below = op == "bgk" ? 0.53 : op == "regularized" ? 0.515 : 0.0;
    if (tau >= below) return;
    log::warn(str("lb_vlbm: tau = ", fmt_g(tau), " with lb_bgk.collision = \"", op, "\" and the viscosity-weighted "
                  "share: the linear analysis of a partial-cell wall finds growing modes below tau = ", fmt_g(below),
                  " (docs/vlbm_stability.md; a run may still hold, as the carotid demo does with the regularized "
                  "operator). lb_bgk.collision = \"trt\" has none there, where the grid Reynolds number U dx / nu "
                  "allows it (up to 12; above, the regularized operator is the one that runs); lb_vlbm.mixing = "
                  "\"volume\" has none either, with its wall moved inward (plugins/lb_vlbm/README.md)"));
  }

  std::unique_ptr<SolidFractions> fractions_;
  std::unique_ptr<Vlbm> impl_;
  int link_class_ = -1;
};

void declare_config(config::Schema& schema) {
  schema.section("lb_vlbm", "lb_vlbm", "Volumetric LB: partial cells by solid fraction (plugins/lb_vlbm/README.md)")
      .string("mixing",
              "Share of a bounce-back in a pull from a more solid cell: 'viscosity_weighted' (the default: the VLBM "
              "share weighted by tau as in Noble and Torczynski's partially saturated cells, which keeps the wall in "
              "place at every tau) or 'volume' (the VLBM paper's share (P_x - P_y) / (1 - P_y): conserves the particle "
              "number to rounding, but the wall moves inward as tau nears 1/2); physics/partial_volume.hpp")
      .choices({"viscosity_weighted", "volume"})
      .default_value(std::string("viscosity_weighted"));
}

Plugin* create() { return new VlbmPlugin(); }

const PluginDescriptor descriptor{"lb_vlbm", "boundary", "0.1.0",
                                  "volumetric LB (solid fraction per cell, generalized streaming) on top of lb_bgk",
                                  &declare_config, &create};

}  // namespace
}  // namespace hemo::vlbm

HEMO_EXPORT_PLUGIN(hemo::vlbm::descriptor)
