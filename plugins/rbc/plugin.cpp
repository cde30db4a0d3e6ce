// rbc: red blood cells as rigid oblate ellipsoids in the plasma (MUPHY paper, seeds/004,
// secs. 2-3): Gay-Berne repulsion between cells, a wall repulsion, drag and torque
// coupling to the LB through the force field, and a second-order rigid-body step. One
// rank for now (issue 13 spreads the cells over ranks). See README.md.
#include <cmath>
#include <memory>
#include <string>

#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/for_each.hpp"
#include "core/exec/primitives.hpp"
#include "core/io/hdf5_file.hpp"
#include "core/io/particle_writer.hpp"
#include "core/io/series_csv.hpp"
#include "core/mesh/tile_maps.hpp"
#include "core/plugin/plugin_api.hpp"
#include "physics/d3q19.hpp"
#include "plugins/rbc/iolets.hpp"
#include "plugins/rbc/kernels.hpp"
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

template <class Real>
class Cells {
 public:
  Cells(const CellCase& c, const LatticeUnits& u)
      : case_(c), units_(u), model_(c.lattice<Real>(u)), full_model_(model_), host_model_(c.lattice<double>(u)) {}

  void setup(SetupStage& st) {
    if (st.comm.size() > 1)
      throw InputError(str("rbc: red blood cells run on one rank for now (this run has ", st.comm.size(),
                           "); spreading them over ranks is issue 13"));
    space_ = st.space;
    mesh_ = &st.mesh;
    choose_tiles(st);
    upload_tiles();
    // Node coordinates and tiles, for the per-node spreading.
    const std::uint32_t n = st.mesh.num_nodes, s = st.mesh.stride;
    std::vector<std::int32_t> voxel(3 * std::size_t(s), 0), tile(n);
    const mesh::TileView host_view = tiles_.view();
    for (std::uint32_t i = 0; i < n; ++i) {
      voxel[i] = st.mesh.i[i], voxel[s + i] = st.mesh.j[i], voxel[2 * std::size_t(s) + i] = st.mesh.k[i];
      tile[i] = host_view.tile_of_voxel(st.mesh.i[i], st.mesh.j[i], st.mesh.k[i]);
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
    st.scheduler.add(Phase::particles, "cell_forces", "rbc", [this](StepContext&) { forces(); });
    st.scheduler.add(Phase::particles, "cell_kick", "rbc", [this, &fields](StepContext&) { kick(fields); });
    st.scheduler.add(Phase::coupling, "spread_drag", "rbc", [this, &fields](StepContext&) { spread(fields); });
    st.scheduler.add(Phase::coupling, "cell_drift", "rbc", [this](StepContext&) { drift(); });
    st.scheduler.add(Phase::output, "cell_output", "rbc", [this, &fields](StepContext& ctx) { output(ctx, fields); });
    output_dir_ = st.output_dir;
    check_every_ = st.check_every;
    write_cells_ = st.config.boolean("rbc.output");
  }

  void initialise(SetupStage& st) {
    // The size the cells were placed at goes through checkpoints with them: a restart
    // grows them on from it as the uninterrupted run does.
    table_->bind_restart_value("start_size", start_size_);
    growth_steps_ = st.config.integer("rbc.growth_steps");
    // A restart's cells come from the checkpoint, which core restores after every
    // plugin's initialise (Simulation::restore_restart), sizing the table.
    if (st.first_step > 0) cell_volume_ = lattice_cell_volume();
    else upload(seed(st), st);
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
                  "fluid_momentum_y,fluid_momentum_z,mean_speed_m_s,state_checksum" + crossings,
                  st.first_step);
    if (write_cells_) writer_ = std::make_unique<io::ParticleWriter>(output_dir_, "cells", st.first_step);
    else if (st.first_step > 0) io::ParticleWriter::continue_series(output_dir_, "cells", st.first_step);
  }

