// rbc: red blood cells as rigid oblate ellipsoids in the plasma (MUPHY paper, seeds/004,
// secs. 2-3): Gay-Berne repulsion between cells, a wall repulsion, drag and torque
// coupling to the LB through the force field, and a second-order rigid-body step. On many
// ranks each cell lives on the rank owning its centre's tile, and cells near other ranks
// are shared with them (docs/rbc_ranks.md). See README.md.
#include <algorithm>
#include <optional>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <omp.h>

#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/for_each.hpp"
#include "core/fields/population_rows.hpp"
#include "core/exec/primitives.hpp"
#include "core/io/particle_writer.hpp"
#include "core/io/series_csv.hpp"
#include "core/mesh/tile_maps.hpp"
#include "core/plugin/plugin_api.hpp"
#include "physics/d3q19.hpp"
#include "plugins/rbc/iolets.hpp"
#include "plugins/rbc/kernels.hpp"
#include "plugins/rbc/ranks.hpp"
#include "plugins/rbc/seeding.hpp"

namespace hemo::rbc {

namespace {

using V = phys::Vec3<double>;

/// The case's cell model in physical units, and its lattice form.
struct CellCase {
  double diameter, thickness, density;  // m, m, kg/m^3
  double gamma_t, gamma_r, gamma_s;     // kg/s, kg m^2/s, kg m^2/s
  double pair_energy, eps_ratio;        // J
  double wall_energy, wall_range;       // J, m
  double margin;                        // m
  int tile;                             // lattice spacings

  static CellCase read(const config::Config& cfg, const LatticeUnits& u) {
    CellCase c{};
    c.diameter = cfg.real("rbc.diameter");
    c.thickness = cfg.real("rbc.thickness");
    if (c.thickness > c.diameter) cfg.fail("rbc.thickness", "is larger than rbc.diameter: the cells are oblate");
    c.density = cfg.real("rbc.density");
    // Stokes' drag of the sphere of the cell's volume: 6 pi mu R and 8 pi mu R^3.
    const double mu = u.density * u.viscosity;
    const double R = std::cbrt(c.diameter * c.diameter * c.thickness / 8.0);
    c.gamma_t = cfg.real("rbc.drag_translational") > 0 ? cfg.real("rbc.drag_translational") : 6 * M_PI * mu * R;
    c.gamma_r = cfg.real("rbc.drag_rotational") > 0 ? cfg.real("rbc.drag_rotational") : 8 * M_PI * mu * R * R * R;
    // The stresslet of a rigid sphere in a strain (Batchelor 1970): 20/3 pi mu R^3.
    c.gamma_s = !cfg.boolean("rbc.strain_coupling") ? 0.0
                : cfg.real("rbc.drag_strain") > 0 ? cfg.real("rbc.drag_strain")
                                                  : 20.0 / 3.0 * M_PI * mu * R * R * R;
    c.pair_energy = cfg.real("rbc.repulsion_energy");
    c.eps_ratio = cfg.real("rbc.repulsion_anisotropy");
    c.wall_energy = cfg.has("rbc.wall_energy") ? cfg.real("rbc.wall_energy") : c.pair_energy;
    c.wall_range = cfg.real("rbc.wall_range") > 0 ? cfg.real("rbc.wall_range") : u.dx;
    c.margin = cfg.real("rbc.support_margin") > 0 ? cfg.real("rbc.support_margin") : u.dx;
    c.tile = int(cfg.integer("rbc.tile"));
    return c;
  }

  template <class Real>
  CellModel<Real> lattice(const LatticeUnits& u) const {
    const double L = u.dx, mass = u.density * L * L * L, energy = mass * L * L / (u.dt * u.dt);
    const double a = diameter / 2 / L, c = thickness / 2 / L;
    CellModel<Real> m;
    m.pair = phys::GayBerne<Real>::from_shape(Real(diameter / L), Real(thickness / L), Real(pair_energy / energy),
                                              Real(eps_ratio));
    m.wall = {Real(a), Real(c), Real(wall_range / L), Real(wall_energy / energy)};
    m.support = {Real(a + margin / L), Real(c + margin / L)};
    m.body = phys::RigidShape<Real>::ellipsoid(Real(a), Real(c), Real(density / u.density));
    m.gamma_t = Real(gamma_t / (mass / u.dt));
    m.gamma_r = Real(gamma_r / (mass * L * L / u.dt));
    m.gamma_s = Real(gamma_s / (mass * L * L / u.dt));
    m.pair_cutoff = m.pair.cutoff_distance();
    return m;
  }
};

/// The cells each node keeps a list of (Cells::cells_per_node).
constexpr std::uint32_t node_cells_kept = 8;

/// How far a cell reaches from its centre, lattice spacings: the Gay-Berne cut-off
/// between centres, the wall's reach and the coupling kernel's support.
double cell_reach(const CellModel<double>& m) {
  return std::max({double(m.pair_cutoff), double(m.wall.reach()), double(m.support.across), double(m.support.along)});
}

/// The tiles' edge, lattice spacings: rbc.tile, or the smallest that holds a cell's reach
/// (a tile must hold it: every cell a cell touches lies within one tile of the centre's
/// tile), made to divide the periodic axes. InputError for one that cannot work.
int tile_edge(const config::Config& cfg, const CellCase& cell, const CellModel<double>& m, const mesh::SparseMesh& mesh,
              bool many_ranks) {
  const double reach = cell_reach(m);
  const int needed = int(std::ceil(reach));
  int c = cell.tile > 0 ? cell.tile : needed;
  if (c < needed)
    cfg.fail("rbc.tile", str("= ", c, " lattice spacings is smaller than a cell's reach, ", fmt_g(reach, 4),
                             " spacings (the Gay-Berne cut-off ", fmt_g(m.pair_cutoff, 4), ", the wall's reach ",
                             fmt_g(m.wall.reach(), 4), ", the coupling support ", fmt_g(m.support.across, 4), "); use ",
                             needed, " or more"));
  // Along a periodic axis the tiles must divide the box: the smallest divisor >= c.
  for (int a = 0; a < 3; ++a) {
    if (!mesh.periodic[a]) continue;
    int d = c;
    while (mesh.dims[a] % d != 0) ++d;
    if (d != c && cell.tile > 0)
      cfg.fail("rbc.tile", str("= ", c, " does not divide the periodic box's ", mesh.dims[a], " voxels along ", "xyz"[a],
                               "; use ", d));
    c = d;
  }
  for (int a = 0; a < 3; ++a)
    if (mesh.periodic[a] && mesh.dims[a] < 3 * c)
      throw InputError(str("rbc: the periodic box is ", mesh.dims[a], " voxels along ", "xyz"[a], ", fewer than three tiles of ",
                           c, " (a cell's reach): a cell would meet its own image"));
  // On many ranks a tile must lie in one partition brick, so that one rank owns it.
  const auto brick = cfg.integer("partition.brick");
  if (many_ranks && brick % c != 0)
    cfg.fail("partition.brick", str("= ", brick, " is not a multiple of the cells' tile, ", c,
                                    " lattice spacings: on many ranks each tile must lie in one brick; use ",
                                    "partition.brick = ", c * ((8 + c - 1) / c), ", or set rbc.tile to a divisor of ", brick,
                                    " of at least ", needed));
  return c;
}

/// A time step in which a cell carried by the flow would cross a tile or more: the
/// neighbour search (and, on many ranks, the frontier) sees only the next tile, so the
/// run would stop with "moved more than a tile" (Cells::report_too_fast) once a cell
/// goes that fast. The flow's reference velocity stands for the cells' (they move with
/// the plasma); refused with the largest time step that keeps it under a tile.
void check_cell_step(const config::Config& cfg, const LatticeUnits& u, const FlowNumbers& flow, int tile) {
  const double per_step = flow.u_lattice;  // lattice spacings per step at U
  if (!(per_step >= double(tile))) return;
  // U dt / dx < tile: dt < tile dx / U; with tau given, tau - 1/2 = 3 nu dt / dx^2.
  const double dt_max = floor_significant(0.999 * double(tile) * u.dx / flow.velocity, 3);
  const std::string why = str("moves a cell at the flow's reference velocity U = ", fmt_g(flow.velocity, 4), " m/s (",
                              flow.velocity_source, ") ", fmt_g(per_step, 3), " lattice spacings per step, a tile (rbc.tile: ",
                              tile, " spacings) or more, and the cells' neighbour search sees only the next tile");
  if (cfg.has("lattice.dt"))
    cfg.fail("lattice.dt", str("= ", fmt_g(u.dt, 6), " s ", why, ": use lattice.dt <= ", fmt_g(dt_max, 3), " s"));
  const double tau_max = 0.5 + floor_significant(3.0 * u.viscosity * dt_max / (u.dx * u.dx), 3);
  cfg.fail("lattice.tau", str("= ", fmt_g(u.tau, 6), cfg.has("lattice.tau") ? "" : " (the default)", " ", why,
                              ": use lattice.tau <= ", fmt_g(tau_max, 6), " (lattice.dt <= ", fmt_g(dt_max, 3), " s)"));
}

template <class Real>
class Cells {
 public:
  Cells(const CellCase& c, const LatticeUnits& u)
      : case_(c), units_(u), model_(c.lattice<Real>(u)), full_model_(model_), host_model_(c.lattice<double>(u)) {}

