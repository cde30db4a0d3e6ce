// wall_shear: the wall shear stress (WSS) at the fluid nodes next to halfway bounce-back
// walls (physics/wall_shear.hpp), and its time statistics over a window: TAWSS, OSI, RRT
// (issue 17). Reads the flow only (kind "output"); files in the run's output folder,
// gathered to rank 0 and listed by global voxel index, so they are the same for any rank
// count. See README.md.
#include <hdf5.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/for_each.hpp"
#include "core/fields/lattice_fields.hpp"
#include "core/geometry/shapes.hpp"
#include "core/geometry/point.hpp"
#include "core/geometry/stl.hpp"
#include "core/geometry/voxelize.hpp"
#include "core/io/hdf5_file.hpp"
#include "core/io/json.hpp"
#include "core/plugin/plugin_api.hpp"
#include "physics/storage16.hpp"
#include "plugins/wall_shear/kernels.hpp"
#include "plugins/wall_shear/node_buckets.hpp"

namespace hemo::wall_shear {

namespace {

namespace fs = std::filesystem;

/// One dataset of a wall_shear file: N values, or N x 3.
struct Column {
  std::string name, unit;
  int components = 1;
  std::vector<double> values;  // row-major, N x components
};

/// The wall nodes of the whole domain in file order (ascending global voxel index), on
/// rank 0: what every file lists before its data.
struct WallNodes {
  std::vector<double> points;         // N x 3, m
  std::vector<std::int32_t> voxel;    // N x 3
  std::vector<double> normal;         // N x 3
  std::vector<std::size_t> order;     // gathered row (rank after rank) of file row p
  std::size_t size() const { return order.size(); }
};

/// Writes <dir>/<stem>.h5 (temporary name, renamed) and <stem>.xdmf beside it: a
/// Polyvertex grid over /points with every column as a node attribute.
void write_file(const std::string& dir, const std::string& stem, const WallNodes& nodes, const std::vector<Column>& columns,
                std::int64_t step, std::int64_t wss_step, double time, double window_start, double window_end,
                std::int64_t samples, const std::string& method) {
  const hsize_t n = nodes.size();
  const hsize_t dims[2] = {n, 3};
  {
    const io::hdf5::Quiet quiet;
    io::hdf5::Output out((fs::path(dir) / (stem + ".h5")).string());
    const std::string metres = "m";
    out.dataset("points", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dims, nodes.points.data(), &metres);
    out.dataset("voxel", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dims, nodes.voxel.data());
    const std::string none = "1";
    out.dataset("normal", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dims, nodes.normal.data(), &none);
    // The Polyvertex topology spelled out: ParaView's XDMF3 reader needs it (field_writer.hpp).
    std::vector<std::int32_t> ids(n);
    std::iota(ids.begin(), ids.end(), 0);
    out.dataset("connectivity", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, dims, ids.data());
    for (const Column& c : columns)
      out.dataset(c.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, c.components == 1 ? 1 : 2, dims, c.values.data(), &c.unit);
    const long long step_value = step, wss_step_value = wss_step, sample_count = samples;
    out.attribute(out.root(), "step", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, &step_value);
    out.attribute(out.root(), "wss_step", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, &wss_step_value);
    out.attribute(out.root(), "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &time);
    out.attribute(out.root(), "window_start", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &window_start);
    out.attribute(out.root(), "window_end", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &window_end);
    out.attribute(out.root(), "samples", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, &sample_count);
    out.string_attribute(out.root(), "method", method);
    out.commit();
  }
  const std::string count = std::to_string(n), h5 = stem + ".h5";
  std::string x = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n";
  x += "    <Grid Name=\"" + stem + "\" GridType=\"Uniform\">\n";
  x += "      <Time Value=\"" + fmt_round_trip(time) + "\"/>\n";
  x += "      <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" + count + "\" NodesPerElement=\"1\">\n";
  x += "        <DataItem Dimensions=\"" + count + "\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">" + h5 +
       ":/connectivity</DataItem>\n      </Topology>\n";
  x += "      <Geometry GeometryType=\"XYZ\">\n        <DataItem Dimensions=\"" + count +
       " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" + h5 + ":/points</DataItem>\n      </Geometry>\n";
  auto attribute = [&](const std::string& name, int components) {
    const bool vec = components == 3;
    x += "      <Attribute Name=\"" + name + "\" AttributeType=\"" + (vec ? "Vector" : "Scalar") + "\" Center=\"Node\">\n";
    x += "        <DataItem Dimensions=\"" + count + (vec ? " 3" : "") + "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" +
         h5 + ":/" + name + "</DataItem>\n      </Attribute>\n";
  };
  attribute("normal", 3);
  for (const Column& c : columns) attribute(c.name, c.components);
  x += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  io::write_file_atomic((fs::path(dir) / (stem + ".xdmf")).string(), x);
}

/// Big-endian bytes of doubles and ints, as legacy binary VTK wants them.
template <class T>
void append_big_endian(std::string& out, T value) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &value, sizeof(T));
  if constexpr (std::endian::native == std::endian::little) std::reverse(b, b + sizeof(T));
  out.append(reinterpret_cast<const char*>(b), sizeof(T));
}

/// For each point, the rows of `nodes` within `radius` of it (ascending), or its nearest
/// row alone where none is that close; radius 0: the nearest row alone.
std::vector<std::vector<std::size_t>> surface_rows(const std::vector<double>& nodes,
                                                   const std::vector<std::array<double, 3>>& points, double radius,
                                                   double dx) {
  std::vector<std::vector<std::size_t>> out(points.size());
  if (nodes.empty()) return out;
  const NodeBuckets buckets(nodes, radius > 0 ? radius : 2.0 * dx);
  for (std::size_t t = 0; t < points.size(); ++t) {
    if (radius > 0) out[t] = buckets.within(points[t].data(), radius);
    if (out[t].empty()) out[t] = {buckets.nearest(points[t].data())};
  }
  return out;
}

class WallShear {
 public:
  virtual ~WallShear() = default;
  virtual void setup(SetupStage& st) = 0;
};

template <class Real>
class WallShearIn final : public WallShear {
 public:
  void setup(SetupStage& st) override {
    const config::Config& cfg = st.config;
    const mesh::SparseMesh& m = st.mesh;
    mesh_ = &m;
    comm_ = &st.comm;
    space_ = st.space;
    dir_ = st.output_dir;
    method_ = cfg.string("wall_shear.method");
    momentum_exchange_ = method_ == "momentum_exchange";
    every_ = cfg.has("wall_shear.every") ? cfg.integer("wall_shear.every") : cfg.integer("output.every");
    sample_every_ = cfg.integer("wall_shear.sample_every");
    window_start_ = cfg.real("wall_shear.window_start");
    surface_radius_ = cfg.real("wall_shear.surface_radius");
    window_end_ = cfg.has("wall_shear.window_end") ? cfg.real("wall_shear.window_end") : std::numeric_limits<double>::infinity();
    if (window_end_ <= window_start_)
      cfg.fail("wall_shear.window_end", str("must be after wall_shear.window_start = ", fmt_g(window_start_), " s"));
    dt_ = st.units.dt;
    to_pascal_ = st.units.density * st.units.dx * st.units.dx / (st.units.dt * st.units.dt);
    find_surface(cfg, st.units.dx);
    halo_ = &st.halo;
    const std::string evaluate = cfg.string("wall_shear.evaluate");
    if (evaluate == "wall" && !surface_normals_)
      cfg.fail("wall_shear.evaluate", "is \"wall\", which needs the stress method and a surface (wall_shear.surface, "
                                      "the case's STL or a pipe's cylinder) with wall_shear.normal not \"links\"");
    at_wall_ = surface_normals_ && evaluate != "node";
    quadratic_ = cfg.string("wall_shear.extrapolation") == "quadratic";

    if (momentum_exchange_ && st.fields.contains("fluid_share"))
      cfg.fail("wall_shear.method", "\"momentum_exchange\" needs halfway bounce-back walls; with lb_vlbm's partial cells "
                                    "the surface runs through the cells: use \"stress\"");
    // The stress method reads the viscous stress that the LB plugin's kernel computes on
    // the steps it is due, at the nodes marked here (Scheduler::require_viscous_stress):
    // the band of nodes the wall's stress is extrapolated from, and the wall nodes that
    // take their own stress. One pass over the populations, not a second gather.
    if (!momentum_exchange_) {
      if (st.scheduler.viscous_stress_provider().empty())
        cfg.fail("wall_shear.method", "is \"stress\", which needs an LB plugin that computes the viscous stress "
                                      "(lb_bgk) in run.plugins before wall_shear");
      stress_ = &st.fields.declare_node_field<Real>("viscous_stress", 6, "wall_shear",
                                                    "viscous stress (lattice units: xx, yy, zz, xy, xz, yz) on the steps "
                                                    "wall_shear samples, at the nodes it reads (0 elsewhere)");
      stress_nodes_ = &st.fields.declare_node_field<std::uint8_t>(
          "viscous_stress_nodes", 1, "wall_shear", "1 where the LB kernel writes viscous_stress for wall_shear");
    }
    find_wall_nodes(m, st.fields);
    if (!momentum_exchange_)
      st.scheduler.require_viscous_stress("wall_shear", [this](std::int64_t step) { return file_due(step) || sample_due(step); });
    // A restarted run continues the checkpoint's sums (wall_shear_sums, restored after
    // set-up: continue_statistics at the first step); the files' window_start says where
    // the sampling began.
    sampled_from_ = window_start_;
    first_step_ = st.first_step;
    log::info(str("wall_shear: ", comm_->sum(std::uint64_t(count_)), " wall nodes (a plain bounce-back link), method \"",
                  method_, "\"; samples every ", sample_every_, " steps in t = [", fmt_g(window_start_), ", ",
                  std::isinf(window_end_) ? std::string("end of run") : fmt_g(window_end_), "] s",
                  every_ > 0 ? str(", wall_shear_<step>.h5 every ", every_, " steps") : std::string()));

    st.scheduler.add(Phase::output, "wall_shear", "wall_shear", [this](StepContext& ctx) {
      if (!restart_checked_) continue_statistics(*ctx.fields);
      if (ctx.stress_due) stress_step_ = ctx.step;
      const bool file = file_due(ctx.step), sample = sample_due(ctx.step);
      if (!file && !sample) return;
      compute(*ctx.fields, ctx.step, sample);
      if (file) write_instant(ctx.step, ctx.time);
    }, Scheduler::Sync::overlapped);  // no wait for the kernel: the next step's first fenced action takes it
    // (A checkpoint follows a step, whose action above continued the statistics.)
    st.scheduler.add_before_checkpoint("wall_shear_sums", "wall_shear", [this](StepContext&) { store_sums(); });
    st.scheduler.add_run_end("wall_shear_stats", "wall_shear", [this](StepContext& ctx) {
      if (!restart_checked_) continue_statistics(*ctx.fields);  // a run of no steps
      // /wss: the last step's, where its stress was computed (every step that computes
      // the moments: the planned last one, an early stop on the wall-clock budget);
      // after a stop by a signal, the last sampled step's (the file's wss_step).
      if (computed_step_ != ctx.step && (momentum_exchange_ || stress_step_ == ctx.step))
        compute(*ctx.fields, ctx.step, false);
      write_statistics(ctx.step, ctx.time);
    });
  }