 private:
  void choose_tiles(SetupStage& st) {
    // A tile must hold a cell's whole reach: the Gay-Berne cut-off between centres, the
    // wall's reach and the kernel's support all within one tile of the centre's tile.
    const double reach = std::max({double(host_model_.pair_cutoff), double(host_model_.wall.reach()),
                                   double(host_model_.support.across), double(host_model_.support.along)});
    const int needed = int(std::ceil(reach));
    int c = case_.tile > 0 ? case_.tile : needed;
    if (c < needed)
      st.config.fail("rbc.tile", str("= ", c, " lattice spacings is smaller than a cell's reach, ", fmt_g(reach, 4),
                                     " spacings (the Gay-Berne cut-off ", fmt_g(host_model_.pair_cutoff, 4),
                                     ", the wall's reach ", fmt_g(host_model_.wall.reach(), 4), ", the coupling support ",
                                     fmt_g(host_model_.support.across, 4), "); use ", needed, " or more"));
    // Along a periodic axis the tiles must divide the box: the smallest divisor >= c.
    for (int a = 0; a < 3; ++a) {
      if (!st.mesh.periodic[a]) continue;
      int d = c;
      while (st.mesh.dims[a] % d != 0) ++d;
      if (d != c && case_.tile > 0)
        st.config.fail("rbc.tile", str("= ", c, " does not divide the periodic box's ", st.mesh.dims[a], " voxels along ",
                                       "xyz"[a], "; use ", d));
      c = d;
    }
    for (int a = 0; a < 3; ++a)
      if (st.mesh.periodic[a] && st.mesh.dims[a] < 3 * c)
        throw InputError(str("rbc: the periodic box is ", st.mesh.dims[a], " voxels along ", "xyz"[a],
                             ", fewer than three tiles of ", c, " (a cell's reach): a cell would meet its own image"));
    tiles_ = mesh::build_tile_maps(st.mesh, c);
    log::info(str("rbc: tiles of ", c, " lattice spacings (a cell reaches ", fmt_g(reach, 4), "): ", tiles_.num_mapped(),
                  " with fluid, ", tiles_.num_external, " around them, ", fmt_g(double(tiles_.bytes()) / 1e6, 3), " MB"));
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
    workspace_ = std::make_unique<exec::Workspace>(space_);
    // Keys: the mapped tiles, then one for centres in no tile, one for cells leaving.
    tile_count_ = exec::DeviceArray<std::uint32_t>(space_, tiles_.num_mapped() + 2);
    tile_first_ = exec::DeviceArray<std::uint32_t>(space_, tiles_.num_mapped() + 2);
    key_bits_ = 1;
    while ((std::uint64_t(1) << key_bits_) <= tiles_.num_mapped() + 1) ++key_bits_;
  }

  /// A cell's volume in lattice units (of the full-size cell).
  double lattice_cell_volume() const {
    return 4.0 / 3.0 * M_PI * double(host_model_.wall.across) * host_model_.wall.across * host_model_.wall.along;
  }