  void setup(SetupStage& st) {
    comm_ = &st.comm;
    voxel_owner_ = st.voxel_owner;
    space_ = st.space;
    mesh_ = &st.mesh;
    choose_tiles(st);
    if (many_ranks()) plan_ranks();
    upload_tiles();
    // Node coordinates and tiles, for the per-node spreading.
    const std::uint32_t n = st.mesh.num_nodes, s = st.mesh.stride;
    std::vector<std::int32_t> voxel(3 * std::size_t(s), 0), tile(n);
    const mesh::TileView host_view = tiles_.view();
    for (std::uint32_t i = 0; i < n; ++i) {
      voxel[i] = st.mesh.i[i], voxel[s + i] = st.mesh.j[i], voxel[2 * std::size_t(s) + i] = st.mesh.k[i];
      tile[i] = st.mesh.is_fluid(i) ? host_view.tile_of_voxel(st.mesh.i[i], st.mesh.j[i], st.mesh.k[i]) : -1;  // -1: a hole
    }
    node_voxel_ = exec::to_device(space_, voxel);
    node_tile_ = exec::to_device(space_, tile);
    setup_iolets(st);
    // The cells covering each node, filled by the kick, read and cleared by the spreading.
    node_count_ = exec::DeviceArray<std::uint32_t>(space_, n);
    node_count_.zero();
    node_cells_ = exec::DeviceArray<std::uint32_t>(space_, std::size_t(n) * cells_per_node);

    auto& table = st.fields.declare_particle_table("cells", "rbc");
    table.add<Real>("position", 3, "centre, lattice units").set_restart_state();
    table.add<Real>("orientation", 4, "unit quaternion w, x, y, z, body to lab").set_restart_state();
    table.add<Real>("velocity", 3, "velocity at the half step, lattice units").set_restart_state();
    table.add<Real>("angular_momentum", 3, "lab frame, at the half step, lattice units").set_restart_state();
    table.add<Real>("angular_velocity", 3, "lab frame, lattice units");
    table.add<Real>("force", 3, "Gay-Berne and wall force at this step, lattice units");
    table.add<Real>("torque", 3, "Gay-Berne and wall torque, lattice units");
    table.add<Real>("drag", 6, "drag force and torque applied this step, lattice units");
    table.add<Real>("energy", 1, "potential energy (half of each pair's, all of each wall site's)");
    table.add<std::uint32_t>("id", 1, "global id").set_restart_state();
    table.add<std::uint32_t>("tile_key", 1, "tile of the centre (sort key; the table is kept in this order)");
    table.add<std::uint32_t>("order", 1, "the sort's permutation: row p of the sorted table was row order[p]");
    table_ = &table;
    st.fields.declare_node_field<Real>("force", 3, "rbc", "force density of the cells' drag on the plasma",
                                       Quantity::force_density);
    st.scheduler.require_streamed_velocity("rbc");
    FieldRegistry& fields = st.fields;
    if (!iolets_.feeds().empty())
      st.scheduler.add(Phase::particles, "cell_inflow", "rbc", [this, &fields](StepContext& ctx) { inflow(ctx, fields); });
    st.scheduler.add(Phase::particles, "cells_to_tiles", "rbc", [this](StepContext& ctx) { sort_into_tiles(ctx); });
    if (many_ranks()) {
      // The frontier's cells and the far velocity travel while the internal cells'
      // forces, which need neither, run on the device (paper sec. 3.3): the frontier is
      // packed and its download queued on a copy stream, the internal forces queued behind
      // the packing, and the host waits for the download only (frontier_post), so the
      // device computes through the download, the sizes round and the messages (the
      // kernel is not fenced, so a later action's time holds what is left of it).
      // Timed apart as the phases: the frontier gather (pack, queue the download),
      // the transfer (post: the download's wait and the sends; wait: the messages) and
      // the insertion of the ghosts.
      st.scheduler.add(Phase::particles, "frontier_gather", "rbc",
                       [this, &fields](StepContext& ctx) { gather_frontier(fields.get<Real>("streamed_velocity"), ctx.step); });
      st.scheduler.add(Phase::particles, "cell_forces_internal", "rbc",
                       [this, &fields](StepContext&) { internal_cells(fields); }, Scheduler::Sync::overlapped);
      st.scheduler.add(Phase::particles, "frontier_post", "rbc", [this](StepContext&) { post_frontier(); });
      st.scheduler.add(Phase::particles, "frontier_wait", "rbc", [this](StepContext&) { wait_frontier(); });
      // The insertion in three actions (appended, sorted into tiles, ordered), so that a
      // fenced run times each part.
      st.scheduler.add(Phase::particles, "ghost_append", "rbc", [this](StepContext&) { append_ghosts(); });
      st.scheduler.add(Phase::particles, "ghost_sort", "rbc", [this](StepContext&) { sort_ghosts(); });
      st.scheduler.add(Phase::particles, "ghost_order", "rbc", [this](StepContext&) { order_ghosts(); });
      // The ghosts enter the node lists as soon as they are in (on CUDA on the side stream,
      // beside the frontier rows' forces and kick); its own action, so that a fenced run
      // times it apart.
      st.scheduler.add(Phase::particles, "ghost_cover", "rbc", [this](StepContext&) { cover_ghosts(); });
      st.scheduler.add(Phase::particles, "cell_forces", "rbc", [this](StepContext&) { forces(frontier_first_, owned_); });
    } else {
      st.scheduler.add(Phase::particles, "cell_forces", "rbc", [this](StepContext&) { forces(0, owned_); });
    }
    st.scheduler.add(Phase::particles, "cell_kick", "rbc", [this, &fields](StepContext&) { kick(fields); });
    if (many_ranks()) {
      st.scheduler.add(Phase::particles, "ghost_records_post", "rbc", [this](StepContext&) { post_ghost_records(); });
      st.scheduler.add(Phase::particles, "ghost_records_wait", "rbc", [this](StepContext&) { wait_ghost_records(); });
    }
    st.scheduler.add(Phase::coupling, "spread_drag", "rbc", [this, &fields](StepContext&) { spread(fields); });
    st.scheduler.add(Phase::coupling, "cell_drift", "rbc", [this](StepContext&) { drift(); });
    st.scheduler.add(Phase::output, "cell_output", "rbc", [this, &fields](StepContext& ctx) { output(ctx, fields); });
    output_dir_ = st.output_dir;
    check_every_ = st.check_every;
    verify_every_ = st.config.integer("rbc.verify_every");
    if (const char* at = std::getenv("HEMO_TEST_RBC_MISROUTE")) misroute_at_ = std::atoll(at);
    if (const char* at = std::getenv("HEMO_TEST_RBC_MISROUTE_GHOST")) ghost_misroute_at_ = std::atoll(at);
    write_cells_ = st.config.boolean("rbc.output");
  }

  void initialise(SetupStage& st) {
    // The size the cells were placed at goes through checkpoints with them: a restart
    // grows them on from it as the uninterrupted run does.
    table_->bind_restart_value("start_size", start_size_);
    growth_steps_ = st.config.integer("rbc.growth_steps");
    // A restart's cells come from the checkpoint, which core restores after every
    // plugin's initialise (Simulation::restore_restart), sizing the table.
    // The placement mesh on rank 0: for the cells placed now, and the feeds' new cells.
    const bool feeds = !iolets_.feeds().empty();
    if (st.first_step == 0 || feeds) {
      placement_mesh_ = placement_mesh(*comm_, st.mesh);
      if (comm_->rank() == 0) placement_tiles_ = mesh::build_tile_maps(placement_mesh_, tiles_.c);
      if (comm_->rank() == 0) iolets_.list_feed_nodes(placement_mesh_);
      for (const auto& feed : iolets_.feeds())
        log::info(str("rbc: iolet '", iolets_.faces()[std::size_t(feed.iolet)].name, "' feeds cells at haematocrit ",
                      fmt_g(inflow_haematocrit_, 3), " into ", feed.nodes.size(), " nodes every ", inflow_every_,
                      " steps"));
    }
    if (st.first_step > 0) cell_volume_ = lattice_cell_volume();
    else upload(seed(st), st);
    if (!feeds) placement_mesh_ = {}, placement_tiles_ = {};
    keep_owned_ = many_ranks() && st.first_step > 0;
    owned_ = count();
    fluid_nodes_ = double(comm_->sum(std::uint64_t(st.mesh.num_fluid())));
    table_->bind_restart_value("next_id", next_id_);
    std::string crossings;
    for (std::size_t f = 0; f < iolets_.faces().size(); ++f) {
      const std::string& name = iolets_.faces()[f].name;
      table_->bind_restart_value("entered_" + name, entered_[f]);
      table_->bind_restart_value("left_" + name, left_[f]);
      crossings += ",entered_" + name + ",left_" + name;
    }
    monitor_.open(st.comm, output_dir_, "cells.csv",
                  ",cells,haematocrit,cell_momentum_x,cell_momentum_y,cell_momentum_z,fluid_momentum_x,"
                  "fluid_momentum_y,fluid_momentum_z,mean_speed_m_s,state_checksum,migrated" + crossings,
                  st.first_step);
    if (comm_->rank() != 0) return;  // the cells are gathered to rank 0, which writes them
    if (write_cells_) writer_ = std::make_unique<io::ParticleWriter>(output_dir_, "cells", st.first_step);
    else if (st.first_step > 0) io::ParticleWriter::continue_series(output_dir_, "cells", st.first_step);
  }

 private:
  void choose_tiles(SetupStage& st) {
    const int c = tile_edge(st.config, case_, host_model_, st.mesh, many_ranks());
    tiles_ = many_ranks() ? mesh::build_tile_maps(st.mesh, c, st.voxel_owner) : mesh::build_tile_maps(st.mesh, c);
    log::info(str("rbc: tiles of ", c, " lattice spacings (a cell reaches ", fmt_g(cell_reach(host_model_), 4), "): ",
                  tiles_.num_mapped(), " with fluid, ", tiles_.num_external, " around them, ",
                  fmt_g(double(tiles_.bytes()) / 1e6, 3), " MB"));
  }

  bool many_ranks() const { return comm_->size() > 1; }

  /// The peers and the far velocity halo (ranks.hpp); far codes go into tiles_.nodes.
  void plan_ranks() {
    for (std::uint32_t t = tiles_.num_mapped(); t < tiles_.num_tiles(); ++t)
      if (tiles_.tile_owner[t] == -2) throw std::logic_error("rbc: a tile holds fluid of several ranks");
    peers_ = symmetric_peers(*comm_, tiles_.peers(comm_->rank()));
    plan_peer_frontier_tiles();
    far_ = plan_far_velocity(*comm_, tiles_, peers_, tag_far_plan);
    far_send_nodes_ = exec::to_device(space_, far_.send_nodes);
    far_send_ = exec::DeviceArray<Real>(space_, 3 * far_.send_nodes.size());
    far_velocity_ = exec::DeviceArray<Real>(space_, 3 * std::size_t(far_.num_slots()));
    peer_rank_ = exec::to_device(space_, peers_);
    far_out_ = exec::HostBuffer<Real>(space_);
    far_in_ = exec::HostBuffer<Real>(space_);
    records_out_ = exec::HostBuffer<SpreadRecord<Real>>(space_);
    records_send_ = exec::HostBuffer<SpreadRecord<Real>>(space_);
    records_in_host_ = exec::HostBuffer<SpreadRecord<Real>>(space_);
    peer_first_ = exec::DeviceArray<std::uint32_t>(space_, peers_.size() + 1);
    ghost_count_ = exec::DeviceArray<std::uint32_t>(space_, tiles_.num_tiles() + 2);
    ghost_ends_ = exec::HostBuffer<std::uint32_t>(space_);
    frontier_out_ = exec::HostBuffer<unsigned char>(space_);
    frontier_in_ = exec::HostBuffer<unsigned char>(space_);
    ghost_first_ = exec::DeviceArray<std::uint32_t>(space_, tiles_.num_tiles() + 2);
    if (space_ == exec::Space::cuda) {
      copies_ = std::make_unique<exec::cuda::AsyncCopy>();
      side_ = std::make_unique<exec::cuda::SideStream>();
    }
    log::info(str("rbc: rank ", comm_->rank(), " shares cells with ", peers_.size(), " rank(s); far velocity: ",
                  far_.send_nodes.size(), " nodes out, ", far_.num_slots(), " in"));
  }

  /// Per peer, this rank's frontier tiles next to a tile the peer owns (an external tile
  /// of this rank with tile_owner the peer, across a periodic face too): the tiles that
  /// are external tiles of that peer, whose cells it keeps as ghosts (AssignGhostTiles),
  /// so the only ones it is sent. Ascending; empty for a peer seen from its side only.
  void plan_peer_frontier_tiles() {
    peer_frontier_tiles_.assign(peers_.size(), {});
    for (std::uint32_t t = tiles_.num_internal; t < tiles_.num_mapped(); ++t)
      for (std::size_t p = 0; p < peers_.size(); ++p)
        for (int k = 0; k < 26; ++k) {
          const std::int32_t n = tiles_.neighbours[26 * std::size_t(t) + std::size_t(k)];
          if (n >= 0 && std::uint32_t(n) >= tiles_.num_mapped() && tiles_.tile_owner[std::size_t(n)] == peers_[p]) {
            peer_frontier_tiles_[p].push_back(t);
            break;
          }
        }
    std::size_t sent = 0;
    for (const auto& list : peer_frontier_tiles_) sent += list.size();
    log::debug(str("rbc: rank ", comm_->rank(), ": ", tiles_.num_frontier, " frontier tiles, ", sent,
                   " (tile, peer) pairs whose cells go as ghosts"));
  }

  void upload_tiles() {
    coord_ = exec::to_device(space_, tiles_.coord);
    id_ = exec::to_device(space_, tiles_.id);
    neighbours_ = exec::to_device(space_, tiles_.neighbours);
    nodes_ = exec::to_device(space_, tiles_.nodes);
    view_ = tiles_.view();
    view_.coord = coord_.data();
    view_.id = id_.data();
    view_.neighbours = neighbours_.data();
    view_.nodes = nodes_.data();
    near_wall_ = exec::to_device(space_, tiles_.near_gaps);
    tile_owner_ = exec::to_device(space_, tiles_.tile_owner);
    workspace_ = std::make_unique<exec::Workspace>(space_);
    // Keys: every tile (mapped, then external: cells migrating), then one for centres in
    // no tile with fluid, one for cells leaving.
    tile_count_ = exec::DeviceArray<std::uint32_t>(space_, tiles_.num_tiles() + 2);
    tile_first_ = exec::DeviceArray<std::uint32_t>(space_, tiles_.num_tiles() + 2);
    key_bits_ = 1;
    while ((std::uint64_t(1) << key_bits_) <= tiles_.num_tiles() + 1) ++key_bits_;
    too_fast_ = exec::DeviceArray<std::uint32_t>(space_, 1);
    too_fast_.zero();
  }

  /// A cell's volume in lattice units (of the full-size cell).
  double lattice_cell_volume() const {
    return 4.0 / 3.0 * M_PI * double(host_model_.wall.across) * host_model_.wall.across * host_model_.wall.along;
  }