 private:
  bool file_due(std::int64_t step) const { return every_ > 0 && step % every_ == 0; }
  bool sample_due(std::int64_t step) const {
    const double t = double(step) * dt_;
    return step % sample_every_ == 0 && t >= window_start_ && t <= window_end_;
  }

  /// The vessel wall as triangles, where one is known: wall_shear.surface, the case's STL,
  /// or the cylinder of a "pipe" shape. It gives the wall normals (wall_shear.normal) and
  /// carries the statistics in wall_shear_surface.vtk.
  void find_surface(const config::Config& cfg, double dx) {
    const std::string shape = cfg.string("geometry.shape");
    if (cfg.has("wall_shear.surface") && !cfg.string("wall_shear.surface").empty()) {
      surface_ = cfg.file_path("wall_shear.surface");
      if (!fs::exists(surface_)) cfg.fail("wall_shear.surface", str("'", surface_, "' does not exist"));
      surface_unit_ = cfg.has("wall_shear.surface_unit") ? cfg.string("wall_shear.surface_unit") : cfg.string("geometry.unit");
    } else if (shape == "stl") {
      surface_ = geometry::geometry_file(cfg.section("geometry"));
      surface_unit_ = cfg.string("geometry.unit");
    }
    if (!surface_.empty()) {
      surface_mesh_ = geometry::read_stl(surface_, geometry::length_unit_from_string(surface_unit_));
    } else if (shape == "pipe") {
      // Facets short enough that the facet normals are within pi / segments of the
      // cylinder's (segments >= 8 pi R / dx: four facets per wall node along the rim).
      const double R = cfg.real("geometry.radius"), L = cfg.real("geometry.length");
      const int segments = std::max(64, int(std::ceil(8.0 * M_PI * R / dx)));
      surface_mesh_ = geometry::make_pipe_surface(cfg.vec3("geometry.center"), cfg.vec3("geometry.axis"), R, L, segments,
                                                  false);
      surface_ = str("the cylinder of geometry.shape = \"pipe\" (", segments, " facets around)");
    }
    const std::string normal = cfg.string("wall_shear.normal");
    if (normal == "surface" && !surface_mesh_)
      cfg.fail("wall_shear.normal", "is \"surface\" but there is no surface: give wall_shear.surface (an STL of the "
                                    "vessel wall), or use \"links\"");
    // The momentum exchange keeps the links' normal: the pressure's share of its force
    // lies along exactly that normal (physics/wall_shear.hpp), and any other normal would
    // leak it into the tangential part.
    if (normal == "surface" && cfg.string("wall_shear.method") == "momentum_exchange")
      cfg.fail("wall_shear.normal", "\"surface\" goes with method = \"stress\" only: the momentum exchange needs the "
                                    "links' normal, along which its pressure force lies");
    surface_normals_ = normal != "links" && surface_mesh_.has_value() && cfg.string("wall_shear.method") == "stress";
  }