  std::vector<CellPlacement> seed(SetupStage& st) {
    const std::string file = st.config.string("rbc.seed_file");
    const double cell_volume = lattice_cell_volume();
    std::vector<CellPlacement> cells;
    if (!file.empty()) {
      cells = read_seed_file(st, file);
      const auto problems = placement_problems(cells, st.mesh, tiles_, host_model_);
      if (!problems.empty())
        throw InputError(str(st.config.where("rbc.seed_file"), ": rbc.seed_file: ", file, ": ", problems.size(),
                             " problem(s) with its ", cells.size(), " cells:\n  ", join(problems, "\n  ")));
    } else {
      // Random sequential addition stalls near a quarter of the volume for these shapes
      // (and less in thin tubes, whose walls keep cells a spacing away): where it cannot
      // place every cell at full size, the cells are placed smaller, by steps of 10%
      // down to half size, and grow to full size in the flow over rbc.growth_steps.
      const double haematocrit = st.config.real("rbc.haematocrit");
      const auto wanted = static_cast<std::size_t>(std::llround(haematocrit * double(st.mesh.num_nodes) / cell_volume));
      const auto per_cell = std::uint64_t(st.config.integer("rbc.tries_per_cell"));
      const std::uint64_t tries = per_cell * std::max<std::size_t>(wanted, 1);
      const auto seed = std::uint64_t(st.config.integer("rbc.seed"));
      // No cell where it would leave at once: none in an iolet's sink.
      const PlacementTest not_leaving = [this](const CellPlacement& c) {
        return iolets_.empty() || iolets_.sink_of(c.position) < 0;
      };
      std::size_t best = 0;
      for (int shrink = 0; shrink <= 5; ++shrink) {
        start_size_ = 1.0 - 0.1 * shrink;
        cells = place_at_random(st.mesh, tiles_, host_model_.grown_to(start_size_), wanted, seed, tries, per_cell,
                                not_leaving);
        best = std::max(best, cells.size());
        if (cells.size() == wanted) break;
        if (shrink == 0 && cells.empty() && wanted > 0)
          st.config.fail("rbc.haematocrit",
                         str("= ", fmt_g(haematocrit, 3), ": not one cell (", fmt_g(case_.diameter, 3), " m across, ",
                             fmt_g(case_.thickness, 3), " m thick, kept rbc.wall_range from the wall sites) fits in the "
                             "fluid in ", per_cell, " random tries: the vessel is too narrow for rigid cells"));
      }
      if (cells.size() < wanted)
        st.config.fail("rbc.haematocrit",
                       str("= ", fmt_g(haematocrit, 3), " asks for ", wanted, " cells, but at most ", best,
                           " fit without overlap, even at half their size (", per_cell, " random tries failing in a row "
                           "end a size); lower it, raise rbc.tries_per_cell, or give the cells in rbc.seed_file"));
      if (start_size_ < 1.0)
        log::info(str("rbc: the cells fit only at ", fmt_g(start_size_, 2), " of their size; they grow to full size over ",
                      "the first ", growth_steps_, " steps (rbc.growth_steps)"));
      if (start_size_ < 1.0 && growth_steps_ == 0) start_size_ = 1.0;
    }
    log::info(str("rbc: ", cells.size(), " cells, haematocrit ",
                  fmt_g(double(cells.size()) * cell_volume / double(std::max<std::uint32_t>(st.mesh.num_nodes, 1)), 4),
                  " (cell volume ", fmt_g(cell_volume, 4), " lattice units, ",
                  fmt_g(cell_volume * std::pow(st.mesh.dx, 3) * 1e18, 4), " um^3)"));
    cell_volume_ = cell_volume;
    return cells;
  }

  /// /position (N x 3, m) and /orientation (N x 4, w x y z) or /axis (N x 3).
  std::vector<CellPlacement> read_seed_file(SetupStage& st, const std::string& file) {
    const io::hdf5::Quiet quiet;
    const io::hdf5::Input in(file, "a red blood cell seed file (rbc.seed_file)");
    const auto shape = in.shape("position");
    if (shape.dims.size() != 2 || shape.dims[1] != 3)
      st.config.fail("rbc.seed_file", str(file, ": /position must be an N x 3 array of centres in m"));
    const std::size_t n = shape.dims[0];
    std::vector<double> pos(3 * n);
    in.read("position", H5T_NATIVE_DOUBLE, pos.data());
    std::vector<double> q(4 * n, 0.0);
    auto check_rows = [&](const char* name, std::size_t columns) {
      const auto s = in.shape(name);
      if (s.dims.size() != 2 || s.dims[0] != n || s.dims[1] != columns)
        st.config.fail("rbc.seed_file", str(file, ": /", name, " must be an N x ", columns, " array with N = ", n,
                                            " (the rows of /position)"));
    };
    if (in.has_dataset("orientation")) {
      check_rows("orientation", 4);
      in.read("orientation", H5T_NATIVE_DOUBLE, q.data());
    } else if (in.has_dataset("axis")) {
      check_rows("axis", 3);
      std::vector<double> axis(3 * n);
      in.read("axis", H5T_NATIVE_DOUBLE, axis.data());
      for (std::size_t c = 0; c < n; ++c) {
        // The shortest rotation taking e3 to the axis.
        V a{axis[3 * c], axis[3 * c + 1], axis[3 * c + 2]};
        const double len = std::sqrt(phys::dot(a, a));
        if (!(len > 0)) st.config.fail("rbc.seed_file", str(file, ": /axis of cell ", c, " is zero"));
        a = (1.0 / len) * a;
        const V e3{0, 0, 1}, k = phys::cross(e3, a);
        const double s = std::sqrt(phys::dot(k, k)), angle = std::atan2(s, a.z);
        const V turn = s > 0 ? (angle / s) * k : V{angle, 0, 0};
        const auto r = phys::rotation(turn);
        q[4 * c] = r.w, q[4 * c + 1] = r.x, q[4 * c + 2] = r.y, q[4 * c + 3] = r.z;
      }
    } else {
      for (std::size_t c = 0; c < n; ++c) q[4 * c] = 1.0;
    }
    if (in.has_dataset("velocity")) {
      check_rows("velocity", 3);
      seed_velocity_.resize(3 * n);
      in.read("velocity", H5T_NATIVE_DOUBLE, seed_velocity_.data());
    }
    std::vector<CellPlacement> cells(n);
    for (std::size_t c = 0; c < n; ++c) {
      for (int a = 0; a < 3; ++a) cells[c].position[a] = (pos[3 * c + a] - st.mesh.origin[a]) / st.mesh.dx - 0.5;
      const auto u = phys::normalized(phys::Quaternion<double>{q[4 * c], q[4 * c + 1], q[4 * c + 2], q[4 * c + 3]});
      cells[c].orientation = {u.w, u.x, u.y, u.z};
    }
    return cells;
  }