  /// Where every cell of the run starts (all of them, on every rank): placed on rank 0
  /// over the placement mesh, then broadcast.
  std::vector<CellPlacement> seed(SetupStage& st) {
    const std::string file = st.config.string("rbc.seed_file");
    const double cell_volume = lattice_cell_volume();
    const mesh::SparseMesh& pm = placement_mesh_;
    const mesh::TileMaps& tiles = placement_tiles_;
    std::vector<CellPlacement> cells;
    if (comm_->rank() == 0) {
      if (!file.empty()) {
        cells = read_seed_file(st.config, pm, file, seed_velocity_);
        const auto problems = placement_problems(cells, pm, tiles, host_model_);
        if (!problems.empty())
          throw InputError(str(st.config.where("rbc.seed_file"), ": rbc.seed_file: ", file, ": ", problems.size(),
                               " problem(s) with its ", cells.size(), " cells:\n  ", join(problems, "\n  ")));
      } else {
        cells = place_randomly(st, pm, tiles, cell_volume);
      }
      log::info(str("rbc: ", cells.size(), " cells, haematocrit ",
                    fmt_g(double(cells.size()) * cell_volume / double(std::max<std::uint32_t>(pm.num_nodes, 1)), 4),
                    " (cell volume ", fmt_g(cell_volume, 4), " lattice units, ",
                    fmt_g(cell_volume * std::pow(st.mesh.dx, 3) * 1e18, 4), " um^3)"));
    }
    broadcast_seed(*comm_, cells, start_size_, seed_velocity_);
    cell_volume_ = cell_volume;
    return cells;
  }

  std::vector<CellPlacement> place_randomly(SetupStage& st, const mesh::SparseMesh& pm, const mesh::TileMaps& tiles,
                                            double cell_volume) {
    std::vector<CellPlacement> cells;
    // Random sequential addition stalls near a quarter of the volume for these shapes
    // (and less in thin tubes, whose walls keep cells a spacing away): where it cannot
    // place every cell at full size, the cells are placed smaller, by steps of 10%
    // down to half size, and grow to full size in the flow over rbc.growth_steps.
    const double haematocrit = st.config.real("rbc.haematocrit");
    const auto wanted = static_cast<std::size_t>(std::llround(haematocrit * double(pm.num_nodes) / cell_volume));
    const auto per_cell = std::uint64_t(st.config.integer("rbc.tries_per_cell"));
    const std::uint64_t tries = per_cell * std::max<std::size_t>(wanted, 1);
    const auto seed = std::uint64_t(st.config.integer("rbc.seed"));
    // No cell where it would leave at once: none in an iolet's sink.
    const PlacementTest not_leaving = [this](const CellPlacement& c) {
      return iolets_.empty() || iolets_.sink_of(c.position) < 0;
    };
    // The sizes are tried in waves of as many as there are threads (OMP_NUM_THREADS), each
    // from the same seed, and the largest that places every cell is kept: the answer of
    // trying them one after the other, sooner (each failing size runs until
    // tries_per_cell draws in a row fail, which near saturation takes a while).
    // With rbc.placement = "tiles" each size is placed by tile colours, the threads sharing
    // the tiles (place_by_tiles), so the sizes go one at a time.
    constexpr int sizes = 6;  // 1.0, 0.9, ..., 0.5
    const bool by_tiles = st.config.string("rbc.placement") == "tiles";
    const int width = by_tiles ? 1 : std::clamp(omp_get_max_threads(), 1, sizes);
    // Open MPI binds each of 1-2 ranks to one core unless told otherwise (--bind-to core),
    // so the placement, minutes for millions of cells, would run on one thread: say so.
    if (const unsigned cores = std::thread::hardware_concurrency(); omp_get_max_threads() == 1 && cores > 1 &&
                                                                   wanted >= 100000)
      log::warn(str("rbc: placing ", wanted, " cells on 1 thread of this host's ", cores, " (OMP_NUM_THREADS, or the "
                    "process bound to one core: Open MPI binds 1-2 ranks to a core each unless launched with "
                    "--bind-to none or --map-by ...:PE=<cores per rank>; docs/cluster.md)"));
    log::info(str("rbc: placing ", wanted, " cells at random (random sequential addition",
                  by_tiles ? str(" by tile colours, ", omp_get_max_threads(), " thread(s))")
                           : str(", ", width == 1 ? std::string("one size") : str(width, " sizes"), " at a time)")));
    std::size_t best = 0;
    bool placed_all = false;
    for (int first = 0; first < sizes && !placed_all; first += width) {
      const int n = std::min(width, sizes - first);
      std::vector<std::vector<CellPlacement>> tried(static_cast<std::size_t>(n));
      std::vector<std::exception_ptr> failure(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(dynamic, 1) num_threads(n) if (n > 1)  // one size: no region, so place_by_tiles gets the threads
      for (int k = 0; k < n; ++k) {
        try {
          const CellModel<double> model = host_model_.grown_to(1.0 - 0.1 * (first + k));
          tried[std::size_t(k)] = by_tiles ? place_by_tiles(pm, tiles, model, wanted, seed, tries, per_cell, not_leaving)
                                           : place_at_random(pm, tiles, model, wanted, seed, tries, per_cell, not_leaving);
        } catch (...) {
          failure[std::size_t(k)] = std::current_exception();
        }
      }
      for (int k = 0; k < n; ++k) {
        if (failure[std::size_t(k)]) std::rethrow_exception(failure[std::size_t(k)]);
        const int shrink = first + k;
        std::vector<CellPlacement>& c = tried[std::size_t(k)];
        best = std::max(best, c.size());
        if (shrink == 0 && c.empty() && wanted > 0)
          st.config.fail("rbc.haematocrit",
                         str("= ", fmt_g(haematocrit, 3), ": not one cell (", fmt_g(case_.diameter, 3), " m across, ",
                             fmt_g(case_.thickness, 3), " m thick, kept rbc.wall_range from the wall sites) fits in the "
                             "fluid in ", per_cell, " random tries: the vessel is too narrow for rigid cells"));
        start_size_ = 1.0 - 0.1 * shrink;
        cells = std::move(c);
        if (cells.size() == wanted) {
          placed_all = true;
          break;
        }
      }
    }
    if (cells.size() < wanted)
      st.config.fail("rbc.haematocrit",
                     str("= ", fmt_g(haematocrit, 3), " asks for ", wanted, " cells, but at most ", best,
                         " fit without overlap, even at half their size (", per_cell, " random tries failing in a row "
                         "end a size); lower it, raise rbc.tries_per_cell, or give the cells in rbc.seed_file"));
    // The tile-coloured placement rests on its colouring (no two tiles of a colour near):
    // checked, at the size the cells were placed at, as a seed file is.
    if (by_tiles)
      if (const auto problems = placement_problems(cells, pm, tiles, host_model_.grown_to(start_size_)); !problems.empty())
        throw std::logic_error(str("rbc: the tile-coloured placement left ", problems.size(), " problem(s):\n  ",
                                   join(problems, "\n  ")));
    if (start_size_ < 1.0)
      log::info(str("rbc: the cells fit only at ", fmt_g(start_size_, 2), " of their size; they grow to full size over ",
                    "the first ", growth_steps_, " steps (rbc.growth_steps)"));
    if (start_size_ < 1.0 && growth_steps_ == 0) start_size_ = 1.0;
    return cells;
  }

  /// The rank owning the tile of a point's voxel (wrapped along periodic axes), -1 outside
  /// the box or where no rank owns it: the cell's owner (docs/rbc_ranks.md 4.1).
  int owner_of_point(double x, double y, double z) const {
    std::int64_t v[3];
    if (!mesh::TileView::voxel_of_point(x, y, z, v)) return -1;
    for (int a = 0; a < 3; ++a)
      if (!view_.wrap_voxel(v[a], a)) return -1;
    return voxel_owner_(int(v[0]), int(v[1]), int(v[2]));
  }

  /// The cells this rank owns into the table; a cell's id is its place in `cells`.
  void upload(const std::vector<CellPlacement>& cells, SetupStage& st) {
    std::vector<std::uint32_t> mine;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const auto& x = cells[c].position;
      if (owner_of_point(x[0], x[1], x[2]) == comm_->rank()) mine.push_back(std::uint32_t(c));
    }
    if (const std::uint64_t held = comm_->sum(std::uint64_t(mine.size())); held != cells.size())
      throw std::logic_error(str("rbc: the ranks took ", held, " of the ", cells.size(), " cells placed"));
    ParticleTable& t = *table_;
    t.resize(mine.size());
    next_id_ = double(cells.size());
    const std::size_t n = mine.size(), cap = t.capacity();
    std::vector<Real> pos(3 * cap, 0), ori(4 * cap, 0), vel(3 * cap, 0);
    std::vector<std::uint32_t> id(cap, 0);
    const auto u0 = st.config.vec3("initial.velocity");
    for (std::size_t r = 0; r < n; ++r) {
      const std::size_t c = mine[r];
      for (int a = 0; a < 3; ++a) {
        pos[a * cap + r] = Real(cells[c].position[a]);
        vel[a * cap + r] = Real(st.units.velocity_to_lattice(seed_velocity_.empty() ? u0[a] : seed_velocity_[3 * c + a]));
      }
      for (int a = 0; a < 4; ++a) ori[a * cap + r] = Real(cells[c].orientation[a]);
      id[r] = std::uint32_t(c);
    }
    t.get<Real>("position").upload(pos);
    t.get<Real>("orientation").upload(ori);
    t.get<Real>("velocity").upload(vel);
    t.get<std::uint32_t>("id").upload(id);
  }

  CellColumns<Real> columns() {
    ParticleTable& t = *table_;
    return {t.get<Real>("position").data(), t.get<Real>("orientation").data(), t.get<Real>("velocity").data(),
            t.get<Real>("angular_momentum").data(), t.get<Real>("angular_velocity").data(), t.get<Real>("force").data(),
            t.get<Real>("torque").data(), t.get<Real>("drag").data(), std::uint32_t(t.capacity())};
  }
  std::uint32_t count() const { return std::uint32_t(table_->size()); }

  /// The iolets' sinks and feed slabs (iolets.hpp), and what crosses them.
  void setup_iolets(SetupStage& st) {
    const auto inflow = st.config.strings("rbc.inflow");
    const double length = st.config.real("rbc.inflow_length") > 0 ? st.config.real("rbc.inflow_length") / units_.dx
                                                                     : 2 * case_.diameter / units_.dx;
    try {
      iolets_ = CellIolets(st.mesh, st.comm, double(host_model_.wall.reach()), inflow, length);
    } catch (const InputError& e) {
      st.config.fail("rbc.inflow", e.what());
    }
    inflow_every_ = st.config.integer("rbc.inflow_every");
    inflow_haematocrit_ = st.config.real("rbc.inflow_haematocrit") >= 0 ? st.config.real("rbc.inflow_haematocrit")
                                                                        : st.config.real("rbc.haematocrit");
    seed_ = std::uint64_t(st.config.integer("rbc.seed"));
    tries_per_cell_ = std::uint64_t(st.config.integer("rbc.tries_per_cell"));
    entered_.assign(iolets_.faces().size(), 0.0);
    left_.assign(iolets_.faces().size(), 0.0);
    leaving_.assign(iolets_.faces().size(), 0.0);
    if (iolets_.empty()) return;
    sink_ = exec::to_device(space_, iolets_.sink_map(tiles_));
    for (const IoletFace& f : iolets_.faces())
      log::info(str("rbc: iolet '", f.name, "': cells leave within ", fmt_g(host_model_.wall.reach(), 3),
                    " spacings of its face (", f.face_voxels, " voxels, radius ", fmt_g(f.radius, 4), " spacings)"));
  }

  /// Rows [first, n) of the sorted keys are cells leaving: counted by iolet (the table is
  /// not permuted yet: sorted row p is table row order[p]).
  void count_leaving(std::uint32_t first) {
    const std::uint32_t n = count();
    const auto order = table_->get<std::uint32_t>("order").component_to_host(0, n);
    const auto& pos = table_->get<Real>("position");
    const auto x = pos.component_to_host(0, n), y = pos.component_to_host(1, n), z = pos.component_to_host(2, n);
    for (std::uint32_t p = first; p < n; ++p) {
      const std::uint32_t r = order[p];
      const int f = iolets_.sink_of({double(x[r]), double(y[r]), double(z[r])});
      if (f >= 0) leaving_[std::size_t(f)] += 1;
    }
  }