  /// This rank's wall nodes: owned fluid nodes with at least one pull from the vessel
  /// wall (SparseMesh::pulls_from_wall: halfway or interpolated bounce-back). Other coded
  /// links (iolets, moving walls, obstacles, lb_vlbm's pulls between fluid nodes) are not
  /// walls here. Listed by ascending global voxel index.
  ///
  /// With lb_vlbm's partial cells (its field fluid_share, 1 - P) the surface runs through
  /// the partial layer, and the nodes next to a fully solid voxel lie beyond it, where
  /// the flow is nearly still. There a wall node is a node at least half fluid that pulls
  /// from a solid voxel or from a cell less than half fluid: the first layer inside the
  /// surface.
  void find_wall_nodes(const mesh::SparseMesh& m, FieldRegistry& fields) {
    std::vector<double> share;  // per node, where lb_vlbm runs
    if (fields.contains("fluid_share")) share = fields.lookup("fluid_share").component_to_host(0);
    // The fluid share of the voxel node n pulls direction q from: 0 for a wall, -1 for a
    // boundary's coded link (an iolet or a moving wall: not a wall here).
    auto share_from = [&](int q, std::uint32_t n) -> double {
      if (m.pulls_from_wall(q, n)) return 0.0;
      const std::uint32_t from = m.pulls_from(q, n);
      if (from == mesh::wall_link) return -1.0;
      return share.empty() ? 1.0 : share[from];
    };
    std::vector<std::pair<std::uint64_t, std::uint32_t>> found;  // (voxel, node)
    for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {
      const std::uint32_t n = m.fluid_node(f);
      if (!share.empty() && share[n] < 0.5) continue;
      for (int q = 1; q < d3q19::Q; ++q) {
        const double sf = share_from(q, n);
        if (sf >= 0.0 && sf < 0.5) {
          found.emplace_back(m.voxel_index(n), n);
          break;
        }
      }
    }
    partial_cells_ = !share.empty();
    std::sort(found.begin(), found.end());
    count_ = std::uint32_t(found.size());
    const std::size_t c = count_;
    std::vector<std::uint32_t> node(c), bits(c);
    std::vector<Real> normal(3 * c), area(c);
    std::vector<std::uint64_t> voxel(c);
    std::vector<double> rows(7 * c);  // per node: x, y, z (m), n_x, n_y, n_z, voxel (exact below 2^53)
    // The wall normals: from the surface where there is one (wall_shear.normal), else
    // from the node's wall links. A staircase's link normals scatter about the true
    // normal by O(1) whatever the resolution (mean cosine 0.96-0.97 in a pipe at 6-12
    // nodes per radius), and |WSS| = |sigma n| shrinks by that cosine: docs in README.
    std::vector<geometry::Point> at(c);
    for (std::size_t w = 0; w < c; ++w) at[w] = m.position(found[w].second);
    std::vector<geometry::SurfacePoint> wall;
    if (surface_normals_) wall = geometry::nearest_surface(*surface_mesh_, at, 2.0 * m.dx);
    std::size_t from_links = 0;
    std::vector<phys::Vec3<double>> wall_normals(c);
    for (std::size_t w = 0; w < c; ++w) {
      const std::uint32_t n = found[w].second;
      node[w] = n;
      voxel[w] = found[w].first;
      for (int q = 1; q < d3q19::Q; ++q) {
        if (m.pulls_from_wall(q, n)) bits[w] |= 1u << q;
      }
      phys::Vec3<double> nd = phys::wall_normal<double>(bits[w]);
      if (partial_cells_) {
        // Into the fluid along the fluid share's gradient: sum over q of w_q c_q times the
        // share of the voxel at x + c_q (from which x pulls direction opp(q)); 0 for a wall.
        phys::Vec3<double> g{0.0, 0.0, 0.0};
        for (int q = 1; q < d3q19::Q; ++q) {
          const double sf = std::max(0.0, share_from(d3q19::opposite(q), n));
          const double wq = d3q19::w<double>(q) * sf;
          g = {g.x + wq * d3q19::cx(q), g.y + wq * d3q19::cy(q), g.z + wq * d3q19::cz(q)};
        }
        const double len = std::sqrt(phys::dot(g, g));
        if (len > 0.0) nd = (1.0 / len) * g;
      }
      if (surface_normals_) {
        const geometry::Point sn = wall[w].normal;
        const double along = sn[0] * nd.x + sn[1] * nd.y + sn[2] * nd.z;
        if (std::isfinite(wall[w].distance) && along != 0.0) {
          const double sign = along > 0.0 ? 1.0 : -1.0;  // into the fluid, as the links say
          nd = {sign * sn[0], sign * sn[1], sign * sn[2]};
        } else {
          ++from_links;
        }
      }
      for (int a = 0; a < 3; ++a) normal[a * c + w] = Real(nd[a]);
      wall_normals[w] = nd;
      area[w] = Real(phys::wall_face_area(bits[w], nd));
      const auto x = m.position(n);
      for (int a = 0; a < 3; ++a) {
        rows[7 * w + a] = x[a];
        rows[7 * w + 3 + a] = nd[a];
      }
      rows[7 * w + 6] = double(voxel[w]);
    }
    if (surface_normals_)
      log::info(str("wall_shear: wall normals from ", surface_, comm_->sum(std::uint64_t(from_links)) > 0
                        ? str("; ", comm_->sum(std::uint64_t(from_links)), " wall nodes with no surface within 2 dx keep their links' normal")
                        : std::string()));
    // The nodes whose stress the stress method reads: the band and the wall nodes that
    // keep their own stress, or every wall node (evaluate = "node").
    if (at_wall_) mark_stress_nodes(find_band(m, fields, node, wall_normals, wall));
    else if (!momentum_exchange_) mark_stress_nodes(node);
    node_ = exec::to_device(space_, node);
    bits_ = exec::to_device(space_, bits);
    normal_ = exec::to_device(space_, normal);
    area_ = exec::to_device(space_, area);
    wss_ = exec::DeviceArray<double>(space_, 3 * c);
    sum_magnitude_ = exec::DeviceArray<double>(space_, c);
    sum_vector_ = exec::DeviceArray<double>(space_, 3 * c);
    wss_.zero();
    sum_magnitude_.zero();
    sum_vector_.zero();
    wall_node_host_ = node;
    // The time integrals, copied at each checkpoint into a node field that checkpoints
    // keep (optional restart state: a run continued from a checkpoint written without
    // wall_shear starts them afresh); the kernel adds to the arrays over the wall nodes.
    sums_ = &fields.declare_node_field<double>("wall_shear_sums", 4, "wall_shear",
                                               "sum |WSS| dt and sum WSS dt (x, y, z) at the wall nodes as of the last "
                                               "checkpoint, Pa s (0 elsewhere)")
                 .set_optional_restart_state();

    // Rank 0: every rank's wall nodes and the file order (ascending voxel index).
    const std::vector<double> all = comm_->gather<double>(rows, 0);
    if (comm_->rank() != 0) return;
    const std::size_t total = all.size() / 7;
    std::vector<std::size_t> order(total);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all[7 * a + 6] < all[7 * b + 6]; });
    nodes_.order = order;
    nodes_.points.resize(3 * total);
    nodes_.normal.resize(3 * total);
    nodes_.voxel.resize(3 * total);
    for (std::size_t p = 0; p < total; ++p) {
      const std::size_t r = order[p];
      const auto ijk = m.voxel_coordinates(std::uint64_t(all[7 * r + 6]));
      for (int a = 0; a < 3; ++a) nodes_.voxel[3 * p + a] = ijk[a];
      for (int a = 0; a < 3; ++a) {
        nodes_.points[3 * p + a] = all[7 * r + a];
        nodes_.normal[3 * p + a] = all[7 * r + 3 + a];
      }
    }
  }

  /// The surface below each of `points` (m), searched within `reach` dx: the distance in
  /// dx (infinity: none within reach) and the triangle's unit normal turned towards the
  /// point, which is in the fluid (the STL's own orientation is not trusted).
  std::vector<std::pair<double, phys::Vec3<double>>> surface_below(const std::vector<geometry::Point>& points,
                                                                   double dx, double reach) const {
    const geometry::TriangleMesh& mesh = *surface_mesh_;
    const std::vector<geometry::SurfacePoint> hit = geometry::nearest_surface(mesh, points, reach * dx);
    std::vector<std::pair<double, phys::Vec3<double>>> out(points.size());
    for (std::size_t p = 0; p < points.size(); ++p) {
      out[p].first = std::numeric_limits<double>::infinity();
      if (hit[p].triangle < 0 || !std::isfinite(hit[p].distance)) continue;
      const geometry::Point& v = mesh.vertices[mesh.triangles[std::size_t(hit[p].triangle)][0]];
      const geometry::Point& sn = hit[p].normal;
      const double side = (points[p][0] - v[0]) * sn[0] + (points[p][1] - v[1]) * sn[1] + (points[p][2] - v[2]) * sn[2];
      const double sign = side >= 0.0 ? 1.0 : -1.0;
      out[p] = {hit[p].distance / dx, {sign * sn[0], sign * sn[1], sign * sn[2]}};
    }
    return out;
  }

  /// The fluid neighbours x + c_q of node n (owned) whose direction is within the angle
  /// of `inward` that `min_cosine` sets, with their cosines, by direction q.
  static std::vector<std::pair<std::uint32_t, double>> fluid_neighbours(const mesh::SparseMesh& m, std::uint32_t n,
                                                                        const phys::Vec3<double>& inward,
                                                                        double min_cosine) {
    std::vector<std::pair<std::uint32_t, double>> out;
    for (int q = 1; q < d3q19::Q; ++q) {
      const double cx = d3q19::cx(q), cy = d3q19::cy(q), cz = d3q19::cz(q);
      const double cosine = (cx * inward.x + cy * inward.y + cz * inward.z) / std::sqrt(cx * cx + cy * cy + cz * cz);
      if (cosine < min_cosine) continue;
      const std::uint32_t from = m.pulls_from(d3q19::opposite(q), n);  // x + c_q
      if (from != mesh::wall_link) out.emplace_back(from, cosine);
    }
    return out;
  }

  /// The fluid neighbour of node n closest in direction to `inward` (largest cosine, ties
  /// to the lower q), or no_inner where none points into the fluid.
  static std::uint32_t neighbour_along(const mesh::SparseMesh& m, std::uint32_t n, const phys::Vec3<double>& inward) {
    const auto all = fluid_neighbours(m, n, inward, 1e-12);
    const auto best = std::max_element(all.begin(), all.end(), [](const auto& a, const auto& b) {
      return a.second + 1e-12 < b.second;  // the first of equal cosines stays the largest
    });
    return best == all.end() ? no_inner : best->first;
  }

  /// The fluid neighbours within 45 degrees of `inward`, at most inner_rows of them.
  static std::vector<std::pair<std::uint32_t, double>> neighbours_around(const mesh::SparseMesh& m, std::uint32_t n,
                                                                         const phys::Vec3<double>& inward) {
    auto out = fluid_neighbours(m, n, inward, std::sqrt(0.5) - 1e-12);
    if (out.size() > std::size_t(inner_rows)) out.resize(inner_rows);
    return out;
  }

  /// evaluate = "wall": each wall node's WSS from the stress extrapolated to the wall
  /// from the layers inside, not from its own stress (physics/wall_shear.hpp,
  /// wall_stress_extrapolated, wall_traction_quadratic). Sets of owned nodes, from the
  /// surface distance d (dx) alone, so that every rank makes the same choice for the
  /// nodes it owns and a wall node's inner node on another rank is computed there (the
  /// values do not depend on the partition):
  ///   - inner nodes (sqrt 3 / 2 <= d <= inner_reach): the traction at the wall below
  ///     them, which the wall nodes average;
  ///   - traction nodes (sqrt 3 / 2 <= d <= traction_reach): j, its neighbour j' along
  ///     its surface normal, and the traction sigma_w(j) . n_j at the wall below j,
  ///     extrapolated linearly from the stress of j and j'. With extrapolation =
  ///     "linear" they are the inner nodes; with "quadratic" they reach 1.5 dx further
  ///     (above sqrt 2, so every inner node's j' is one), and each inner node combines
  ///     its linear traction with its j''s (WallTractionQuadratic);
  ///   - band nodes (sqrt 3 / 2 <= d <= traction_reach + 1.5, so every j' of a traction
  ///     node is one, and no node nearer the wall, which none reads): the stress;
  ///   - each wall node takes the traction of its neighbours around its normal (d below
  ///     sqrt 2 + 1.5 for a staircase or lb_vlbm wall node, so inner nodes).
  /// Candidates are the owned nodes within a few links of a wall node or of another
  /// rank's nodes (where another rank's wall may be near), searched for the surface.
  /// viscous_stress_nodes: 1 at `read`, 0 elsewhere.
  void mark_stress_nodes(const std::vector<std::uint32_t>& read) {
    std::vector<std::uint8_t> wanted(stress_nodes_->stride(), 0);
    for (const std::uint32_t n : read) wanted[n] = 1;
    stress_nodes_->array().upload(wanted);
  }

  /// Returns the nodes whose stress the extrapolation reads: the band, and the wall nodes
  /// without an inner node (their own stress).
  std::vector<std::uint32_t> find_band(const mesh::SparseMesh& m, FieldRegistry& fields, const std::vector<std::uint32_t>& wall_nodes,
                 const std::vector<phys::Vec3<double>>& wall_normals, const std::vector<geometry::SurfacePoint>& wall) {
    constexpr double inner_reach = 3.0;
    const double traction_reach = quadratic_ ? inner_reach + 1.5 : inner_reach, band_reach = traction_reach + 1.5;
    // Inner nodes' voxels lie wholly inside the surface (d >= sqrt(3)/2 dx): with lb_vlbm
    // a node nearer may be a partial cell, whose populations mix in the solid's; on a
    // staircase it is a node of the steps (the axis pipe at 20 nodes per radius: -1.2%
    // with this bound, -1.6% without; CPU, 2026-11-26).
    const double inner_from = 0.5 * std::sqrt(3.0);
    auto is_inner = [&](double d) { return d >= inner_from && d <= inner_reach; };
    const int links = int(std::ceil(band_reach)) + 2;  // enough links to reach band_reach along any path
    const double dx = m.dx;
    // Breadth-first over owned fluid nodes from the wall and edge nodes, `links` deep.
    std::vector<std::int8_t> depth(m.num_nodes, -1);
    std::vector<std::uint32_t> queue;
    auto seed = [&](std::uint32_t n) {
      if (depth[n] < 0) {
        depth[n] = 0;
        queue.push_back(n);
      }
    };
    for (const std::uint32_t n : wall_nodes) seed(n);
    for (std::uint32_t n = m.num_interior; n < m.num_nodes; ++n)
      if (m.is_fluid(n)) seed(n);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint32_t n = queue[head];
      if (depth[n] >= links) continue;
      for (int q = 1; q < d3q19::Q; ++q) {
        const std::uint32_t from = m.pulls_from(q, n);
        if (from == mesh::wall_link || from >= m.num_nodes || depth[from] >= 0) continue;
        depth[from] = std::int8_t(depth[n] + 1);
        queue.push_back(from);
      }
    }
    std::sort(queue.begin(), queue.end());
    std::vector<geometry::Point> at(queue.size());
    for (std::size_t p = 0; p < queue.size(); ++p) at[p] = m.position(queue[p]);
    const auto below = surface_below(at, dx, band_reach);

    std::vector<std::uint32_t> band, traction, outer;
    std::vector<double> traction_d;
    std::vector<phys::Vec3<double>> traction_n;
    for (std::size_t p = 0; p < queue.size(); ++p) {
      const double d = below[p].first;
      // Only where a traction node's stress or its outer neighbour's may be read: the band
      // once began at the wall (aorta: 207,245 band nodes, then 141,214; the files unchanged).
      if (!(d >= inner_from && d <= band_reach)) continue;
      band.push_back(queue[p]);
      if (d > traction_reach) continue;
      traction.push_back(queue[p]);
      traction_d.push_back(d);
      traction_n.push_back(below[p].second);
      outer.push_back(neighbour_along(m, queue[p], below[p].second));
    }
    // The outer nodes' distances (some are halo nodes: their owner computes their stress).
    std::vector<geometry::Point> outer_at;
    for (const std::uint32_t o : outer)
      if (o != no_inner) outer_at.push_back(m.position(o));
    const auto outer_below = surface_below(outer_at, dx, band_reach + 2.0);
    const std::size_t nt = traction.size();
    std::vector<Real> reach(nt), normal(3 * nt), depth_product(nt);
    std::vector<std::uint32_t> inner, inner_outer;  // the inner nodes among them, and their j'
    std::size_t skipped = 0;
    for (std::size_t a = 0, o = 0; a < nt; ++a) {
      double r = 0.0, far = 0.0;
      if (outer[a] != no_inner) {
        far = outer_below[o++].first;
        // Less than 0.3 dx further from the wall (a thin vessel's far side): no slope.
        if (std::isfinite(far) && far - traction_d[a] >= 0.3) r = traction_d[a] / (far - traction_d[a]);
      }
      if (r == 0.0) {
        outer[a] = traction[a];
        if (is_inner(traction_d[a])) ++skipped;
      }
      reach[a] = Real(r);
      depth_product[a] = Real(r == 0.0 ? -1.0 : traction_d[a] * far);
      for (int k = 0; k < 3; ++k) normal[k * nt + a] = Real(traction_n[a][k]);
      if (is_inner(traction_d[a])) {
        inner.push_back(traction[a]);
        inner_outer.push_back(outer[a]);
      }
    }
    const std::size_t ni = inner.size();
    // Each wall node's inner nodes: its fluid neighbours within 45 degrees of its
    // (surface) normal, weighted by the cosine; the staircase's scatter node to node
    // averages out over them.
    const std::size_t c = wall_nodes.size();
    std::vector<std::uint32_t> wall_inner(inner_rows * c, no_inner);
    std::vector<Real> wall_weight(inner_rows * c, Real(0));
    std::size_t without = 0;
    std::vector<std::uint32_t> own;  // wall nodes that keep their own stress
    // Only neighbours that are inner nodes (their owner fills their traction): the same
    // test on the same distances on every rank.
    std::vector<std::vector<std::pair<std::uint32_t, double>>> arounds(c);
    std::vector<geometry::Point> around_at;
    for (std::size_t w = 0; w < c; ++w) {
      if (std::isfinite(wall[w].distance)) arounds[w] = neighbours_around(m, wall_nodes[w], wall_normals[w]);
      for (const auto& [j, cosine] : arounds[w]) around_at.push_back(m.position(j));
    }
    const auto around_below = surface_below(around_at, dx, band_reach);
    for (std::size_t w = 0, k = 0; w < c; ++w) {
      std::vector<std::pair<std::uint32_t, double>> around;
      for (const auto& jc : arounds[w])
        if (is_inner(around_below[k++].first)) around.push_back(jc);
      double total = 0.0;
      for (const auto& [j, cosine] : around) total += cosine;
      for (std::size_t r = 0; r < around.size(); ++r) {
        wall_inner[r * c + w] = around[r].first;
        wall_weight[r * c + w] = Real(around[r].second / total);
      }
      if (around.empty()) {
        ++without;
        own.push_back(wall_nodes[w]);  // its own stress is read
      }
    }
    traction_count_ = std::uint32_t(nt);
    traction_node_ = exec::to_device(space_, traction);
    traction_outer_ = exec::to_device(space_, outer);
    traction_reach_ = exec::to_device(space_, reach);
    traction_normal_ = exec::to_device(space_, normal);
    wall_inner_ = exec::to_device(space_, wall_inner);
    wall_weight_ = exec::to_device(space_, wall_weight);
    wall_traction_ = &fields.declare_node_field<Real>("wall_shear_wall_traction", 3, "wall_shear",
                                                      "traction (lattice units) at the wall below each inner node "
                                                      "(0 elsewhere)");
    if (quadratic_) {
      traction_depth_product_ = exec::to_device(space_, depth_product);
      inner_count_ = std::uint32_t(ni);
      inner_node_ = exec::to_device(space_, inner);
      inner_outer_ = exec::to_device(space_, inner_outer);
      linear_traction_ = &fields.declare_node_field<Real>(
          "wall_shear_linear_traction", 4, "wall_shear",
          "traction (lattice units) at the wall below each traction node, extrapolated linearly, and the product "
          "of the two depths it was extrapolated from (0 elsewhere)");
    }
    log::info(str("wall_shear: stress extrapolated ", quadratic_ ? "quadratically" : "linearly", " to the wall at ",
                  comm_->sum(std::uint64_t(ni)), " inner nodes (", comm_->sum(std::uint64_t(skipped)),
                  " without a node further in: their own stress)",
                  quadratic_ ? str(" from ", comm_->sum(std::uint64_t(nt)), " traction nodes") : std::string(), " over ",
                  comm_->sum(std::uint64_t(band.size())), " band nodes; ", comm_->sum(std::uint64_t(without)),
                  " wall nodes without an inner node keep their own stress"));
    band.insert(band.end(), own.begin(), own.end());
    return band;
  }

  /// The WSS of every wall node after `step`; with `sample`, added to the statistics.
  /// At a restart's first step: the samples and time the restored sums hold, counted
  /// as the uninterrupted run took them (the same rule, the same additions: bitwise), or,
  /// from a checkpoint written without wall_shear, a window that starts at the restart.
  void continue_statistics(const FieldRegistry& fields) {
    restart_checked_ = true;
    if (first_step_ == 0) return;
    if (!fields.lookup("wall_shear_sums").restored()) {
      sampled_from_ = std::max(window_start_, double(first_step_) * dt_);
      log::warn(str("wall_shear: the checkpoint holds no statistics (written without wall_shear): this run samples "
                    "them from step ", first_step_ + 1, " (t = ", fmt_g(double(first_step_) * dt_),
                    " s) on, inside the window"));
      return;
    }
    // The sums the checkpoint held, from the node field into the arrays over the wall nodes.
    std::vector<double> mag(count_), vec(3 * std::size_t(count_));
    for (int a = 0; a < 4; ++a) {
      const std::vector<double> row = sums_->component_to_host(a);
      for (std::size_t w = 0; w < count_; ++w)
        (a == 0 ? mag[w] : vec[std::size_t(a - 1) * count_ + w]) = row[wall_node_host_[w]];
    }
    sum_magnitude_.upload(mag);
    sum_vector_.upload(vec);
    for (std::int64_t s = 1; s <= first_step_; ++s) {
      const double t = double(s) * dt_;
      if (s % sample_every_ == 0 && t >= window_start_ && t <= window_end_) {
        total_time_ += double(sample_every_) * dt_;
        ++samples_;
      }
    }
    log::info(str("wall_shear: the statistics continue from the checkpoint: ", samples_, " samples over ",
                  fmt_g(total_time_), " s before step ", first_step_ + 1, " (wall_shear.window_* and sample_every "
                  "must be the run's before the restart)"));
  }

  /// The sums over the wall nodes into the node field wall_shear_sums, for a checkpoint.
  void store_sums() {
    const std::vector<double> mag = sum_magnitude_.to_host(), vec = sum_vector_.to_host();
    const std::size_t s = sums_->stride();
    std::vector<double> rows(4 * s, 0.0);
    for (std::size_t w = 0; w < count_; ++w) {
      rows[wall_node_host_[w]] = mag[w];
      for (int a = 0; a < 3; ++a) rows[std::size_t(a + 1) * s + wall_node_host_[w]] = vec[std::size_t(a) * count_ + w];
    }
    static_cast<Field<double>*>(sums_)->array().upload(rows);
  }

  /// The WSS of every wall node at `step` (from the stress the step's LB kernel wrote, or
  /// the populations it left); with `sample`, added to the statistics.
  void compute(FieldRegistry& fields, std::int64_t step, bool sample) {
    computed_step_ = step;
    const double weight = double(sample_every_) * dt_;  // the rectangle rule: each sample stands for sample_every steps
    if (sample) {
      total_time_ += weight;
      ++samples_;
    }
    if (!count_) return;
    const std::uint32_t stride = mesh_->stride;
    if (at_wall_) {
      // The inner nodes' traction at the wall from the band's stress, each with its halo
      // from the ranks that own the nodes across.
      // With extrapolation = "quadratic" the linear tractions of the traction nodes first,
      // then the inner nodes' from theirs and their outer nodes'.
      if (halo_->active()) halo_->exchange(*stress_);
      Field<Real>& linear = quadratic_ ? *linear_traction_ : *wall_traction_;
      exec::for_each(space_, {0, traction_count_},
                     WallTraction<Real>{stress_->data(), stride, traction_node_.data(), traction_outer_.data(),
                                        traction_reach_.data(), traction_normal_.data(), traction_count_, linear.data(),
                                        quadratic_ ? traction_depth_product_.data() : nullptr},
                     "wall_shear::wall_traction");
      if (quadratic_) {
        if (halo_->active()) halo_->exchange(linear);
        exec::for_each(space_, {0, inner_count_},
                       WallTractionQuadratic<Real>{linear.data(), stride, inner_node_.data(), inner_outer_.data(),
                                                   wall_traction_->data()},
                       "wall_shear::wall_traction_quadratic");
      }
      if (halo_->active()) halo_->exchange(*wall_traction_);
    }
    const mesh::PopulationState state = mesh::population_state(fields.lookup("f").in_place(), step);
    visit_populations<Real>(fields, "f", [&](auto& f) {
      using Store = typename std::remove_cvref_t<decltype(f)>::value_type;
      WallShearStress<Real, Store> kernel{momentum_exchange_,
                                          f.data(),
                                          state,
                                          stress_ ? stress_->data() : nullptr,
                                          stride,
                                          node_.data(),
                                          bits_.data(),
                                          normal_.data(),
                                          area_.data(),
                                          at_wall_ ? wall_inner_.data() : nullptr,
                                          at_wall_ ? wall_weight_.data() : nullptr,
                                          at_wall_ ? wall_traction_->data() : nullptr,
                                          count_,
                                          to_pascal_,
                                          wss_.data(),
                                          sample,
                                          weight,
                                          sum_magnitude_.data(),
                                          sum_vector_.data()};
      exec::for_each(space_, {0, count_}, kernel, "wall_shear::wall_shear_stress");
    });
  }

  /// An array of `components` rows of count_ on the device, gathered to rank 0 in file
  /// order, node-major (N x components). Collective.
  std::vector<double> gathered(const exec::DeviceArray<double>& rows, int components) {
    const std::vector<double> local = rows.to_host();
    std::vector<double> mine(std::size_t(count_) * components);
    for (std::size_t w = 0; w < count_; ++w)
      for (int a = 0; a < components; ++a) mine[w * components + a] = local[std::size_t(a) * count_ + w];
    const std::vector<double> all = comm_->gather<double>(mine, 0);
    if (comm_->rank() != 0) return {};
    std::vector<double> out(all.size());
    for (std::size_t p = 0; p < nodes_.size(); ++p)
      for (int a = 0; a < components; ++a) out[p * components + a] = all[nodes_.order[p] * components + a];
    return out;
  }

  static std::vector<double> magnitudes(const std::vector<double>& v) {
    std::vector<double> out(v.size() / 3);
    for (std::size_t p = 0; p < out.size(); ++p)
      out[p] = std::sqrt(v[3 * p] * v[3 * p] + v[3 * p + 1] * v[3 * p + 1] + v[3 * p + 2] * v[3 * p + 2]);
    return out;
  }

  double window_end_written(double time) const { return std::min(window_end_, time); }

  void write_instant(std::int64_t step, double time) {
    std::vector<double> wss = gathered(wss_, 3);
    if (comm_->rank() != 0) return;
    std::vector<Column> columns;
    columns.push_back({"wss_magnitude", "Pa", 1, magnitudes(wss)});
    columns.push_back({"wss", "Pa", 3, std::move(wss)});
    char stem[48];
    std::snprintf(stem, sizeof stem, "wall_shear_%08lld", static_cast<long long>(step));
    write_file(dir_, stem, nodes_, columns, step, step, time, sampled_from_, window_end_written(time), samples_, method_);
  }

  /// TAWSS = (1/T) int |tau| dt, mean WSS = (1/T) int tau dt,
  /// OSI = (1 - |int tau dt| / int |tau| dt) / 2 (Ku et al. 1985; He & Ku 1996),
  /// RRT = 1 / ((1 - 2 OSI) TAWSS) = T / |int tau dt| (Himburg et al. 2004).
  void write_statistics(std::int64_t step, double time) {
    std::vector<double> wss = gathered(wss_, 3);
    const std::vector<double> sum_mag = gathered(sum_magnitude_, 1);
    const std::vector<double> sum_vec = gathered(sum_vector_, 3);
    if (comm_->rank() != 0) return;
    const std::size_t n = nodes_.size();
    if (samples_ == 0)
      log::warn(str("wall_shear: no sample fell in the window t = [", fmt_g(window_start_), ", ", fmt_g(window_end_),
                    "] s before the run ended at t = ", fmt_g(time), " s: the statistics are NaN"));
    const double T = total_time_, nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> tawss(n), osi(n), rrt(n), mean(3 * n);
    for (std::size_t p = 0; p < n; ++p) {
      const double ix = sum_vec[3 * p], iy = sum_vec[3 * p + 1], iz = sum_vec[3 * p + 2];
      const double net = std::sqrt(ix * ix + iy * iy + iz * iz), gross = sum_mag[p];
      tawss[p] = T > 0 ? gross / T : nan;
      for (int a = 0; a < 3; ++a) mean[3 * p + a] = T > 0 ? sum_vec[3 * p + a] / T : nan;
      // No shear at all (a node whose WSS is exactly zero): nothing oscillates, OSI = 0.
      osi[p] = T > 0 ? (gross > 0 ? 0.5 * (1.0 - net / gross) : 0.0) : nan;
      rrt[p] = T > 0 && net > 0 ? T / net : (T > 0 ? std::numeric_limits<double>::infinity() : nan);
    }
    std::vector<Column> columns;
    columns.push_back({"wss_magnitude", "Pa", 1, magnitudes(wss)});
    columns.push_back({"wss", "Pa", 3, std::move(wss)});
    columns.push_back({"tawss", "Pa", 1, tawss});
    columns.push_back({"osi", "1", 1, osi});
    columns.push_back({"rrt", "1/Pa", 1, rrt});
    columns.push_back({"mean_wss", "Pa", 3, mean});
    write_file(dir_, "wall_shear_stats", nodes_, columns, step, computed_step_, time, sampled_from_, window_end_written(time), samples_,
               method_);
    log::info(str("wall_shear: wall_shear_stats.h5: ", samples_, " samples over ", fmt_g(T), " s, ", n, " wall nodes"));
    write_surface(tawss, mean);
  }

  /// wall_shear_surface.vtk: the surface's triangles (m) with, as CELL_DATA (legacy VTK,
  /// binary), the statistics of the wall nodes within wall_shear.surface_radius of each
  /// triangle's centroid: their TAWSS and mean WSS averaged, and the OSI and RRT of those
  /// averages (the nearest node's where none is that close, or the radius is 0).
  void write_surface(const std::vector<double>& tawss, const std::vector<double>& mean) {
    if (!surface_mesh_) {
      log::info("wall_shear: no surface to map the statistics onto (geometry.shape is not \"stl\" and "
                "wall_shear.surface is not set): no wall_shear_surface.vtk");
      return;
    }
    if (nodes_.size() == 0) {
      log::warn("wall_shear: no wall nodes: no wall_shear_surface.vtk");
      return;
    }
    const geometry::TriangleMesh& surface = *surface_mesh_;
    std::vector<std::array<double, 3>> centroids(surface.size());
    for (std::size_t t = 0; t < surface.size(); ++t)
      for (int a = 0; a < 3; ++a)
        centroids[t][a] = (surface.vertices[surface.triangles[t][0]][a] + surface.vertices[surface.triangles[t][1]][a] +
                           surface.vertices[surface.triangles[t][2]][a]) /
                          3.0;
    const std::vector<std::vector<std::size_t>> near =
        surface_rows(nodes_.points, centroids, surface_radius_ * mesh_->dx, mesh_->dx);
    // Per triangle: TAWSS and mean WSS averaged over its nodes (rows ascending: the same
    // sums on any rank count), OSI = (1 - |mean| / TAWSS) / 2, RRT = 1 / |mean|.
    const std::size_t m = surface.size();
    std::vector<double> t_tawss(m), t_osi(m), t_rrt(m), t_mean(3 * m);
    for (std::size_t t = 0; t < m; ++t) {
      double g = 0.0, v[3] = {0.0, 0.0, 0.0};
      for (const std::size_t r : near[t]) {
        g += tawss[r];
        for (int a = 0; a < 3; ++a) v[a] += mean[3 * r + a];
      }
      const double k = double(near[t].size());
      g /= k;
      for (int a = 0; a < 3; ++a) t_mean[3 * t + a] = v[a] / k;
      const double net = std::sqrt(t_mean[3 * t] * t_mean[3 * t] + t_mean[3 * t + 1] * t_mean[3 * t + 1] +
                                   t_mean[3 * t + 2] * t_mean[3 * t + 2]);
      t_tawss[t] = g;
      t_osi[t] = std::isnan(g) ? g : (g > 0 ? 0.5 * (1.0 - net / g) : 0.0);
      t_rrt[t] = std::isnan(g) ? g : (net > 0 ? 1.0 / net : std::numeric_limits<double>::infinity());
    }
    std::string v = "# vtk DataFile Version 3.0\nhemoflow wall_shear statistics (the wall nodes near each triangle, averaged)\nBINARY\n"
                    "DATASET POLYDATA\n";
    v += str("POINTS ", surface.vertices.size(), " double\n");
    for (const auto& p : surface.vertices)
      for (int a = 0; a < 3; ++a) append_big_endian(v, p[a]);
    v += str("\nPOLYGONS ", surface.size(), " ", 4 * surface.size(), "\n");
    for (const auto& t : surface.triangles) {
      append_big_endian(v, std::int32_t(3));
      for (int a = 0; a < 3; ++a) append_big_endian(v, std::int32_t(t[a]));
    }
    v += str("\nCELL_DATA ", surface.size(), "\n");
    auto scalars = [&](const char* name, const std::vector<double>& values) {
      v += str("SCALARS ", name, " double 1\nLOOKUP_TABLE default\n");
      for (const double x : values) append_big_endian(v, x);
      v += "\n";
    };
    scalars("tawss", t_tawss);
    scalars("osi", t_osi);
    scalars("rrt", t_rrt);
    v += "VECTORS mean_wss double\n";
    for (const double x : t_mean) append_big_endian(v, x);
    v += "\n";
    io::write_file_atomic((fs::path(dir_) / "wall_shear_surface.vtk").string(), v);
    log::info(str("wall_shear: wall_shear_surface.vtk: ", surface.size(), " triangles of ", surface_));
  }

  const mesh::SparseMesh* mesh_ = nullptr;
  comm::Communicator* comm_ = nullptr;
  exec::Space space_ = exec::Space::host;
  std::string dir_, method_, surface_, surface_unit_;
  std::optional<geometry::TriangleMesh> surface_mesh_;
  bool surface_normals_ = false;
  bool partial_cells_ = false;  // lb_vlbm runs: wall nodes are the first layer inside the surface
  bool momentum_exchange_ = false;
  double surface_radius_ = 2.0;  // lattice spacings: wall_shear_surface.vtk's neighbourhood of a triangle
  std::int64_t every_ = 0, sample_every_ = 1, samples_ = 0, computed_step_ = -1, first_step_ = 0, stress_step_ = -1;
  double window_start_ = 0.0, window_end_ = 0.0, sampled_from_ = 0.0, dt_ = 0.0, to_pascal_ = 0.0, total_time_ = 0.0;
  std::uint32_t count_ = 0;
  exec::DeviceArray<std::uint32_t> node_, bits_;
  exec::DeviceArray<Real> normal_, area_;
  exec::DeviceArray<double> wss_, sum_magnitude_, sum_vector_;
  FieldBase* sums_ = nullptr;                  // wall_shear_sums (4 rows of double), for checkpoints
  std::vector<std::uint32_t> wall_node_host_;  // each wall node's mesh node
  bool restart_checked_ = false;
  // evaluate = "wall" (find_band)
  bool at_wall_ = false;
  HaloExchange* halo_ = nullptr;
  bool quadratic_ = true;  // wall_shear.extrapolation
  std::uint32_t traction_count_ = 0, inner_count_ = 0;
  exec::DeviceArray<std::uint32_t> traction_node_, traction_outer_, inner_node_, inner_outer_, wall_inner_;
  exec::DeviceArray<Real> traction_reach_, traction_normal_, traction_depth_product_, wall_weight_;
  // The stress method: the LB kernel's viscous stress and where it is wanted (setup).
  Field<Real>* stress_ = nullptr;
  Field<std::uint8_t>* stress_nodes_ = nullptr;
  Field<Real>* wall_traction_ = nullptr;
  Field<Real>* linear_traction_ = nullptr;  // extrapolation = "quadratic"
  WallNodes nodes_;  // rank 0
};