  void upload(const std::vector<CellPlacement>& cells, SetupStage& st) {
    ParticleTable& t = *table_;
    t.resize(cells.size());
    next_id_ = double(cells.size());
    const std::size_t n = cells.size(), cap = t.capacity();
    std::vector<Real> pos(3 * cap, 0), ori(4 * cap, 0), vel(3 * cap, 0);
    std::vector<std::uint32_t> id(cap, 0);
    const auto u0 = st.config.vec3("initial.velocity");
    for (std::size_t c = 0; c < n; ++c) {
      for (int a = 0; a < 3; ++a) {
        pos[a * cap + c] = Real(cells[c].position[a]);
        vel[a * cap + c] = Real(st.units.velocity_to_lattice(seed_velocity_.empty() ? u0[a] : seed_velocity_[3 * c + a]));
      }
      for (int a = 0; a < 4; ++a) ori[a * cap + c] = Real(cells[c].orientation[a]);
      id[c] = std::uint32_t(c);
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
      iolets_ = CellIolets(st.mesh, double(host_model_.wall.reach()), inflow, length);
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
    if (iolets_.empty()) return;
    sink_ = exec::to_device(space_, iolets_.sink_map(tiles_));
    for (const IoletFace& f : iolets_.faces())
      log::info(str("rbc: iolet '", f.name, "': cells leave within ", fmt_g(host_model_.wall.reach(), 3),
                    " spacings of its face (", f.face_voxels, " voxels, radius ", fmt_g(f.radius, 4), " spacings)"));
    for (const auto& feed : iolets_.feeds())
      log::info(str("rbc: iolet '", iolets_.faces()[std::size_t(feed.iolet)].name, "' feeds cells at haematocrit ",
                    fmt_g(inflow_haematocrit_, 3), " into ", feed.nodes.size(), " nodes every ", inflow_every_, " steps"));
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
      if (f >= 0) left_[std::size_t(f)] += 1;
    }
  }