  /// Tops each feed slab up to the inflow haematocrit with new cells at random (no overlap,
  /// clear of walls), moving with the plasma at their centre; ids continue from the
  /// largest given. Rank 0 places them over the placement mesh among the cells near the
  /// slabs (gathered from every rank, by id), so the new cells are the same on any rank
  /// count; each rank keeps those in its tiles. Reproducible: the random draws depend on
  /// rbc.seed and the step only.
  void inflow(StepContext& ctx, FieldRegistry& fields) {
    if (ctx.step % inflow_every_ != 0) return;
    const std::size_t n = count();
    const auto& pos = table_->get<Real>("position");
    const auto& ori = table_->get<Real>("orientation");
    std::vector<std::vector<Real>> p(3), q(4);
    for (int a = 0; a < 3; ++a) p[a] = pos.component_to_host(a, n);
    for (int a = 0; a < 4; ++a) q[a] = ori.component_to_host(a, n);
    const auto ids = table_->get<std::uint32_t>("id").component_to_host(0, n);
    // Cells that could touch a new cell: within two tiles of a slab (a cell's reach is one).
    constexpr std::size_t per = 8;  // id, position, orientation
    std::vector<double> near;
    for (std::size_t c = 0; c < n; ++c) {
      const std::array<double, 3> x{double(p[0][c]), double(p[1][c]), double(p[2][c])};
      if (std::none_of(iolets_.feeds().begin(), iolets_.feeds().end(),
                       [&](const auto& feed) { return iolets_.in_feed(feed, x, 2.0 * tiles_.c); }))
        continue;
      near.push_back(double(ids[c]));
      near.insert(near.end(), x.begin(), x.end());
      for (int a = 0; a < 4; ++a) near.push_back(double(q[a][c]));
    }
    const auto all = comm_->gather<double>(near, 0);
    std::vector<double> placed;  // per new cell: iolet, position, orientation
    if (comm_->rank() == 0) {
      std::vector<std::size_t> by_id(all.size() / per);
      for (std::size_t c = 0; c < by_id.size(); ++c) by_id[c] = c;
      std::sort(by_id.begin(), by_id.end(), [&](std::size_t a, std::size_t b) { return all[a * per] < all[b * per]; });
      std::vector<CellPlacement> existing(by_id.size());
      for (std::size_t c = 0; c < by_id.size(); ++c) {
        const double* v = all.data() + by_id[c] * per;
        existing[c].position = {v[1], v[2], v[3]};
        existing[c].orientation = {v[4], v[5], v[6], v[7]};
      }
      const double size = start_size_ < 1.0 ? start_size_ + (1.0 - start_size_) *
                                                                std::min(1.0, double(ctx.step) / double(growth_steps_))
                                            : 1.0;
      const CellModel<double> now = host_model_.grown_to(size);
      for (std::size_t f = 0; f < iolets_.feeds().size(); ++f) {
        const auto& feed = iolets_.feeds()[f];
        std::size_t inside = 0;
        for (const auto& c : existing) inside += iolets_.in_feed(feed, c.position);
        const auto target = std::size_t(std::llround(inflow_haematocrit_ * double(feed.nodes.size()) / cell_volume_));
        if (inside >= target) continue;
        std::mt19937_64 rng(seed_ ^ (0x9e3779b97f4a7c15ull * std::uint64_t(ctx.step + 1)) ^ (std::uint64_t(f) << 56));
        const auto fresh = place_in_feed(placement_mesh_, placement_tiles_, now, iolets_, feed, existing, target - inside,
                                         rng, tries_per_cell_);
        for (const auto& c : fresh) {
          existing.push_back(c);
          placed.push_back(double(feed.iolet));
          placed.insert(placed.end(), c.position.begin(), c.position.end());
          placed.insert(placed.end(), c.orientation.begin(), c.orientation.end());
        }
      }
    }
    if (many_ranks()) {
      std::vector<unsigned char> bytes(placed.size() * sizeof(double));
      if (!bytes.empty()) std::memcpy(bytes.data(), placed.data(), bytes.size());
      comm_->broadcast(bytes, 0);
      placed.resize(bytes.size() / sizeof(double));
      if (!bytes.empty()) std::memcpy(placed.data(), bytes.data(), bytes.size());
    }
    // Ids in the order placed, on every rank; each rank keeps the cells in its tiles.
    std::vector<CellPlacement> mine;
    std::vector<std::uint32_t> mine_ids;
    for (std::size_t c = 0; c < placed.size() / per; ++c) {
      const double* v = placed.data() + c * per;
      entered_[std::size_t(v[0])] += 1;
      const std::uint32_t id = std::uint32_t(next_id_);
      next_id_ += 1;
      if (owner_of_point(v[1], v[2], v[3]) != comm_->rank()) continue;
      CellPlacement cell;
      cell.position = {v[1], v[2], v[3]};
      cell.orientation = {v[4], v[5], v[6], v[7]};
      mine.push_back(cell);
      mine_ids.push_back(id);
    }
    if (!mine.empty()) append(mine, mine_ids, fields);
  }

  /// New cells after the last: position, orientation, the plasma's velocity at their
  /// centre (this step's streamed velocity, which lb_bgk computes before cell_inflow; the
  /// `velocity` field is computed only at output and check steps), no spin, their ids.
  void append(const std::vector<CellPlacement>& cells, const std::vector<std::uint32_t>& ids, FieldRegistry& fields) {
    const std::size_t first = count(), k = cells.size();
    table_->resize(first + k);
    const auto& u = fields.get<Real>("streamed_velocity");
    std::vector<Real> pos(3 * k), ori(4 * k), vel(3 * k), spin(3 * k, Real(0));
    std::vector<std::uint32_t> id(k);
    for (std::size_t c = 0; c < k; ++c) {
      const auto node = mesh_->find(int(std::floor(cells[c].position[0] + 0.5)), int(std::floor(cells[c].position[1] + 0.5)),
                                    int(std::floor(cells[c].position[2] + 0.5)));
      for (int a = 0; a < 3; ++a) {
        pos[a * k + c] = Real(cells[c].position[a]);
        Real v = 0;
        if (node) {
          const Real* at = u.data() + std::size_t(a) * u.stride() + *node;
          if (space_ == exec::Space::host) v = *at;
          else exec::cuda::copy_to_host(&v, at, sizeof v);
        }
        vel[a * k + c] = v;
      }
      for (int a = 0; a < 4; ++a) ori[a * k + c] = Real(cells[c].orientation[a]);
      id[c] = ids[c];
    }
    table_->get<Real>("position").set_entries(first, k, pos);
    table_->get<Real>("orientation").set_entries(first, k, ori);
    table_->get<Real>("velocity").set_entries(first, k, vel);
    table_->get<Real>("angular_momentum").set_entries(first, k, spin);
    table_->get<std::uint32_t>("id").set_entries(first, k, id);
  }

  template <class T>
  std::vector<T> to_host(const T* from, std::size_t n) const {
    std::vector<T> v(n);
    if (n == 0) return v;
    if (space_ == exec::Space::host) std::memcpy(v.data(), from, n * sizeof(T));
    else exec::cuda::copy_to_host(v.data(), from, n * sizeof(T));
    return v;
  }
  template <class T>
  void to_device(T* at, const std::vector<T>& v) const {
    if (v.empty()) return;
    if (space_ == exec::Space::host) std::memcpy(at, v.data(), v.size() * sizeof(T));
    else exec::cuda::copy_to_device(at, v.data(), v.size() * sizeof(T));
  }

  /// Rows (host) in the run's memory, in a buffer kept from step to step.
  const std::uint32_t* device_rows(const std::vector<std::uint32_t>& rows) {
    if (row_list_.size() < rows.size()) row_list_ = exec::DeviceArray<std::uint32_t>(space_, rows.size() + rows.size() / 2);
    row_list_.upload(rows);
    return row_list_.data();
  }

  /// Where the sorted rows end: staying (mapped tiles, by tile, then id), migrating (an
  /// external tile another rank owns), escaped (no tile with fluid), then leaving (a sink).
  struct SortedRows {
    std::uint32_t staying = 0, migrating_end = 0, escaped_end = 0;
  };

  /// AssignTiles, the sort by key, NGRID and its scan, each tile's rows by id: `order`
  /// then holds the rows in the new order and tile_first_ each tile's first place in it.
  /// Reports escaped cells and counts those leaving through a sink; permutes nothing.
  SortedRows sort_rows(StepContext& ctx) {
    const std::uint32_t n = count(), tiles = tiles_.num_tiles(), mapped = tiles_.num_mapped();
    std::uint32_t* key = table_->get<std::uint32_t>("tile_key").data();
    std::uint32_t* order = table_->get<std::uint32_t>("order").data();
    exec::for_each(space_, {0, n},
                   AssignTiles<Real>{columns(), view_, tile_owner_.data(), sink_.empty() ? nullptr : sink_.data(), key,
                                     order, tiles},
                   "rbc::assign_tiles");
    exec::sort_by_key(*workspace_, key, order, n, key_bits_);
    // NGRID (cells per tile) and its exclusive scan: the first place of each tile, then
    // where the centres in no tile start, then where the cells leaving start.
    exec::histogram(*workspace_, key, n, tile_count_.data(), tiles + 2);
    exec::exclusive_scan_queued(*workspace_, tile_count_.data(), tile_first_.data(), tiles + 2);
    exec::for_each(space_, {0, mapped},
                   OrderTilesById{tile_first_.data(), table_->get<std::uint32_t>("id").data(), order},
                   "rbc::order_tiles_by_id");
    SortedRows r;
    r.staying = to_host(tile_first_.data() + mapped, 1)[0];
    const auto ends = to_host(tile_first_.data() + tiles, 2);
    r.migrating_end = ends[0];
    r.escaped_end = ends[1];
    if (r.escaped_end > r.migrating_end) report_escaped(ctx, r);
    if (n > r.escaped_end) count_leaving(r.escaped_end);
    return r;
  }

  void sort_into_tiles(StepContext& ctx) {
    // Cells placed smaller than they are: this step's size.
    if (start_size_ < 1.0) {
      const double done = std::min(1.0, double(ctx.step) / double(growth_steps_));
      model_ = full_model_.grown_to(Real(start_size_ + (1.0 - start_size_) * done));
      if (done >= 1.0) start_size_ = 1.0;
    }
    if (to_host(too_fast_.data(), 1)[0]) report_too_fast(ctx);
    if (keep_owned_) keep_owned_rows();
    const std::uint32_t* order = table_->get<std::uint32_t>("order").data();
    SortedRows r = sort_rows(ctx);
    if (many_ranks()) {
      // Migration (paper sec. 3.5, after the update of the step before): the rows bound
      // for other ranks are contiguous after the sort; they go, the arrivals come.
      auto sends = pack_migrants(r);
      if (ctx.step == misroute_at_ && comm_->rank() == 0 && !peers_.empty() && r.staying > 0) {
        // HEMO_TEST_RBC_MISROUTE=<step>: how tests show that a cell sent to the wrong rank
        // stops the run with a clear message; rank 0 sends a copy of its first cell.
        const auto first = exec::to_device(space_, std::vector<std::uint32_t>{to_host(order, 1)[0]});
        const auto bytes = table_->pack(first.data(), 1);
        sends[0].insert(sends[0].end(), bytes.begin(), bytes.end());
      }
      const auto arrivals = comm::exchange_variable(*comm_, peers_, sends, tag_migrants);
      check_arrivals(arrivals);
      if (std::any_of(arrivals.begin(), arrivals.end(), [](const auto& bytes) { return !bytes.empty(); })) {
        // The stayers, then the arrivals after them, sorted again.
        table_->permute(order, r.staying);
        for (const auto& bytes : arrivals) table_->append(bytes);
        r = sort_rows(ctx);
        if (r.migrating_end > r.staying)  // check_arrivals let only cells of this rank's tiles in
          throw std::logic_error("rbc: a cell bound for another rank after the arrivals were sorted in");
      }
    }
    // The cells' rows into (tile, id) order, the leaving ones dropped: a tile's cells are
    // then contiguous, and neighbouring threads read neighbouring memory. Only the
    // restart-state columns carry over; the step rewrites the rest before reading them.
    table_->permute(order, r.staying);
    owned_ = r.staying;
    if (!iolets_.empty()) {  // the cells that left by a sink this step, on every rank
      comm_->sum(std::span<double>(leaving_));
      for (std::size_t f = 0; f < left_.size(); ++f) left_[f] += leaving_[f];
      std::fill(leaving_.begin(), leaving_.end(), 0.0);
    }
    // Rows [frontier_first_, owned_) are in frontier tiles (none on one rank); each
    // frontier tile's first row, for the ghosts sent to each peer (gather_frontier).
    if (many_ranks()) {
      frontier_tile_first_ = to_host(tile_first_.data() + tiles_.num_internal, std::size_t(tiles_.num_frontier) + 1);
      frontier_first_ = frontier_tile_first_[0];
    } else {
      frontier_first_ = owned_;
    }
  }