class WallShearPlugin final : public Plugin {
 public:
  void plan(PlanStage& st) override {
    // WallShearIn::setup: per wall node (an owned node with a plain bounce-back pull) its
    // index, link bits, normal, area, its WSS and time sums (7 doubles); the sums also in a
    // node field (4 doubles a node, kept in checkpoints); with the stress method the node
    // fields of the LB kernel's viscous stress and where it is wanted; evaluated at the
    // wall, the node field of the wall's traction and per inner node (about 3 layers)
    // its tables.
    const mesh::SparseMesh& m = st.mesh;
    std::uint64_t wall = 0;
    for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {
      const std::uint32_t n = m.fluid_node(f);
      for (int q = 1; q < d3q19::Q; ++q)
        if (m.pulls_from_wall(q, n)) {
          ++wall;
          break;
        }
    }
    const std::size_t real = st.precision == Precision::fp32 ? 4 : 8;
    st.memory.array("wall_shear", "wall node tables", wall, 2 * sizeof(std::uint32_t) + 4 * real + 7 * sizeof(double));
    st.memory.node_field("wall_shear", "wall_shear_sums", 4, sizeof(double));
    const config::Config& cfg = st.config;
    if (cfg.string("wall_shear.method") == "stress") {
      st.memory.node_field("wall_shear", "viscous_stress", 6, real);
      st.memory.node_field("wall_shear", "viscous_stress_nodes", 1, 1);
    }
    const std::string shape = cfg.string("geometry.shape");
    const bool surface = (cfg.has("wall_shear.surface") && !cfg.string("wall_shear.surface").empty()) || shape == "stl" ||
                         shape == "pipe";
    const bool at_wall = surface && cfg.string("wall_shear.normal") != "links" &&
                         cfg.string("wall_shear.method") == "stress" && cfg.string("wall_shear.evaluate") != "node";
    if (!at_wall) return;
    st.memory.node_field("wall_shear", "wall_shear_wall_traction", 3, real);
    const bool quadratic = cfg.string("wall_shear.extrapolation") == "quadratic";
    if (quadratic) st.memory.node_field("wall_shear", "wall_shear_linear_traction", 4, real);
    // Per wall node about 3 layers of inner nodes (with "quadratic" about 4.5 of traction
    // nodes, each with a depth product, and the inner nodes' two indices again).
    st.memory.array("wall_shear", "inner node tables", wall,
                    (quadratic ? 9 * (2 * sizeof(std::uint32_t) + 5 * real) / 2 + 3 * 2 * sizeof(std::uint32_t)
                               : 3 * (2 * sizeof(std::uint32_t) + 4 * real)) +
                        inner_rows * (sizeof(std::uint32_t) + real));
  }
  void setup(SetupStage& st) override {
    if (st.precision == Precision::fp32) impl_ = std::make_unique<WallShearIn<float>>();
    else impl_ = std::make_unique<WallShearIn<double>>();
    impl_->setup(st);
  }