  /// Tops each feed slab up to the inflow haematocrit with new cells at random (no overlap,
  /// clear of walls), moving with the plasma at their centre; ids continue from the
  /// largest given. Reproducible: the random draws depend on rbc.seed and the step only.
  void inflow(StepContext& ctx, FieldRegistry& fields) {
    if (ctx.step % inflow_every_ != 0) return;
    const std::size_t n = count();
    const auto& pos = table_->get<Real>("position");
    const auto& ori = table_->get<Real>("orientation");
    std::vector<std::vector<Real>> p(3), q(4);
    for (int a = 0; a < 3; ++a) p[a] = pos.component_to_host(a, n);
    for (int a = 0; a < 4; ++a) q[a] = ori.component_to_host(a, n);
    std::vector<CellPlacement> existing(n);
    for (std::size_t c = 0; c < n; ++c) {
      for (int a = 0; a < 3; ++a) existing[c].position[a] = double(p[a][c]);
      for (int a = 0; a < 4; ++a) existing[c].orientation[a] = double(q[a][c]);
    }
    const double size = start_size_ < 1.0 ? start_size_ + (1.0 - start_size_) *
                                                              std::min(1.0, double(ctx.step) / double(growth_steps_))
                                          : 1.0;
    const CellModel<double> now = host_model_.grown_to(size);
    std::vector<CellPlacement> added;
    std::vector<int> added_at;
    for (std::size_t f = 0; f < iolets_.feeds().size(); ++f) {
      const auto& feed = iolets_.feeds()[f];
      std::size_t inside = 0;
      for (const auto& c : existing) inside += iolets_.in_feed(feed, c.position);
      const auto target = std::size_t(std::llround(inflow_haematocrit_ * double(feed.nodes.size()) / cell_volume_));
      if (inside >= target) continue;
      std::mt19937_64 rng(seed_ ^ (0x9e3779b97f4a7c15ull * std::uint64_t(ctx.step + 1)) ^ (std::uint64_t(f) << 56));
      const auto fresh = place_in_feed(*mesh_, tiles_, now, iolets_, feed, existing, target - inside, rng, tries_per_cell_);
      for (const auto& c : fresh) {
        existing.push_back(c);
        added.push_back(c);
        added_at.push_back(feed.iolet);
      }
    }
    if (added.empty()) return;
    append(added, fields);
    for (int f : added_at) entered_[std::size_t(f)] += 1;
  }