  /// The migrants of sorted rows [staying, migrating_end), packed per peer (the rows of
  /// a peer in sorted order, so by tile, then id).
  std::vector<std::vector<unsigned char>> pack_migrants(const SortedRows& r) {
    std::vector<std::vector<unsigned char>> sends(peers_.size());
    const std::uint32_t m = r.migrating_end - r.staying;
    if (m == 0) return sends;
    const auto key = to_host(table_->get<std::uint32_t>("tile_key").data() + r.staying, m);
    const auto row = to_host(table_->get<std::uint32_t>("order").data() + r.staying, m);
    std::vector<std::vector<std::uint32_t>> rows(peers_.size());
    for (std::uint32_t i = 0; i < m; ++i) {
      const int to = tiles_.tile_owner[key[i]];
      const auto p = std::find(peers_.begin(), peers_.end(), to);
      if (p == peers_.end())
        throw std::logic_error(str("rbc: rank ", comm_->rank(), " has a cell bound for rank ", to, ", not a peer"));
      rows[std::size_t(p - peers_.begin())].push_back(row[i]);
    }
    for (std::size_t p = 0; p < peers_.size(); ++p)
      if (!rows[p].empty()) sends[p] = table_->pack(device_rows(rows[p]), rows[p].size());
    migrated_ += double(m);
    return sends;
  }

  /// Positions and ids of packed cells (pack()'s buffer), on the host.
  struct PackedCells {
    std::vector<Real> x[3];
    std::vector<std::uint32_t> id;
  };
  PackedCells unpack_positions(const std::vector<unsigned char>& bytes) const {
    PackedCells c;
    const std::size_t k = table_->packed_count(bytes);
    for (int a = 0; a < 3; ++a) {
      const auto b = table_->packed_component(bytes, "position", a);
      c.x[a].resize(k);
      if (k) std::memcpy(c.x[a].data(), b.data(), b.size());
    }
    c.id.resize(k);
    if (k) std::memcpy(c.id.data(), table_->packed_component(bytes, "id", 0).data(), k * sizeof(std::uint32_t));
    return c;
  }

  /// Every cell that migrated here must lie in a tile this rank holds: a cell sent to
  /// the wrong rank is an error naming both ranks, never a silent drop.
  void check_arrivals(const std::vector<std::vector<unsigned char>>& arrivals) const {
    const mesh::TileView host = tiles_.view();
    for (std::size_t p = 0; p < arrivals.size(); ++p) {
      const PackedCells c = unpack_positions(arrivals[p]);
      for (std::size_t i = 0; i < c.id.size(); ++i) {
        const std::int32_t t = host.tile_of_point(c.x[0][i], c.x[1][i], c.x[2][i]);
        if (t >= 0 && std::uint32_t(t) < tiles_.num_mapped()) continue;
        throw std::runtime_error(str("rbc: rank ", comm_->rank(), " received cell id ", c.id[i], " at ",
                                     describe_point(*mesh_, double(c.x[0][i]), double(c.x[1][i]), double(c.x[2][i])),
                                     " from rank ", peers_[p], ", but its tile belongs to rank ",
                                     owner_of_point(double(c.x[0][i]), double(c.x[1][i]), double(c.x[2][i]))));
      }
    }
  }

  /// Ghosts (paper sec. 3.3), around the internal cells' forces: each peer gets the cells
  /// of this rank's frontier tiles that are its external tiles (peer_frontier_tiles_;
  /// rows [frontier_first_, owned_) are by tile after the sort), with the far velocity
  /// (gather_frontier, post_frontier); from each peer, the cells in this rank's external
  /// tiles that the peer owns are appended after the owned rows, by (tile, id), and
  /// tile_first_ gets the external tiles' ranges (wait_frontier, append_ghosts, sort_ghosts,
  /// order_ghosts).
  void gather_frontier(const Field<Real>& velocity, std::int64_t step) {
    const std::vector<std::uint32_t>& first = frontier_tile_first_;  // from this step's sort
    sent_rows_.clear();
    sent_first_.assign(1, 0);
    first_sent_row_ = frontier_first_;
    for (const auto& list : peer_frontier_tiles_) {
      // HEMO_TEST_RBC_MISROUTE_GHOST=<step>: how tests show that a ghost no neighbour
      // should get stops the run with a clear message; rank 0 adds its first internal
      // cell to the first peer's ghosts.
      if (step == ghost_misroute_at_ && comm_->rank() == 0 && sent_first_.size() == 1 && frontier_first_ > 0) {
        sent_rows_.push_back(0);
        first_sent_row_ = 0;
      }
      for (const std::uint32_t t : list)
        for (std::uint32_t r = first[t - tiles_.num_internal]; r < first[t - tiles_.num_internal + 1]; ++r)
          sent_rows_.push_back(r);
      sent_first_.push_back(sent_rows_.size());
    }
    table_->pack_groups(device_rows(sent_rows_), sent_first_, frontier_out_, copies_.get());
    // The far velocity halo (ranks.hpp): this rank's streamed velocity at the nodes its
    // peers' cells reach, theirs at the points of its external tiles.
    const std::size_t out = far_.send_nodes.size(), in = far_.num_slots();
    if (out)
      exec::for_each(space_, {0, std::uint32_t(out)},
                     GatherVelocity<Real>{velocity.data(), velocity.stride(), far_send_nodes_.data(), far_send_.data()},
                     "rbc::gather_far_velocity");
    far_out_.download_on(copies_.get(), far_send_.data(), 3 * out);
    far_in_.resize(3 * in);
  }

  void post_frontier() {
    if (copies_) copies_->wait();  // the ghosts' and the far velocity's downloads (gather_frontier)
    std::vector<comm::Message> sends, receives;
    for (std::size_t p = 0; p < peers_.size(); ++p) {
      const std::size_t s0 = far_.send_first[p], s1 = far_.send_first[p + 1], r0 = far_.receive_first[p],
                        r1 = far_.receive_first[p + 1];
      if (s1 > s0)
        sends.push_back({peers_[p], tag_far, {far_out_.bytes(3 * s0), 3 * (s1 - s0) * sizeof(Real)}});
      if (r1 > r0) receives.push_back({peers_[p], tag_far, {far_in_.bytes(3 * r0), 3 * (r1 - r0) * sizeof(Real)}});
    }
    std::vector<std::span<const unsigned char>> ghosts(peers_.size());
    for (std::size_t p = 0; p < peers_.size(); ++p) ghosts[p] = table_->group_slice(frontier_out_, sent_first_, p);
    frontier_in_first_ = comm::start_exchange_variable(
        *comm_, peers_, ghosts, tag_ghosts,
        [this](std::size_t bytes) {
          frontier_in_.resize(bytes);
          return frontier_in_.bytes();
        },
        sends, receives);
  }

  void wait_frontier() {
    comm_->finish_exchange();
    far_in_.upload(far_velocity_.data());
  }

  // The ghosts' insertion: every peer's cells appended after the owned rows as they came
  // (append_ghosts); then, on the device, the paper's insertion: the tile of each
  // (membership through the tile maps), those in this rank's external tiles kept and
  // sorted by (tile, id), the rest dropped (sort_ghosts); tile_first_ gets the external
  // tiles' ranges (order_ghosts).
  void append_ghosts() {
    // Every peer's ghosts in one upload, then their entries set on the device (no copy
    // that waits for kernels queued behind a side stream's); where each peer's start,
    // uploaded first.
    const std::size_t per = table_->packed_bytes(), arrived = frontier_in_first_.back() / per;
    std::vector<std::size_t> group_first(frontier_in_first_);
    for (std::size_t& g : group_first) g /= per;
    peer_first_host_.clear();
    for (const std::size_t g : group_first) peer_first_host_.push_back(std::uint32_t(owned_ + g));
    peer_frontier_.resize(peers_.size());
    for (std::size_t p = 0; p < peers_.size(); ++p) peer_frontier_[p] = peer_first_host_[p + 1] - peer_first_host_[p];
    peer_first_.upload(peer_first_host_);
    // The table grows by reallocation (every column copied): not while the side stream
    // still writes the internal rows.
    if (side_busy_ && count() + arrived > table_->capacity()) side_->wait();
    table_->append_groups({frontier_in_.bytes(), frontier_in_first_.back()}, group_first);
  }

  void sort_ghosts() {
    const std::uint32_t tiles = tiles_.num_tiles(), arrived = count() - owned_;
    std::uint32_t* key = table_->get<std::uint32_t>("tile_key").data();
    std::uint32_t* order = table_->get<std::uint32_t>("order").data();
    exec::for_each(space_, {owned_, count()},
                   AssignGhostTiles<Real>{table_->get<Real>("position").data(), std::uint32_t(table_->capacity()), view_,
                                          tile_owner_.data(), peer_first_.data(), peer_rank_.data(),
                                          std::uint32_t(peers_.size()), key, order, tiles},
                   "rbc::assign_ghost_tiles");
    exec::sort_by_key(*workspace_, key + owned_, order + owned_, arrived, key_bits_);
    exec::histogram(*workspace_, key + owned_, arrived, ghost_count_.data(), tiles + 2);
    exec::exclusive_scan_queued(*workspace_, ghost_count_.data(), ghost_first_.data(), tiles + 2);
    // Every ghost a peer sends lies in one of this rank's external tiles that the peer
    // owns (it sends those tiles' cells), so all are kept, and the host goes on without
    // waiting for the count: it is read with the records' download (check_ghosts), where
    // a fault stops the run before any drag is spread.
    ghost_ends_.download_queued(ghost_first_.data() + tiles, 2);  // kept, then the faults' end
  }

  /// Once sort_ghosts' count has landed (post_ghost_records waits for a copy queued after
  /// it): the ghosts sort_ghosts counted as kept must be all that arrived (a ghost in a
  /// tile of this rank or a third rank's, or in none near this rank, means the ranks
  /// disagree on who owns what: never dropped silently).
  void check_ghosts() {
    // Sorted by key: kept [0, kept), faults [kept, faults_end), in no tile near this rank
    // [faults_end, arrived).
    const std::uint32_t kept = ghost_ends_.data()[0], faults_end = ghost_ends_.data()[1];
    if (faults_end > kept) report_misplaced_ghost(kept, true);
    if (faults_end < count() - owned_) report_misplaced_ghost(faults_end, false);
  }

  void order_ghosts() {
    const std::uint32_t mapped = tiles_.num_mapped(), tiles = tiles_.num_tiles();
    std::uint32_t* order = table_->get<std::uint32_t>("order").data();
    exec::for_each(space_, {mapped, tiles},
                   OrderTilesById{ghost_first_.data(), table_->get<std::uint32_t>("id").data(), order + owned_},
                   "rbc::order_ghost_tiles_by_id");
    exec::for_each(space_, {mapped, tiles + 1}, ShiftedCopy{ghost_first_.data(), tile_first_.data(), owned_},
                   "rbc::ghost_tile_first");
    table_->permute(order + owned_, count() - owned_, owned_);  // the ghost rows only, all kept (check_ghosts)
    grow_records(count());
  }