 private:
  std::unique_ptr<WallShear> impl_;
};

void declare_config(config::Schema& schema) {
  schema.section("wall_shear", "wall_shear", "Wall shear stress at halfway bounce-back walls and its time statistics "
                                             "(TAWSS, OSI, RRT); plugins/wall_shear/README.md")
      .string("method",
              "'stress' (the default: the viscous stress from the non-equilibrium populations, sigma . n, its tangential "
              "part) or 'momentum_exchange' (the tangential force of the node's bounce-back links over its staircase face "
              "area)")
      .choices({"stress", "momentum_exchange"})
      .default_value(std::string("stress"))
      .integer("every", "1", "Steps between instantaneous files wall_shear_<step>.h5; 0: none (default: output.every)")
      .at_least(0)
      .real("window_start", "s", "Start of the time window whose samples enter TAWSS, OSI and RRT")
      .at_least(0.0)
      .default_value(0.0)
      .real("window_end", "s", "End of the statistics window (default: the end of the run)")
      .greater_than(0.0)
      .integer("sample_every", "1", "Steps between samples that enter the statistics (each stands for sample_every steps)")
      .at_least(1)
      .default_value(std::int64_t{1})
      .string("surface", "STL surface to map the statistics onto (wall_shear_surface.vtk), relative to the case file "
                         "(default: geometry.file when geometry.shape = 'stl'; none: no .vtk)")
      .string("surface_unit", "Length unit of wall_shear.surface's coordinates (default: geometry.unit)")
      .choices({"m", "mm", "um"})
      .real("surface_radius", "1",
            "Lattice spacings: each triangle of wall_shear_surface.vtk takes the TAWSS and mean WSS of the wall nodes "
            "within this distance of its centroid, averaged (OSI and RRT from those averages; the nearest node where "
            "none is that close). The stress of a wall node depends on its depth below the surface at tau near 1/2 "
            "(plugins/wall_shear/README.md), and the nearest node to a surface is the shallowest; 0: the nearest "
            "node alone (before 2026-11-27)")
      .at_least(0.0)
      .default_value(2.0)
      .string("normal",
              "Wall normals: 'auto' (the default: for the stress method, from the surface where there is one: "
              "wall_shear.surface, the case's STL or a pipe's cylinder; else, and always for the momentum exchange, from "
              "the links), 'surface' (the nearest surface triangle's; stress only), or 'links' (the weighted sum of the "
              "node's wall links, which scatters about the true normal on a staircase)")
      .choices({"auto", "surface", "links"})
      .default_value(std::string("auto"))
      .string("evaluate",
              "Where the stress method evaluates the stress: 'auto' (the default: 'wall' where the normals come from a "
              "surface, else 'node'), 'wall' (extrapolated to the wall along the surface normal from the node layers inside, "
              "linearly or quadratically: wall_shear.extrapolation; needs a surface), or 'node' "
              "(at the wall node itself, half a link or more inside the wall, disturbed by the staircase)")
      .choices({"auto", "wall", "node"})
      .default_value(std::string("auto"))
      .string("extrapolation",
              "With evaluate = 'wall': 'quadratic' (the default: two linear extrapolations, of the node and of its "
              "neighbour further in, combined into one exact for a stress quadratic in the wall distance, as inside a "
              "Stokes layer; one more kernel and halo exchange a sample) or 'linear' (from the node and its neighbour "
              "further in only)")
      .choices({"quadratic", "linear"})
      .default_value(std::string("quadratic"));
}

Plugin* create() { return new WallShearPlugin(); }

const PluginDescriptor descriptor{"wall_shear", "output", "0.1.0",
                                  "wall shear stress at bounce-back walls, TAWSS / OSI / RRT over a time window",
                                  &declare_config, &create};

}  // namespace
}  // namespace hemo::wall_shear

HEMO_EXPORT_PLUGIN(hemo::wall_shear::descriptor)