  /// New cells after the last: position, orientation, the plasma's velocity at their
  /// centre (this step's streamed velocity, which lb_bgk computes before cell_inflow; the
  /// `velocity` field is computed only at output and check steps), no spin, fresh ids.
  void append(const std::vector<CellPlacement>& cells, FieldRegistry& fields) {
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
      id[c] = std::uint32_t(next_id_);
      next_id_ += 1;
    }
    table_->get<Real>("position").set_entries(first, k, pos);
    table_->get<Real>("orientation").set_entries(first, k, ori);
    table_->get<Real>("velocity").set_entries(first, k, vel);
    table_->get<Real>("angular_momentum").set_entries(first, k, spin);
    table_->get<std::uint32_t>("id").set_entries(first, k, id);
  }

  void sort_into_tiles(StepContext& ctx) {
    // Cells placed smaller than they are: this step's size.
    if (start_size_ < 1.0) {
      const double done = std::min(1.0, double(ctx.step) / double(growth_steps_));
      model_ = full_model_.grown_to(Real(start_size_ + (1.0 - start_size_) * done));
      if (done >= 1.0) start_size_ = 1.0;
    }
    const std::uint32_t n = count();
    std::uint32_t* key = table_->get<std::uint32_t>("tile_key").data();
    std::uint32_t* order = table_->get<std::uint32_t>("order").data();
    const std::uint32_t invalid = tiles_.num_mapped();
    exec::for_each(space_, {0, n}, AssignTiles<Real>{columns(), view_, sink_.empty() ? nullptr : sink_.data(), key, order, invalid},
                   "rbc::assign_tiles");
    exec::sort_by_key(*workspace_, key, order, n, key_bits_);
    // NGRID (cells per tile) and its exclusive scan: the first slot of each tile, then
    // where the centres in no tile start, then where the cells leaving start.
    exec::histogram(*workspace_, key, n, tile_count_.data(), invalid + 2);
    exec::exclusive_scan(*workspace_, tile_count_.data(), tile_first_.data(), invalid + 2);
    std::uint32_t ends[2] = {0, 0};
    if (space_ == exec::Space::host) ends[0] = tile_first_.data()[invalid], ends[1] = tile_first_.data()[invalid + 1];
    else exec::cuda::copy_to_host(ends, tile_first_.data() + invalid, sizeof ends);
    if (ends[1] > ends[0]) report_escaped(ctx);
    if (n > ends[1]) count_leaving(ends[1]);
    // The cells' rows into tile order, the leaving ones dropped: a tile's cells are then
    // contiguous, and neighbouring threads read neighbouring memory. Only the
    // restart-state columns carry over; the step rewrites the rest before reading them.
    table_->permute(order, ends[1]);
    records_.resize_at_least(space_, ends[1]);
  }

  [[noreturn]] void report_escaped(StepContext& ctx) {
    const std::uint32_t n = count();
    // Before the permutation: row order[p] holds the cell with sorted key p.
    const auto key = table_->get<std::uint32_t>("tile_key").component_to_host(0, n);
    const auto order = table_->get<std::uint32_t>("order").component_to_host(0, n);
    const auto& pos = table_->get<Real>("position");
    std::size_t escaped = 0;
    std::uint32_t first = 0;
    for (std::uint32_t p = 0; p < n; ++p)
      if (key[p] == tiles_.num_mapped()) first = escaped++ == 0 ? order[p] : first;
    const auto x = pos.component_to_host(0, n), y = pos.component_to_host(1, n), z = pos.component_to_host(2, n);
    const auto ids = table_->get<std::uint32_t>("id").component_to_host(0, n);
    throw DivergenceError(str("rbc: ", escaped, " cell(s) left the fluid at step ", ctx.step, "; the first, id ", ids[first],
                              ", is at ", describe_point(*mesh_, double(x[first]), double(y[first]), double(z[first])),
                              " (walls too soft for the flow: raise rbc.wall_energy, or lower the time step)"),
                          ctx.step, -1);
  }

  void forces() {
    exec::for_each(space_, {0, count()},
                   CellForces<Real>{columns(), model_, view_, tile_first_.data(), table_->get<std::uint32_t>("tile_key").data(),
                                    near_wall_.data(), table_->get<Real>("energy").data()},
                   "rbc::cell_forces");
  }

  NodeCells node_cells() { return {node_count_.data(), node_cells_.data(), cells_per_node}; }

  void kick(FieldRegistry& fields) {
    const auto& velocity = fields.get<Real>("streamed_velocity");
    exec::for_each(space_, {0, count()},
                   CellKick<Real>{columns(), model_, view_, velocity.data(), velocity.stride(), records_.data(), node_cells()},
                   "rbc::cell_kick");
  }

  void spread(FieldRegistry& fields) {
    auto& force = fields.get<Real>("force");
    exec::for_each(space_, {0, mesh_->num_nodes},
                   SpreadDrag<Real>{model_, view_, node_tile_.data(), node_voxel_.data(), tile_first_.data(),
                                    records_.data(), node_cells(), force.data(), force.stride()},
                   "rbc::spread_drag");
  }

  void drift() { exec::for_each(space_, {0, count()}, CellDrift<Real>{columns(), model_, view_}, "rbc::cell_drift"); }

  void output(StepContext& ctx, FieldRegistry& fields) {
    const bool monitor = monitor_ && ctx.step % check_every_ == 0;
    if (!monitor && !(ctx.snapshot_due && writer_)) return;
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
      // sum changes only by what walls and body forces exchange.
      double pc[3] = {0, 0, 0}, speed = 0;
      for (std::size_t c = 0; c < n; ++c) {
        for (int a = 0; a < 3; ++a) pc[a] += double(host_model_.body.mass) * double(vel[a][c]);
        speed += std::sqrt(double(vel[0][c]) * vel[0][c] + double(vel[1][c]) * vel[1][c] + double(vel[2][c]) * vel[2][c]);
      }
      double pf[3] = {0, 0, 0};
      const auto& f = fields.lookup("f");
      for (int q = 1; q < phys::d3q19::Q; ++q) {
        const double s = f.sum(q);
        pf[0] += phys::d3q19::cx(q) * s, pf[1] += phys::d3q19::cy(q) * s, pf[2] += phys::d3q19::cz(q) * s;
      }
      const double mom = units_.density * std::pow(units_.dx, 4) / units_.dt;  // kg m/s per lattice unit
      monitor_.begin(ctx.step, ctx.time);
      monitor_.value(double(n));
      monitor_.value(double(n) * cell_volume_ / double(std::max<std::uint32_t>(mesh_->num_nodes, 1)), 6);
      for (double v : pc) monitor_.value(v * mom, 15);
      for (double v : pf) monitor_.value(v * mom, 15);
      monitor_.value(n ? units_.velocity_to_physical(speed / double(n)) : 0.0, 8);
      monitor_.text(state_checksum());
      for (std::size_t k = 0; k < iolets_.faces().size(); ++k) {
        monitor_.value(entered_[k]);
        monitor_.value(left_[k]);
      }
      monitor_.end();
    }
    if (ctx.snapshot_due && writer_) write_cells(ctx, rows, vel);
  }

  /// The cells' state as one number: per cell, FNV-1a over the bytes of its restart-state
  /// entries (id included), column by column; summed over the cells modulo 2^64, so it
  /// does not depend on the order of the rows (nor, later, on how the cells are spread
  /// over ranks). Equal checksums mean bitwise equal cells.
  std::string state_checksum() const {
    const std::size_t n = table_->size();
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
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(sum));
    return hex;
  }

  template <class Rows, class Velocity>
  void write_cells(StepContext& ctx, Rows& rows, const Velocity& vel) {
    const std::size_t n = count();
    const auto pos = rows("position", 3), ori = rows("orientation", 4), omega = rows("angular_velocity", 3),
               drag = rows("drag", 6);
    const auto ids = table_->get<std::uint32_t>("id").component_to_host(0, n);
    const double dx = mesh_->dx, dt = units_.dt;
    const double newton = units_.density * std::pow(dx, 4) / (dt * dt);
    std::vector<std::array<double, 3>> x(n);
    io::HostField axis{"axis", "1", 3, {}}, scale{"glyph_scale", "m", 3, {}}, v{"velocity", "m/s", 3, {}},
        w{"angular_velocity", "1/s", 3, {}}, q{"orientation", "1", 4, {}}, id{"id", "1", 1, {}},
        fd{"drag_force", "N", 3, {}};
    for (std::size_t c = 0; c < n; ++c) {
      x[c] = to_metres(*mesh_, double(pos[0][c]), double(pos[1][c]), double(pos[2][c]));
      const phys::Quaternion<double> qc{double(ori[0][c]), double(ori[1][c]), double(ori[2][c]), double(ori[3][c])};
      const V n3 = phys::symmetry_axis(qc);
      axis.values.insert(axis.values.end(), {n3.x, n3.y, n3.z});
      scale.values.insert(scale.values.end(), {case_.thickness, case_.diameter, case_.diameter});
      for (int a = 0; a < 3; ++a) v.values.push_back(double(vel[a][c]) * dx / dt);
      for (int a = 0; a < 3; ++a) w.values.push_back(double(omega[a][c]) / dt);
      for (int a = 0; a < 4; ++a) q.values.push_back(double(ori[a][c]));
      for (int a = 0; a < 3; ++a) fd.values.push_back(double(drag[a][c]) * newton);
      id.values.push_back(double(ids[c]));
    }
    writer_->write(ctx.step, ctx.time, x, {axis, scale, v, w, q, id, fd});
  }

  /// Records of the spreading, one per cell; grows with the cells.
  struct Records {
    exec::DeviceArray<SpreadRecord<Real>> array;
    void resize_at_least(exec::Space space, std::size_t n) {
      if (array.size() < n) array = exec::DeviceArray<SpreadRecord<Real>>(space, n + n / 2 + 16);
    }
    SpreadRecord<Real>* data() { return array.data(); }
  };

  CellCase case_;
  LatticeUnits units_;
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
  double next_id_ = 0;       // the id of the next new cell
  std::int64_t inflow_every_ = 1;
  double inflow_haematocrit_ = 0;
  std::uint64_t seed_ = 1, tries_per_cell_ = 1000;
  // NodeCells: how many cells cover each node, and up to cells_per_node of them. At
  // haematocrit 0.45 a node lies in about 3.5 supports on average; more than
  // cells_per_node is rare and gathered from the tiles instead (SpreadDrag).
  static constexpr std::uint32_t cells_per_node = 8;
  static_assert(cells_per_node <= SpreadDrag<Real>::max_per_node);
  exec::DeviceArray<std::uint32_t> node_count_, node_cells_;
  exec::DeviceArray<std::uint32_t> tile_count_, tile_first_;
  std::unique_ptr<exec::Workspace> workspace_;
  int key_bits_ = 1;
  Records records_;
  ParticleTable* table_ = nullptr;
  std::string output_dir_;
  std::int64_t check_every_ = 1;
  bool write_cells_ = true;
  io::SeriesCsv monitor_;
  std::unique_ptr<io::ParticleWriter> writer_;
  double cell_volume_ = 1;
};

class RbcPlugin final : public Plugin {
 public:
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