  /// A ghost whose tile is this rank's or a third rank's (near), or in no tile next to
  /// this rank's: the ranks disagree on who owns what (a cell sent to the wrong rank,
  /// never dropped silently).
  /// Called after order_ghosts: the ghost sorted to place `sorted` is now row owned_ +
  /// sorted; `order` still says which row it was appended as (so from which peer).
  [[noreturn]] void report_misplaced_ghost(std::uint32_t sorted, bool near) {
    const std::vector<std::uint32_t>& peer_first = peer_first_host_;
    const std::uint32_t appended = to_host(table_->get<std::uint32_t>("order").data() + owned_ + sorted, 1)[0],
                        row = owned_ + sorted;
    const auto& pos = table_->get<Real>("position");
    const std::size_t n = count();
    const auto x = pos.component_to_host(0, n), y = pos.component_to_host(1, n), z = pos.component_to_host(2, n);
    const auto ids = table_->get<std::uint32_t>("id").component_to_host(0, n);
    std::size_t p = 0;
    while (p + 1 < peers_.size() && appended >= peer_first[p + 1]) ++p;
    const int owner = owner_of_point(double(x[row]), double(y[row]), double(z[row]));
    throw std::runtime_error(str("rbc: rank ", comm_->rank(), " received cell id ", ids[row], " at ",
                                 describe_point(*mesh_, double(x[row]), double(y[row]), double(z[row])), " from rank ",
                                 peers_[p], " as a neighbour, but its tile belongs to rank ", owner,
                                 near ? "" : " and is not next to this rank's tiles"));
  }

  /// The owned cells whose tile another rank holds after a restart on many ranks (the
  /// checkpoint gives every rank every cell): dropped.
  void keep_owned_rows() {
    keep_owned_ = false;
    const std::size_t n = count();
    const auto& pos = table_->get<Real>("position");
    const auto x = pos.component_to_host(0, n), y = pos.component_to_host(1, n), z = pos.component_to_host(2, n);
    std::vector<std::uint32_t> mine;
    for (std::size_t c = 0; c < n; ++c)
      if (owner_of_point(double(x[c]), double(y[c]), double(z[c])) == comm_->rank()) mine.push_back(std::uint32_t(c));
    if (const std::uint64_t held = comm_->sum(std::uint64_t(mine.size())); held != n)
      throw std::runtime_error(str("rbc: after the restart the ranks own ", held, " of the checkpoint's ", n, " cells"));
    const auto on_device = exec::to_device(space_, mine);
    table_->permute(on_device.data(), mine.size());
  }

  [[noreturn]] void report_escaped(StepContext& ctx, const SortedRows& r) {
    // Before the permutation: row order[p] holds the cell with sorted key p.
    const std::uint32_t n = count(), first = to_host(table_->get<std::uint32_t>("order").data() + r.migrating_end, 1)[0];
    const auto& pos = table_->get<Real>("position");
    const auto x = pos.component_to_host(0, n), y = pos.component_to_host(1, n), z = pos.component_to_host(2, n);
    const auto ids = table_->get<std::uint32_t>("id").component_to_host(0, n);
    throw DivergenceError(str("rbc: ", r.escaped_end - r.migrating_end, " cell(s) left the fluid at step ", ctx.step,
                              "; the first, id ", ids[first], ", is at ",
                              describe_point(*mesh_, double(x[first]), double(y[first]), double(z[first])),
                              " (walls too soft for the flow: raise rbc.wall_energy, or lower the time step)"),
                          ctx.step, -1);
  }

  /// A cell moved a tile or more in the last step (CellDrift): the time step is too large
  /// for the flow, and the cell could have passed cells or ranks its tile does not see.
  [[noreturn]] void report_too_fast(StepContext& ctx) {
    const std::size_t n = count();
    const auto& pos = table_->get<Real>("position");
    const auto x = pos.component_to_host(0, n), y = pos.component_to_host(1, n), z = pos.component_to_host(2, n);
    const auto& vel = table_->get<Real>("velocity");
    const auto u = vel.component_to_host(0, n), v = vel.component_to_host(1, n), w = vel.component_to_host(2, n);
    const auto ids = table_->get<std::uint32_t>("id").component_to_host(0, n);
    for (std::size_t c = 0; c < n; ++c) {
      const double d = std::max({std::fabs(double(u[c])), std::fabs(double(v[c])), std::fabs(double(w[c]))});
      if (d < double(tiles_.c)) continue;
      throw DivergenceError(str("rbc: cell id ", ids[c], ", now at ", describe_point(*mesh_, double(x[c]), double(y[c]), double(z[c])),
                                ", moved ", fmt_g(d, 3), " lattice spacings along an axis in step ", ctx.step - 1,
                                ", more than a tile (", tiles_.c, "): the time step is too large for the flow"),
                            ctx.step, -1);
    }
    throw std::logic_error("rbc: a cell moved more than a tile, but none is found");
  }

  void forces(std::uint32_t first, std::uint32_t end) {
    exec::for_each(space_, {first, end},
                   CellForces<Real>{columns(), model_, view_, tile_first_.data(), table_->get<std::uint32_t>("tile_key").data(),
                                    near_wall_.data(), table_->get<Real>("energy").data()},
                   "rbc::cell_forces");
  }

  NodeCells node_cells() { return {node_count_.data(), node_cells_.data(), cells_per_node}; }

  /// On many ranks the rows sent as ghosts are kicked first and their spreading records
  /// downloaded on a copy stream while the other rows are kicked (post_ghost_records waits
  /// for that copy only). The node lists are sorted before they are read, so the order of
  /// the kicks does not change the answer.
  void kick(FieldRegistry& fields) {
    grow_records(count());
    const CellKick<Real> k = kicker(fields);
    const std::uint32_t sent = many_ranks() ? first_sent_row_ : owned_;
    if (sent < owned_) exec::for_each(space_, {sent, owned_}, k, "rbc::cell_kick_sent");
    if (many_ranks()) records_out_.download_on(copies_.get(), records_.data() + sent, owned_ - sent);
    if (sent > 0 && !side_) exec::for_each(space_, {0, sent}, k, "rbc::cell_kick");  // with a side stream: internal_cells
  }

  CellKick<Real> kicker(FieldRegistry& fields) {
    const auto& velocity = fields.get<Real>("streamed_velocity");
    return {columns(), model_, view_, velocity.data(), velocity.stride(), far_velocity_.data(), records_.data(), node_cells()};
  }

  /// The internal cells (rows [0, frontier_first_), whose forces read no ghost and whose
  /// supports reach no other rank): their forces, queued behind the frontier's packing so
  /// that they run through its messages. On CUDA also their kick, and both on a side
  /// stream: they then run beside the frontier's chain of small kernels on the compute
  /// stream (the ghosts' insertion, the frontier rows' forces and kick, the cover), which
  /// leave most of the GPU idle (docs/rbc_ranks.md, the device timeline of 2026-11-28);
  /// spread joins the side stream. The node lists are sorted before they are read and
  /// each row's values are its own, so the answer is the same bitwise.
  void internal_cells(FieldRegistry& fields) {
    if (!side_) {
      forces(0, frontier_first_);
      return;
    }
    // The records of every row this step may hold (the ghosts' as many as last step's and
    // a quarter more), so that order_ghosts rarely grows them under the side stream's kick
    // (grow_records waits for it then).
    grow_records(std::size_t(owned_) + ghost_rows_ + ghost_rows_ / 4 + 64);
    const auto side = on_side();
    forces(0, frontier_first_);
    if (first_sent_row_ > 0) exec::for_each(space_, {0, first_sent_row_}, kicker(fields), "rbc::cell_kick");
  }

  /// records_ for n rows: grown by half again when short; with the side stream's kick in
  /// flight, waited for and the owned rows' records kept.
  void grow_records(std::size_t n) {
    if (side_busy_ && records_.array.size() < n) side_->wait();
    records_.resize_at_least(space_, n, side_busy_ ? owned_ : 0);
  }

  /// Where the side stream is (CUDA on many ranks): it waits for the compute stream's work
  /// so far, and the kernels launched while the returned scope lives go to it; spread
  /// joins it. Elsewhere nothing: the kernels go where they always do.
  std::optional<exec::cuda::SideStream::Launches> on_side() {
    if (!side_) return std::nullopt;
    side_->after_compute();
    side_busy_ = true;
    return std::optional<exec::cuda::SideStream::Launches>(std::in_place, *side_);
  }

  /// The ghosts enter the lists of this rank's nodes their supports cover (GhostCover). On
  /// CUDA on the side stream, after the internal cells' kick there and the ghosts'
  /// insertion here: a few thousand cells, one thread each, a launch that leaves most of
  /// the GPU idle, now beside the frontier rows' forces and kick.
  void cover_ghosts() {
    if (count() > owned_) {
      const auto side = on_side();
      exec::for_each(space_, {owned_, count()},
                     GhostCover<Real>{table_->get<Real>("position").data(), table_->get<Real>("orientation").data(),
                                      std::uint32_t(table_->capacity()), model_.support, view_, node_cells()},
                     "rbc::ghost_cover");
    }
  }

  /// Ghost records (docs/rbc_ranks.md 4.3, round R): the spreading records of the cells
  /// each peer got as ghosts go to it, in the same order, and each ghost gets its owner's
  /// record, so that every rank spreads every cell's drag onto its own nodes.
  void post_ghost_records() {
    using Record = SpreadRecord<Real>;
    // The rows sent are frontier rows (a test's misrouted ghost: an internal row too).
    const std::uint32_t from = first_sent_row_;
    if (copies_) copies_->wait();  // the sent rows' records (kick), and sort_ghosts' count queued before them
    check_ghosts();
    records_send_.resize(sent_rows_.size());
    for (std::size_t i = 0; i < sent_rows_.size(); ++i) records_send_.data()[i] = records_out_.data()[sent_rows_[i] - from];
    // The peers' records in the order their cells were appended (append_ghosts).
    std::size_t arrived = 0;
    for (const std::uint32_t k : peer_frontier_) arrived += k;
    records_in_host_.resize(arrived);
    std::vector<comm::Message> sends, receives;
    for (std::size_t p = 0, at = 0; p < peers_.size(); at += peer_frontier_[p++]) {
      if (const std::size_t k = sent_first_[p + 1] - sent_first_[p])
        sends.push_back({peers_[p], tag_records, {records_send_.bytes(sent_first_[p]), k * sizeof(Record)}});
      if (peer_frontier_[p])
        receives.push_back({peers_[p], tag_records, {records_in_host_.bytes(at), peer_frontier_[p] * sizeof(Record)}});
    }
    comm_->start_exchange(sends, receives);
  }

  void wait_ghost_records() {
    using Record = SpreadRecord<Real>;
    comm_->finish_exchange();
    const std::size_t arrived = records_in_host_.size();
    if (records_in_.size() < arrived) records_in_ = exec::DeviceArray<Record>(space_, arrived + arrived / 2);
    records_in_host_.upload(records_in_.data());
    if (count() > owned_)
      exec::for_each(space_, {owned_, count()},
                     GatherGhostRecords<Real>{records_in_.data(), table_->get<std::uint32_t>("order").data(),
                                              records_.data(), owned_},
                     "rbc::gather_ghost_records");
  }


  void spread(FieldRegistry& fields) {
    if (side_busy_) {  // the internal cells' kick (records, node lists) before the drag is spread
      side_->join_compute();
      side_busy_ = false;
    }
    ghost_rows_ = count() - owned_;
    auto& force = fields.get<Real>("force");
    exec::for_each(space_, {0, mesh_->num_nodes},
                   SpreadDrag<Real>{model_, view_, node_tile_.data(), node_voxel_.data(), tile_first_.data(),
                                    records_.data(), table_->get<std::uint32_t>("id").data(), node_cells(), force.data(),
                                    force.stride()},
                   "rbc::spread_drag");
  }

  /// The owned cells move; the ghosts are dropped (their owners move them).
  void drift() {
    exec::for_each(space_, {0, owned_}, CellDrift<Real>{columns(), model_, view_, too_fast_.data()}, "rbc::cell_drift");
    table_->resize(owned_);
  }

  void output(StepContext& ctx, FieldRegistry& fields) {
    if (verify_every_ > 0 && ctx.step % verify_every_ == 0) verify(ctx);
    const bool monitor = monitor_ && ctx.step % check_every_ == 0;
    if (!monitor && !(ctx.snapshot_due && write_cells_)) return;
    const std::size_t n = count();
    const ParticleTable& t = *table_;
    auto rows = [&](const char* name, int comps) {
      std::vector<std::vector<Real>> r;
      for (int c = 0; c < comps; ++c) r.push_back(t.get<Real>(name).component_to_host(c, n));
      return r;
    };
    const auto vel = rows("velocity", 3);
    if (monitor) {
      // Momentum of the cells (m V at the half step after this step's kick) and of the
      // fluid (sum of c_q h_q over the post-collision populations of this step): their
      // sum changes only by what walls and body forces exchange. Summed over the ranks
      // in rank order (comm.sum): the same on any rank count to rounding.
      std::vector<double> sums(8, 0.0);  // cells, cell momentum (3), fluid momentum (3), speed
      sums[0] = double(n);
      for (std::size_t c = 0; c < n; ++c) {
        for (int a = 0; a < 3; ++a) sums[std::size_t(1 + a)] += double(host_model_.body.mass) * double(vel[a][c]);
        sums[7] += std::sqrt(double(vel[0][c]) * vel[0][c] + double(vel[1][c]) * vel[1][c] + double(vel[2][c]) * vel[2][c]);
      }
      const auto population_sums = post_collision_sums(fields, *mesh_, ctx.step);  // either streaming scheme
      for (int q = 1; q < phys::d3q19::Q; ++q) {
        const double s = population_sums[std::size_t(q)];
        sums[4] += phys::d3q19::cx(q) * s, sums[5] += phys::d3q19::cy(q) * s, sums[6] += phys::d3q19::cz(q) * s;
      }
      comm_->sum(std::span<double>(sums));
      std::uint64_t counts[2] = {state_checksum(), std::uint64_t(migrated_)};
      comm_->sum(std::span<std::uint64_t>(counts, 2));
      const double cells = sums[0];
      const double mom = units_.density * std::pow(units_.dx, 4) / units_.dt;  // kg m/s per lattice unit
      monitor_.begin(ctx.step, ctx.time);
      monitor_.value(cells);
      monitor_.value(cells * cell_volume_ / std::max(fluid_nodes_, 1.0), 6);
      for (int a = 1; a <= 6; ++a) monitor_.value(sums[std::size_t(a)] * mom, 15);
      monitor_.value(cells > 0 ? units_.velocity_to_physical(sums[7] / cells) : 0.0, 8);
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(counts[0]));
      monitor_.text(hex);
      monitor_.value(double(counts[1]));
      for (std::size_t k = 0; k < iolets_.faces().size(); ++k) {
        monitor_.value(entered_[k]);
        monitor_.value(left_[k]);
      }
      monitor_.end();
    }
    if (ctx.snapshot_due && write_cells_) write_cells(ctx, rows, vel);
  }

  /// rbc.verify_every: no cell lost or duplicated. Every id is held by exactly one rank,
  /// and the cells number the ids given out (next_id_) less those that left by a sink.
  void verify(StepContext& ctx) {
    const std::size_t n = count();
    const auto ids = table_->get<std::uint32_t>("id").component_to_host(0, n);
    std::vector<std::uint64_t> mine(n);
    for (std::size_t c = 0; c < n; ++c) mine[c] = (std::uint64_t(ids[c]) << 32) | std::uint64_t(comm_->rank());
    auto all = comm_->gather<std::uint64_t>(mine, 0);
    if (comm_->rank() != 0) return;
    std::sort(all.begin(), all.end());
    for (std::size_t c = 1; c < all.size(); ++c)
      if ((all[c] >> 32) == (all[c - 1] >> 32))
        throw std::runtime_error(str("rbc: cell id ", all[c] >> 32, " exists twice at step ", ctx.step, ", on ranks ",
                                     all[c - 1] & 0xffffffffu, " and ", all[c] & 0xffffffffu));
    double left = 0;
    for (double l : left_) left += l;
    if (double(all.size()) != next_id_ - left)
      throw std::runtime_error(str("rbc: ", all.size(), " cells at step ", ctx.step, ", but ", fmt_g(next_id_, 12),
                                   " were given ids and ", fmt_g(left, 12), " left by the iolets: ",
                                   fmt_g(next_id_ - left - double(all.size()), 12), " lost"));
    if (!all.empty() && double(all.back() >> 32) >= next_id_)
      throw std::runtime_error(str("rbc: cell id ", all.back() >> 32, " at step ", ctx.step, " was never given out"));
  }

  /// The cells' state as one number: per cell, FNV-1a over the bytes of its restart-state
  /// entries (id included), column by column; summed over the cells modulo 2^64, so it
  /// does not depend on the order of the rows, nor on how the cells are spread over ranks
  /// (the ranks' sums add up exactly). Equal checksums mean bitwise equal cells.
  std::uint64_t state_checksum() const {
    const std::size_t n = count();
    std::vector<std::uint64_t> h(n, 1469598103934665603ull);
    for (const ParticleColumnBase* c : table_->columns()) {
      if (!c->restart_state()) continue;
      const std::size_t e = c->entry_bytes();
      for (int r = 0; r < c->components(); ++r) {
        const auto bytes = c->component_bytes(r, n);
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t b = 0; b < e; ++b) h[i] = (h[i] ^ bytes[i * e + b]) * 1099511628211ull;
      }
    }
    std::uint64_t sum = 0;
    for (const std::uint64_t x : h) sum += x;
    return sum;
  }

  /// A snapshot of the cells: every rank's rows gathered to rank 0, which writes them in
  /// ascending id (the same file on any rank count).
  template <class Rows, class Velocity>
  void write_cells(StepContext& ctx, Rows& rows, const Velocity& vel) {
    const std::size_t n = count();
    const auto pos = rows("position", 3), ori = rows("orientation", 4), omega = rows("angular_velocity", 3),
               drag = rows("drag", 6);
    const auto ids = table_->get<std::uint32_t>("id").component_to_host(0, n);
    const double dx = mesh_->dx, dt = units_.dt;
    const double newton = units_.density * std::pow(dx, 4) / (dt * dt);
    // Per cell, in this order: id, position (m), axis, velocity, angular velocity,
    // orientation, drag force.
    constexpr std::size_t per = 1 + 3 + 3 + 3 + 3 + 4 + 3;
    std::vector<double> mine;
    mine.reserve(n * per);
    for (std::size_t c = 0; c < n; ++c) {
      const auto x = to_metres(*mesh_, double(pos[0][c]), double(pos[1][c]), double(pos[2][c]));
      const phys::Quaternion<double> qc{double(ori[0][c]), double(ori[1][c]), double(ori[2][c]), double(ori[3][c])};
      const V n3 = phys::symmetry_axis(qc);
      mine.push_back(double(ids[c]));
      mine.insert(mine.end(), x.begin(), x.end());
      mine.insert(mine.end(), {n3.x, n3.y, n3.z});
      for (int a = 0; a < 3; ++a) mine.push_back(double(vel[a][c]) * dx / dt);
      for (int a = 0; a < 3; ++a) mine.push_back(double(omega[a][c]) / dt);
      for (int a = 0; a < 4; ++a) mine.push_back(double(ori[a][c]));
      for (int a = 0; a < 3; ++a) mine.push_back(double(drag[a][c]) * newton);
    }
    const auto all = comm_->gather<double>(mine, 0);
    if (!writer_) return;
    const std::size_t total = all.size() / per;
    std::vector<std::size_t> by_id(total);
    for (std::size_t c = 0; c < total; ++c) by_id[c] = c;
    std::sort(by_id.begin(), by_id.end(), [&](std::size_t a, std::size_t b) { return all[a * per] < all[b * per]; });
    std::vector<std::array<double, 3>> x(total);
    io::HostField axis{"axis", "1", 3, {}}, scale{"glyph_scale", "m", 3, {}}, v{"velocity", "m/s", 3, {}},
        w{"angular_velocity", "1/s", 3, {}}, q{"orientation", "1", 4, {}}, id{"id", "1", 1, {}},
        fd{"drag_force", "N", 3, {}};
    for (std::size_t r = 0; r < total; ++r) {
      const double* c = all.data() + by_id[r] * per;
      id.values.push_back(c[0]);
      x[r] = {c[1], c[2], c[3]};
      axis.values.insert(axis.values.end(), c + 4, c + 7);
      scale.values.insert(scale.values.end(), {case_.thickness, case_.diameter, case_.diameter});
      v.values.insert(v.values.end(), c + 7, c + 10);
      w.values.insert(w.values.end(), c + 10, c + 13);
      q.values.insert(q.values.end(), c + 13, c + 17);
      fd.values.insert(fd.values.end(), c + 17, c + 20);
    }
    writer_->write(ctx.step, ctx.time, x, {axis, scale, v, w, q, id, fd});
  }

  /// Records of the spreading, one per cell; grows with the cells, keeping the first
  /// `keep` records (none: a step writes them before it reads them).
  struct Records {
    exec::DeviceArray<SpreadRecord<Real>> array;
    void resize_at_least(exec::Space space, std::size_t n, std::size_t keep = 0) {
      if (array.size() >= n) return;
      exec::DeviceArray<SpreadRecord<Real>> grown(space, n + n / 2 + 16);
      if (keep) grown.copy_from(array, keep);
      array = std::move(grown);
    }
    SpreadRecord<Real>* data() { return array.data(); }
  };

  // Tags of the cells' messages between ranks (HaloExchange's are 0 and below 100).
  static constexpr int tag_far_plan = 20100, tag_migrants = 20110, tag_ghosts = 20120, tag_far = 20130,
                       tag_records = 20140;

  CellCase case_;
  LatticeUnits units_;
  comm::Communicator* comm_ = nullptr;
  std::function<int(int, int, int)> voxel_owner_;  // SetupStage::voxel_owner: who owns a cell
  std::vector<int> peers_;                         // ranks sharing cells with this one (symmetric)
  FarVelocityPlan far_;
  exec::DeviceArray<std::uint32_t> far_send_nodes_;
  exec::DeviceArray<Real> far_send_, far_velocity_;  // 3 per node sent, 3 per far slot
  exec::DeviceArray<std::int32_t> tile_owner_;       // per tile (TileMaps::tile_owner)
  std::uint32_t owned_ = 0, frontier_first_ = 0;     // rows [0, owned_) are this rank's, [frontier_first_, owned_) in frontier tiles
  std::vector<std::uint32_t> peer_frontier_;         // per peer: the cells it sent as ghosts this step
  std::vector<std::uint32_t> peer_first_host_;      // the first appended row of each peer's ghosts, then the end
  std::uint32_t first_sent_row_ = 0;                // the smallest row sent as a ghost (frontier_first_ but in a test)
  exec::HostBuffer<std::uint32_t> ghost_ends_;       // the device's count of them, then the faults' end (check_ghosts)
  exec::DeviceArray<std::uint32_t> ghost_count_, ghost_first_;  // NGRID and its scan over the ghosts
  exec::DeviceArray<std::uint32_t> peer_first_;                 // where each peer's ghosts were appended
  exec::DeviceArray<std::int32_t> peer_rank_;                   // peers_, on the device
  exec::HostBuffer<SpreadRecord<Real>> records_out_, records_in_host_;  // pinned: this rank's frontier records, the peers'
  exec::HostBuffer<SpreadRecord<Real>> records_send_;                    // pinned: the records of sent_rows_, peer after peer
  std::vector<std::vector<std::uint32_t>> peer_frontier_tiles_;  // per peer: the frontier tiles whose cells it is sent
  std::vector<std::uint32_t> sent_rows_;  // this step's ghosts sent: the rows for each peer, peer after peer
  std::vector<std::size_t> sent_first_;   // where each peer's rows start in sent_rows_, and the end
  std::vector<std::uint32_t> frontier_tile_first_;  // this step's first row of each frontier tile, and owned_
  exec::DeviceArray<SpreadRecord<Real>> records_in_;
  exec::DeviceArray<std::uint32_t> too_fast_;       // CellDrift's flag
  exec::DeviceArray<std::uint32_t> row_list_;       // device_rows()
  exec::HostBuffer<unsigned char> frontier_out_, frontier_in_;  // pinned: this step's ghosts, each peer's back to back
  std::unique_ptr<exec::cuda::AsyncCopy> copies_;  // CUDA on many ranks: the frontier's and the sent records' downloads
  std::unique_ptr<exec::cuda::SideStream> side_;    // CUDA on many ranks: the internal cells' forces and kick (internal_cells)
  bool side_busy_ = false;                          // its work of this step not yet joined (spread joins it)
  std::uint32_t ghost_rows_ = 0;                    // the ghosts of the step before (records_' room)
  std::vector<std::size_t> frontier_in_first_;                  // where each peer's ghosts start in frontier_in_
  exec::HostBuffer<Real> far_out_, far_in_;          // this step's far velocity, in flight (pinned)
  bool keep_owned_ = false;                          // a restart on many ranks: drop the cells of other ranks first
  double migrated_ = 0;                              // cells this rank sent to another rank, all steps
  CellModel<Real> model_, full_model_;  // this step's (cells growing) and the full-size one
  CellModel<double> host_model_;
  std::vector<double> seed_velocity_;  // m/s, from the seed file (else initial.velocity)
  double start_size_ = 1.0;          // the size cells were placed at (below 1: they grow)
  std::int64_t growth_steps_ = 0;
  exec::Space space_ = exec::Space::host;
  const mesh::SparseMesh* mesh_ = nullptr;
  mesh::TileMaps tiles_;
  mesh::TileView view_;
  exec::DeviceArray<std::uint64_t> coord_;
  exec::DeviceArray<std::int32_t> id_, neighbours_, nodes_, node_voxel_, node_tile_;
  exec::DeviceArray<std::uint8_t> near_wall_;  // per mapped tile (TileMaps::near_gaps)
  // Iolets: where cells leave and enter, and how many did (restart values, by iolet).
  CellIolets iolets_;
  exec::DeviceArray<std::uint8_t> sink_;  // per IJKMAP entry (CellIolets::sink_map), empty without iolets
  std::vector<double> entered_, left_;
  std::vector<double> leaving_;  // this step's, on this rank (count_leaving), before the sum over ranks
  // Rank 0 (with feeds): every fluid voxel of the vessel and its tile maps, where new
  // cells are placed (placement_mesh).
  mesh::SparseMesh placement_mesh_;
  mesh::TileMaps placement_tiles_;
  double next_id_ = 0;       // the id of the next new cell
  std::int64_t inflow_every_ = 1;
  double inflow_haematocrit_ = 0;
  std::uint64_t seed_ = 1, tries_per_cell_ = 1000;
  // NodeCells: how many cells cover each node, and up to cells_per_node of them. At
  // haematocrit 0.45 a node lies in about 3.5 supports on average; more than
  // cells_per_node is rare and gathered from the tiles instead (SpreadDrag).
  static constexpr std::uint32_t cells_per_node = node_cells_kept;
  static_assert(cells_per_node <= SpreadDrag<Real>::max_per_node);
  exec::DeviceArray<std::uint32_t> node_count_, node_cells_;
  exec::DeviceArray<std::uint32_t> tile_count_, tile_first_;
  std::unique_ptr<exec::Workspace> workspace_;
  int key_bits_ = 1;
  Records records_;
  ParticleTable* table_ = nullptr;
  std::string output_dir_;
  std::int64_t check_every_ = 1, verify_every_ = 0;
  std::int64_t misroute_at_ = -1;        // HEMO_TEST_RBC_MISROUTE
  std::int64_t ghost_misroute_at_ = -1;  // HEMO_TEST_RBC_MISROUTE_GHOST
  bool write_cells_ = true;
  io::SeriesCsv monitor_;
  std::unique_ptr<io::ParticleWriter> writer_;
  double cell_volume_ = 1;
  double fluid_nodes_ = 1;  // over all ranks
};

class RbcPlugin final : public Plugin {
 public:
  void plan(PlanStage& st) override {
    const CellCase c = CellCase::read(st.config, st.units);
    const CellModel<double> model = c.lattice<double>(st.units);
    const int tile = tile_edge(st.config, c, model, st.mesh, st.comm.size() > 1);
    check_cell_step(st.config, st.units, st.flow, tile);
    // Cells::setup: the force density and (lb_bgk's, asked for by the cells) the streamed
    // velocity; per node its voxel, tile, cell count and cells; the table of the cells
    // (haematocrit x fluid volume / cell volume, a spare of each column for the sort).
    const mesh::SparseMesh& m = st.mesh;
    const std::size_t real = st.precision == Precision::fp32 ? 4 : 8;
    MemoryPlan& plan = st.memory;
    plan.node_field("rbc", "force", 3, real);
    plan.node_field("lb_bgk", "streamed_velocity", 3, real);
    plan.array("rbc", "node voxels and tiles", 3ull * m.stride + m.num_nodes, sizeof(std::int32_t));
    plan.array("rbc", "cells per node", std::uint64_t(m.num_nodes) * (1 + node_cells_kept), sizeof(std::uint32_t));
    const double volume = 4.0 / 3.0 * M_PI * double(model.wall.across) * model.wall.across * model.wall.along;
    const double haematocrit = std::max(st.config.real("rbc.haematocrit"), st.config.real("rbc.inflow_haematocrit"));
    const std::uint64_t cells = std::uint64_t(haematocrit * double(m.num_fluid()) / std::max(volume, 1e-9)) + 1024;
    plan.array("rbc", "cells", 2 * cells, 29 * real + 3 * sizeof(std::uint32_t));
  }
  void setup(SetupStage& st) override {
    const CellCase c = CellCase::read(st.config, st.units);
    if (st.precision == Precision::fp32) cells32_ = std::make_unique<Cells<float>>(c, st.units), cells32_->setup(st);
    else cells64_ = std::make_unique<Cells<double>>(c, st.units), cells64_->setup(st);
  }
  void initialise(SetupStage& st) override {
    if (cells32_) cells32_->initialise(st);
    else cells64_->initialise(st);
  }

 private:
  std::unique_ptr<Cells<float>> cells32_;
  std::unique_ptr<Cells<double>> cells64_;
};

void declare_config(config::Schema& schema) {
  schema.section("rbc", "rbc", "Red blood cells: rigid oblate ellipsoids coupled to the plasma (MUPHY model)")
      .real("haematocrit", "1", "Volume fraction of the fluid the cells fill at the start (placed at random, no overlap)")
      .at_least(0.0)
      .at_most(0.6)
      .note("rigid ellipsoids much above 0.6 can no longer move past each other")
      .default_value(0.2)
      .integer("seed", "1", "Seed of the random placement")
      .default_value(std::int64_t{1})
      .integer("growth_steps", "1",
               "Steps over which cells that fit only smaller (a haematocrit random placement cannot reach at full "
               "size) grow to full size in the flow")
      .at_least(0)
      .default_value(std::int64_t{2000})
      .string("placement",
              "How the random placement draws: 'sequential' (the default: one candidate after another over the whole "
              "fluid, one thread per cell size tried) or 'tiles' (by tile colours, the tiles of a colour shared by all "
              "threads, the same result on any thread and rank count; another placement than 'sequential' for the "
              "same seed; docs/rbc_ranks.md 4.6)")
      .choices({"sequential", "tiles"})
      .default_value(std::string("sequential"))
      .integer("tries_per_cell", "1",
               "The random placement gives up a cell size after this many candidates in a row failed (and after this "
               "many per cell asked for in all)")
      .at_least(1)
      .default_value(std::int64_t{1000})
      .string("seed_file",
              "HDF5 file of cells to start from instead: /position (N x 3, m), /orientation (N x 4, w x y z) or /axis "
              "(N x 3) (else the symmetry axis along z), /velocity (N x 3, m/s; else initial.velocity); checked for "
              "overlaps, walls and cells outside the fluid")
      .default_value(std::string(""))
      .real("diameter", "m", "Cell diameter (the ellipsoid's two long axes)")
      .greater_than(0.0)
      .default_value(8.0e-6)
      .real("thickness", "m", "Cell thickness (its short axis, the symmetry axis)")
      .greater_than(0.0)
      .default_value(2.5e-6)
      .real("density", "kg/m^3", "Cell density")
      .greater_than(0.0)
      .default_value(1100.0)
      .real("drag_translational", "kg/s",
            "gamma_T of the drag F = -gamma_T (V - u~) (eq. 2.4); 0: Stokes' 6 pi mu R of the sphere of the cell's volume")
      .at_least(0.0)
      .default_value(0.0)
      .real("drag_rotational", "kg m^2/s",
            "gamma_R of the torque T = -gamma_R (Omega - Omega~) (eq. 2.5); 0: Stokes' 8 pi mu R^3 of that sphere")
      .at_least(0.0)
      .default_value(0.0)
      .boolean("strain_coupling",
               "Rigid cells resist the plasma's rate of strain E~ with the stresslet gamma_S E~ (physics/"
               "cell_coupling.hpp), which makes the suspension more viscous; false: the MUPHY paper's model, drag "
               "on velocity and spin only")
      .default_value(true)
      .real("drag_strain", "kg m^2/s",
            "gamma_S of the stresslet gamma_S E~; 0: Stokes' 20/3 pi mu R^3 of the sphere of the cell's volume "
            "(Batchelor 1970)")
      .at_least(0.0)
      .default_value(0.0)
      .real("repulsion_energy", "J", "Energy scale eps0 of the Gay-Berne repulsion between cells (eqs. 2.6-2.7)")
      .greater_than(0.0)
      .default_value(1.0e-17)
      .real("repulsion_anisotropy", "1", "Gay-Berne well-depth ratio eps_s / eps_e (side by side over face to face)")
      .greater_than(0.0)
      .default_value(1.0)
      .real("wall_energy", "J", "Energy scale of the cell-wall repulsion (default: rbc.repulsion_energy)")
      .greater_than(0.0)
      .real("wall_range", "m",
            "Range s of the cell-wall repulsion, from each solid lattice point next to the fluid; 0: one lattice spacing "
            "(the sites' spheres of repulsion then overlap, so no cell slips between them; a cell's surface stays about "
            "0.6 spacings from the halfway wall)")
      .at_least(0.0)
      .default_value(0.0)
      .real("support_margin", "m",
            "How far beyond the cell the coupling kernel reaches (its support: the cell enlarged by this); 0: one "
            "lattice spacing")
      .at_least(0.0)
      .default_value(0.0)
      .integer("tile", "lattice spacings", "Edge of the tiles for the neighbour search; 0: the smallest that holds a cell's reach")
      .at_least(0)
      .default_value(std::int64_t{0})
      .integer("verify_every", "1",
               "Steps between checks that no cell is lost or duplicated (every id on exactly one rank; the count equals "
               "the ids given out less those that left by the iolets): an error names the id and the ranks; 0: never "
               "(the check gathers every id on rank 0)")
      .at_least(0)
      .default_value(std::int64_t{0})
      .boolean("output", "Write the cells (particles/cells_*.h5, cells.xmf) with every field snapshot")
      .default_value(true)
      .strings("inflow",
               "Iolets (boundaries.iolet names) where new cells enter: every rbc.inflow_every steps, a slab of "
               "rbc.inflow_length inside the iolet is topped up to rbc.inflow_haematocrit. At every iolet, cells whose "
               "centre comes within a cell's reach of its face leave the run (counted in cells.csv)")
      .default_value(std::vector<std::string>{})
      .real("inflow_haematocrit", "1", "Haematocrit of the inflow slabs; negative: rbc.haematocrit")
      .at_most(0.6)
      .default_value(-1.0)
      .integer("inflow_every", "1", "Steps between top-ups of the inflow slabs")
      .at_least(1)
      .default_value(std::int64_t{50})
      .real("inflow_length", "m", "Thickness of an inflow slab along the iolet's normal; 0: two cell diameters")
      .at_least(0.0)
      .default_value(0.0);
}

Plugin* create() { return new RbcPlugin(); }

const PluginDescriptor descriptor{"rbc", "particles", "0.1.0",
                                  "red blood cells: rigid oblate ellipsoids, Gay-Berne repulsion, drag coupling (MUPHY)",
                                  &declare_config, &create};

}  // namespace
}  // namespace hemo::rbc

HEMO_EXPORT_PLUGIN(hemo::rbc::descriptor)
