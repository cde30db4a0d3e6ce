#include "core/sim/divergence_report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
#include "core/exec/reduce.hpp"
#include "core/io/json.hpp"
#include "core/mesh/link_codes.hpp"
#include "physics/d3q19.hpp"

namespace hemo {

namespace {

namespace d3q19 = phys::d3q19;
constexpr double inf = std::numeric_limits<double>::infinity();
// Mach numbers above this are where the lattice's compressibility errors grow large
// (9% density change at 0.3) and where runs here diverged (docs/backflow.md).
constexpr double high_mach = 0.3;
// Within this many lattice spacings a boundary is named as where the trouble began.
constexpr double near_spacings = 3.0;

using Point = std::array<double, 3>;

double distance2(const Point& a, const Point& b) {
  return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
}

std::string point_text(const Point& x) { return str("(", fmt_g(x[0]), ", ", fmt_g(x[1]), ", ", fmt_g(x[2]), ") m"); }

/// Rank `owner`'s `values` on every rank (the others pass zeros of the same length): a
/// sum over the ranks, exact since one term is not zero. A collective.
void from_owner(comm::Communicator& comm, int owner, std::vector<double>& values) {
  if (comm.rank() != owner) std::fill(values.begin(), values.end(), 0.0);
  comm.sum(std::span<double>(values));
}

/// The lowest rank among those with `mine` true, the same on every rank (-1: none). A
/// collective.
int lowest_rank_with(comm::Communicator& comm, bool mine) {
  const double r = comm.max(mine ? -double(comm.rank()) : -inf);
  return std::isfinite(r) ? int(-r) : -1;
}

// ---- the non-finite nodes -------------------------------------------------------------

/// The non-finite densities over the ranks: how many, their voxel box, and the one of
/// lowest voxel index (the same for any rank count and node order) with its rank.
struct NonFinite {
  double count = 0.0, fluid = 0.0;  // non-finite and all fluid nodes, over the ranks
  std::array<std::int64_t, 3> low{0, 0, 0}, high{0, 0, 0};
  std::uint64_t voxel = 0;
  int owner = -1;
  std::uint32_t node = 0;  // on the owner
};

NonFinite find_non_finite(const DivergenceContext& c, const std::vector<double>& density) {
  const mesh::SparseMesh& m = c.mesh;
  double count = 0.0, lowest = inf;
  std::uint32_t node = 0;
  // -low and high of each axis, as maxima
  std::vector<double> box(6, -inf);
  for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {
    const std::uint32_t n = m.fluid_node(f);
    if (std::isfinite(density[n])) continue;
    ++count;
    const double v = double(m.voxel_index(n));
    if (v < lowest) lowest = v, node = n;
    const int ijk[3] = {m.i[n], m.j[n], m.k[n]};
    for (int a = 0; a < 3; ++a) {
      box[a] = std::max(box[a], -double(ijk[a]));
      box[3 + a] = std::max(box[3 + a], double(ijk[a]));
    }
  }
  NonFinite out;
  out.count = c.comm.sum(count);
  out.fluid = c.comm.sum(double(m.num_fluid()));
  std::vector<double> reduced = box;
  reduced.push_back(-lowest);
  c.comm.max(std::span<double>(reduced));
  for (int a = 0; a < 3; ++a) out.low[a] = std::int64_t(-reduced[a]), out.high[a] = std::int64_t(reduced[3 + a]);
  out.owner = lowest_rank_with(c.comm, count > 0 && lowest == -reduced[6]);
  if (out.owner < 0) {  // a total that overflowed from finite parts: no node to name
    out.owner = 0;
    return out;
  }
  out.voxel = std::uint64_t(-reduced[6]);
  std::vector<double> n{double(node)};
  from_owner(c.comm, out.owner, n);
  out.node = std::uint32_t(n[0]);
  return out;
}

/// The reported node and its 18 neighbours (x - c_q) at the failing step: what each is
/// (kind) and, where this rank computed them, density and velocity (lattice units).
struct Neighbourhood {
  // per q = 0 (the node) .. 18: kind, density, ux, uy, uz
  std::vector<double> values = std::vector<double>(5 * d3q19::Q, 0.0);
};
// Kinds: a fluid node of this rank, a fluid node of another rank (no values here), a plain
// wall (halfway bounce-back), or 3 + c for a boundary link of class c (an iolet, a moving
// wall, an obstacle).
constexpr double kind_fluid = 0, kind_other_rank = 1, kind_wall = 2, kind_class = 3;

Neighbourhood neighbourhood(const DivergenceContext& c, const NonFinite& bad, const std::vector<double>& density,
                            const std::array<std::vector<double>, 3>& velocity) {
  Neighbourhood out;
  const mesh::SparseMesh& m = c.mesh;
  if (c.comm.rank() == bad.owner && bad.count > 0) {
    for (int q = 0; q < d3q19::Q; ++q) {
      double* v = &out.values[5 * std::size_t(q)];
      std::uint32_t from = bad.node;
      if (q > 0) {
        const std::uint32_t code = m.neighbours[std::size_t(q - 1) * m.stride + bad.node];
        if (code == mesh::wall_link) {
          v[0] = kind_wall;
          continue;
        }
        if (mesh::is_coded_link(code) && m.links.source[mesh::link_index(code)] == mesh::wall_link) {
          v[0] = kind_class + m.links.link_class[mesh::link_index(code)];
          continue;
        }
        from = m.pulls_from(q, bad.node);
      }
      if (from >= m.num_nodes) {
        v[0] = kind_other_rank;
        continue;
      }
      v[0] = kind_fluid;
      v[1] = density[from];
      for (int a = 0; a < 3; ++a) v[2 + a] = velocity[a][from];
    }
  }
  if (bad.count > 0) from_owner(c.comm, bad.owner, out.values);
  return out;
}

// ---- the nearest boundaries -----------------------------------------------------------

/// The boundary node (a fluid node with a link of that kind) nearest to a point: its
/// distance and position, and the link class (-1: a plain wall).
struct Nearest {
  double distance = inf;
  Point position{0.0, 0.0, 0.0};
  int link_class = -1;
};

/// For each point, the nearest node with a wall link (plain walls, moving walls,
/// obstacles) and the nearest with an iolet link, over all ranks. A collective.
std::vector<std::array<Nearest, 2>> nearest_boundaries(const DivergenceContext& c, const std::vector<Point>& points) {
  const mesh::SparseMesh& m = c.mesh;
  const std::size_t slots = 2 * points.size();  // [point][0: wall, 1: iolet]
  std::vector<double> best(slots, inf);
  std::vector<std::uint32_t> node(slots, 0);
  std::vector<int> link_class(slots, -1);
  auto is_iolet = [&](int cls) { return m.links.class_names[std::size_t(cls)].rfind("iolet:", 0) == 0; };
  for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {
    const std::uint32_t n = m.fluid_node(f);
    int wall = -2, iolet = -2;  // -2: none; a wall: -1 (plain) or its class
    for (int q = 1; q < d3q19::Q; ++q) {
      const std::uint32_t code = m.neighbours[std::size_t(q - 1) * m.stride + n];
      if (code == mesh::wall_link) {
        if (wall == -2) wall = -1;
      } else if (mesh::is_coded_link(code) && m.links.source[mesh::link_index(code)] == mesh::wall_link) {
        const int cls = m.links.link_class[mesh::link_index(code)];
        if (is_iolet(cls)) {
          if (iolet == -2) iolet = cls;
        } else if (wall == -2) {
          wall = cls;
        }
      }
    }
    if (wall == -2 && iolet == -2) continue;
    const Point x = m.position(n);
    for (std::size_t p = 0; p < points.size(); ++p) {
      const double d2 = distance2(x, points[p]);
      for (int kind = 0; kind < 2; ++kind) {
        const int cls = kind == 0 ? wall : iolet;
        const std::size_t s = 2 * p + std::size_t(kind);
        if (cls != -2 && d2 < best[s]) best[s] = d2, node[s] = n, link_class[s] = cls;
      }
    }
  }
  std::vector<double> global(slots);
  for (std::size_t s = 0; s < slots; ++s) global[s] = -best[s];
  c.comm.max(std::span<double>(global));
  std::vector<std::array<Nearest, 2>> out(points.size());
  for (std::size_t s = 0; s < slots; ++s) {
    if (!std::isfinite(global[s])) continue;  // no such boundary in the case
    const int owner = lowest_rank_with(c.comm, best[s] <= -global[s]);
    std::vector<double> found(4, 0.0);
    if (c.comm.rank() == owner) {
      const Point x = m.position(node[s]);
      found = {x[0], x[1], x[2], double(link_class[s])};
    }
    from_owner(c.comm, owner, found);
    Nearest& n = out[s / 2][s % 2];
    n.distance = std::sqrt(-global[s]);
    n.position = {found[0], found[1], found[2]};
    n.link_class = int(found[3]);
  }
  return out;
}

std::string class_name(const mesh::SparseMesh& m, int cls) {
  return cls < 0 ? std::string("wall") : m.links.class_names[std::size_t(cls)];
}

/// "iolet 'inlet'" from "iolet:inlet"; "moving wall 'lid'", "obstacle 0", "wall".
std::string boundary_text(const mesh::SparseMesh& m, int cls) {
  const std::string name = class_name(m, cls);
  const std::size_t colon = name.find(':');
  if (colon == std::string::npos) return name;
  const std::string kind = name.substr(0, colon), what = name.substr(colon + 1);
  if (kind == "iolet") return "iolet '" + what + "'";
  if (kind == "moving_wall") return "moving wall '" + what + "'";
  return kind + " " + what;
}

// ---- the speed history over the ranks ----------------------------------------------------

/// Every rank's history merged: at each recorded step the largest speed of any rank
/// (ties: the lower voxel index). The same on every rank. A collective.
std::vector<SpeedHistory::Entry> merged_history(const DivergenceContext& c) {
  constexpr std::size_t width = 7;  // step, speed, voxel, density, velocity
  const std::vector<SpeedHistory::Entry> mine = c.history.entries(c.mesh);
  const std::size_t k = mine.size(), ranks = std::size_t(c.comm.size());
  std::vector<double> all(ranks * k * width, 0.0);
  for (std::size_t e = 0; e < k; ++e) {
    double* v = &all[(std::size_t(c.comm.rank()) * k + e) * width];
    v[0] = double(mine[e].step), v[1] = mine[e].speed, v[2] = double(mine[e].voxel), v[3] = mine[e].density;
    for (int a = 0; a < 3; ++a) v[4 + a] = mine[e].velocity[a];
  }
  c.comm.sum(std::span<double>(all));
  std::vector<SpeedHistory::Entry> out(k);
  for (std::size_t e = 0; e < k; ++e) {
    SpeedHistory::Entry& best = out[e];
    best.step = mine[e].step;
    for (std::size_t r = 0; r < ranks; ++r) {
      const double* v = &all[(r * k + e) * width];
      if (v[1] > best.speed || (v[1] == best.speed && v[1] >= 0 && std::uint64_t(v[2]) < best.voxel)) {
        best.speed = v[1], best.voxel = std::uint64_t(v[2]), best.density = v[3];
        best.velocity = {v[4], v[5], v[6]};
      }
    }
  }
  return out;
}

double mach_of(double lattice_speed) { return lattice_speed / std::sqrt(d3q19::cs2); }

// ---- what to try -------------------------------------------------------------------------

/// The monitor step where the trouble shows first: the first whose largest speed passed
/// Mach 0.3, else the last with a finite speed; null if none.
const SpeedHistory::Entry* onset_of(const std::vector<SpeedHistory::Entry>& history) {
  const SpeedHistory::Entry* last = nullptr;
  for (const auto& e : history) {
    if (!(e.speed >= 0) || !std::isfinite(e.speed)) continue;
    if (mach_of(e.speed) > high_mach) return &e;
    last = &e;
  }
  return last;
}

/// The last monitor step with a finite largest speed, null if none.
const SpeedHistory::Entry* last_finite(const std::vector<SpeedHistory::Entry>& history) {
  for (auto e = history.rbegin(); e != history.rend(); ++e)
    if (e->speed >= 0 && std::isfinite(e->speed)) return &*e;
  return nullptr;
}

struct Findings {
  const DivergenceContext& c;
  const NonFinite& bad;
  const std::vector<SpeedHistory::Entry>& history;
  const SpeedHistory::Entry* onset;                  // onset_of(history)
  const std::vector<std::array<Nearest, 2>>& near;  // [0]: the node's; [1]: the onset's, if any
};

/// "at iolet 'outlet'" (a node with its links) or "0.002 m (2 lattice spacings) from ...".
std::string where_text(const mesh::SparseMesh& m, const Nearest& n, const std::string& what) {
  if (n.distance == 0.0) return "at " + what;
  return str(fmt_g(n.distance, 3), " m (", fmt_g(n.distance / m.dx, 3), " lattice spacings) from ", what);
}

/// Concrete actions, the likeliest first, from what the report found.
std::vector<std::string> suggestions(const Findings& f) {
  const DivergenceContext& c = f.c;
  std::vector<std::string> out;
  if (f.onset && mach_of(f.onset->speed) > high_mach) {
    const std::string reference =
        c.flow.velocity > 0.0 ? str(", far above the case's Mach ", fmt_g(c.flow.mach, 3), " (", fmt_g(c.flow.velocity, 3),
                                    " m/s from ", c.flow.velocity_source, ")")
                              : std::string(" (the case imposes no velocity, so its Mach number was not checked before "
                                            "the run)");
    out.push_back(str("the flow reached Mach ", fmt_g(mach_of(f.onset->speed), 3), " at step ", f.onset->step,
                      reference, ": what drives it (a pressure difference between iolets, a body force, ",
                      "an inflow) is too strong for this time step; lower that, or lower lattice.dt (the Mach number ",
                      "scales with it)"));
  } else {
    out.push_back("lower the Mach number (smaller lattice.dt) or raise tau");
  }
  if (c.units.tau < 0.51)
    out.push_back(str("tau = ", fmt_g(c.units.tau, 5), " is close to 1/2, where collisions are least stable ",
                      "(docs/stability.md): refine lattice.dx and scale lattice.dt with it (the same Mach number, a ",
                      "higher tau), or choose the most stable collision there"));
  for (std::size_t p = f.bad.count > 0 ? 0 : 1; p < f.near.size(); ++p) {
    const Nearest& iolet = f.near[p][1];
    if (iolet.distance > near_spacings * c.mesh.dx) continue;
    out.push_back(str("it began ", where_text(c.mesh, iolet, boundary_text(c.mesh, iolet.link_class)),
                      ": ramp it in (boundaries.iolet's ramp), lower its pressure or velocity, or try its other model"));
    break;
  }
  if (c.check_every > 1)
    out.push_back(str("run.check_every = ", c.check_every, ": the monitor looks every ", c.check_every,
                      " steps; with 1 it stops at the step the values blow up, nearer to where it began"));
  return out;
}

/// The message of the DivergenceError: where, what is near, the speed before, what to try.
std::string message_of(const Findings& f, const std::vector<std::string>& tried) {
  const DivergenceContext& c = f.c;
  const mesh::SparseMesh& m = c.mesh;
  std::string text = str("non-finite density (NaN or inf) found at step ", c.step, " (checked every ", c.check_every, " steps)");
  // Once the NaNs fill most of the domain, the node of lowest index says nothing of where
  // they began: the speed history does.
  const bool spread = f.bad.count > 0.5 * f.bad.fluid;
  if (spread) {
    text += str(" in ", fmt_g(f.bad.count), " of ", fmt_g(f.bad.fluid), " fluid nodes: it has spread over the domain "
                "since it began", f.onset ? " (where: below)" : "; check more often (run.check_every) to see where");
  } else if (f.bad.count > 0) {
    const auto ijk = m.voxel_coordinates(f.bad.voxel);
    text += str(" at node ", f.bad.node, ", voxel (", ijk[0], ", ", ijk[1], ", ", ijk[2], "), x = ",
                point_text(m.voxel_centre(f.bad.voxel)));
    const Nearest &wall = f.near[0][0], &iolet = f.near[0][1];
    if (std::isfinite(iolet.distance)) text += ", " + where_text(m, iolet, boundary_text(m, iolet.link_class));
    if (std::isfinite(wall.distance)) text += ", " + where_text(m, wall, "the nearest wall node");
    text += str(" (", fmt_g(f.bad.count), " non-finite nodes in voxels ", f.bad.low[0], "..", f.bad.high[0], ", ",
                f.bad.low[1], "..", f.bad.high[1], ", ", f.bad.low[2], "..", f.bad.high[2], ")");
  }
  if (f.onset) {
    const double mach = mach_of(f.onset->speed);
    const bool passed = mach > high_mach;
    text += passed ? str(". The largest speed passed Mach ", fmt_g(high_mach), " at step ", f.onset->step, ": ")
                   : str(". The largest speed at step ", f.onset->step, " was ");
    text += str(fmt_g(c.units.velocity_to_physical(f.onset->speed), 3), " m/s (Mach ", fmt_g(mach, 3), ") at x = ",
                point_text(m.voxel_centre(f.onset->voxel)));
    if (f.near.size() > 1 && std::isfinite(f.near[1][1].distance))
      text += ", " + where_text(m, f.near[1][1], boundary_text(m, f.near[1][1].link_class));
    const SpeedHistory::Entry* last = last_finite(f.history);
    if (last && last != f.onset)
      text += str("; ", fmt_g(c.units.velocity_to_physical(last->speed), 3), " m/s (Mach ", fmt_g(mach_of(last->speed), 3),
                  ") by step ", last->step);
  }
  text += ". To try: " + tried.front();
  for (std::size_t i = 1; i < tried.size(); ++i) text += "; " + tried[i];
  return text + ".";
}

void write_point(io::JsonWriter& j, const char* key, const Point& x) {
  j.key(key).begin_array();
  for (double v : x) j.value(v);
  j.end_array();
}

void write_nearest(io::JsonWriter& j, const mesh::SparseMesh& m, const std::array<Nearest, 2>& near) {
  const char* keys[2] = {"nearest_wall", "nearest_iolet"};
  for (int kind = 0; kind < 2; ++kind) {
    const Nearest& n = near[std::size_t(kind)];
    j.key(keys[kind]);
    if (!std::isfinite(n.distance)) {
      j.null();
      continue;
    }
    j.begin_object();
    const std::string name = class_name(m, n.link_class);
    j.key("boundary").value(kind == 1 ? name.substr(name.find(':') + 1) : name);
    j.key("distance").value(n.distance);
    j.key("distance_spacings").value(n.distance / m.dx);
    write_point(j, "node_position", n.position);
    j.end_object();
  }
}

std::string report_json(const Findings& f, const Neighbourhood& hood, const std::vector<std::string>& tried) {
  const DivergenceContext& c = f.c;
  const mesh::SparseMesh& m = c.mesh;
  const LatticeUnits& u = c.units;
  io::JsonWriter j;
  j.begin_object();
  j.key("step").value(c.step);
  j.key("time").value(double(c.step) * u.dt);
  j.key("check_every").value(c.check_every);
  j.key("non_finite_nodes").value(std::uint64_t(f.bad.count));
  if (f.bad.count > 0) {
    j.key("non_finite_voxel_box").begin_object();
    j.key("low").begin_array();
    for (auto v : f.bad.low) j.value(v);
    j.end_array();
    j.key("high").begin_array();
    for (auto v : f.bad.high) j.value(v);
    j.end_array();
    j.end_object();
    const auto ijk = m.voxel_coordinates(f.bad.voxel);
    j.key("node").begin_object();
    j.key("voxel").begin_array();
    for (auto v : ijk) j.value(v);
    j.end_array();
    write_point(j, "position", m.voxel_centre(f.bad.voxel));
    j.key("rank").value(f.bad.owner);
    write_nearest(j, m, f.near[0]);
    j.key("neighbours").begin_array();
    for (int q = 0; q < d3q19::Q; ++q) {
      const double* v = &hood.values[5 * std::size_t(q)];
      j.begin_object();
      j.key("direction").begin_array();
      for (int a = 0; a < 3; ++a) j.value(-d3q19::c(q, a));  // the neighbour at x - c_q
      j.end_array();
      const int kind = int(v[0]);
      j.key("kind").value(kind == kind_fluid ? "fluid" : kind == kind_other_rank ? "fluid (another rank's)"
                                                     : kind == kind_wall         ? "wall"
                                                                                 : class_name(m, kind - int(kind_class)));
      if (kind == kind_fluid) {
        j.key("density").value(u.density_to_physical(v[1]));
        j.key("velocity").begin_array();
        for (int a = 0; a < 3; ++a) j.value(u.velocity_to_physical(v[2 + a]));
        j.end_array();
      }
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.key("speed_history_every").value(c.history.every());
  j.key("speed_history").begin_array();
  for (const SpeedHistory::Entry& e : f.history) {
    j.begin_object();
    j.key("step").value(e.step);
    if (e.speed >= 0) {
      j.key("max_speed").value(u.velocity_to_physical(e.speed));
      j.key("mach").value(mach_of(e.speed));
      const auto ijk = m.voxel_coordinates(e.voxel);
      j.key("voxel").begin_array();
      for (auto v : ijk) j.value(v);
      j.end_array();
      write_point(j, "position", m.voxel_centre(e.voxel));
      j.key("density").value(u.density_to_physical(e.density));
      j.key("velocity").begin_array();
      for (double v : e.velocity) j.value(u.velocity_to_physical(v));
      j.end_array();
    }
    j.end_object();
  }
  j.end_array();
  if (f.onset) {
    // Where the speed first passed Mach 0.3 (else the last finite peak), and what is near.
    j.key("onset").begin_object();
    j.key("step").value(f.onset->step);
    j.key("mach").value(mach_of(f.onset->speed));
    write_point(j, "position", m.voxel_centre(f.onset->voxel));
    write_nearest(j, m, f.near[1]);
    j.end_object();
  }
  j.key("reference").begin_object();
  j.key("tau").value(u.tau);
  j.key("mach").value(c.flow.mach);
  j.key("velocity").value(c.flow.velocity);
  j.key("velocity_source").value(c.flow.velocity_source);
  j.key("dx").value(u.dx);
  j.key("dt").value(u.dt);
  j.end_object();
  j.key("suggestions").begin_array();
  for (const std::string& s : tried) j.value(s);
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

/// The history as a few log lines, rank 0.
void log_history(const Findings& f) {
  const auto& h = f.history;
  if (h.empty()) return;
  std::string lines = str("largest speed on the last ", h.size(), " monitor steps (every ", f.c.history.every(), " steps):");
  for (const SpeedHistory::Entry& e : h) {
    if (e.speed < 0) continue;
    lines += str("\n  step ", e.step, ": ", fmt_g(f.c.units.velocity_to_physical(e.speed), 3), " m/s (Mach ",
                 fmt_g(mach_of(e.speed), 3), ") at x = ", point_text(f.c.mesh.voxel_centre(e.voxel)));
  }
  log::warn(lines);
}

}  // namespace

SpeedHistory::SpeedHistory(std::int64_t check_every)
    : every_(std::max<std::int64_t>(1, check_every) * ((10 + std::max<std::int64_t>(1, check_every) - 1) /
                                                       std::max<std::int64_t>(1, check_every))) {}

void SpeedHistory::record(std::int64_t step, const FieldRegistry& fields, const mesh::SparseMesh& mesh) {
  const FieldBase &velocity = fields.lookup("velocity"), &density = fields.lookup("density");
  if (recorded_ == 0) {
    chunks_ = exec::chunks_of(mesh.num_nodes);
    peaks_ = exec::DeviceArray<double>(fields.space(), capacity * chunks_ * exec::chunk_peak_values);
  }
  double* slot = peaks_.data() + (recorded_ % capacity) * chunks_ * exec::chunk_peak_values;
  auto keep = [&](const auto& u) {
    using Typed = std::remove_cvref_t<decltype(u)>;
    const auto* rho = dynamic_cast<const Typed*>(&density);
    if (!rho) return false;
    exec::chunk_peaks(fields.space(), u.component(0), u.component(1), u.component(2), rho->component(0),
                      mesh.num_nodes, slot);
    return true;
  };
  bool kept = false;
  if (const auto* single = dynamic_cast<const Field<float>*>(&velocity)) kept = keep(*single);
  else if (const auto* dbl = dynamic_cast<const Field<double>*>(&velocity)) kept = keep(*dbl);
  if (!kept) return;  // moments of another type: no history (the same on every rank)
  // Every rank records the same steps, a rank without nodes too (with no peak), so the
  // entries of all ranks line up when a report merges them.
  steps_[recorded_ % capacity] = step;
  ++recorded_;
}

std::vector<SpeedHistory::Entry> SpeedHistory::entries(const mesh::SparseMesh& mesh) const {
  std::vector<Entry> out;
  if (recorded_ == 0) return out;
  const std::vector<double> peaks = peaks_.to_host();
  const std::size_t n = size(), width = chunks_ * exec::chunk_peak_values;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t slot = (recorded_ - n + k) % capacity;
    Entry e;
    e.step = steps_[slot];
    const double* best = nullptr;
    for (std::size_t c = 0; c < chunks_; ++c) {  // the first chunk with the largest: the lowest index
      const double* p = &peaks[slot * width + c * exec::chunk_peak_values];
      if (p[1] >= 0 && (!best || p[0] > best[0])) best = p;
    }
    if (best) {
      e.speed = std::sqrt(best[0]);
      e.voxel = mesh.voxel_index(std::uint32_t(best[1]));
      e.velocity = {best[2], best[3], best[4]};
      e.density = best[5];
    }
    out.push_back(e);
  }
  return out;
}

Divergence report_divergence(const DivergenceContext& c) {
  const FieldBase& density_field = c.fields.lookup("density");
  const FieldBase& velocity_field = c.fields.lookup("velocity");
  const std::vector<double> density = density_field.component_to_host(0);
  const std::array<std::vector<double>, 3> velocity{velocity_field.component_to_host(0),
                                                    velocity_field.component_to_host(1),
                                                    velocity_field.component_to_host(2)};
  const NonFinite bad = find_non_finite(c, density);
  const Neighbourhood hood = neighbourhood(c, bad, density, velocity);
  const std::vector<SpeedHistory::Entry> history = merged_history(c);
  const SpeedHistory::Entry* onset = onset_of(history);
  std::vector<Point> points{c.mesh.voxel_centre(bad.voxel)};
  if (onset) points.push_back(c.mesh.voxel_centre(onset->voxel));
  const std::vector<std::array<Nearest, 2>> near = nearest_boundaries(c, points);

  Divergence out;
  out.node = bad.node;
  out.report = (std::filesystem::path(c.output_dir) / "divergence.json").string();
  const Findings findings{c, bad, history, onset, near};
  const std::vector<std::string> tried = suggestions(findings);
  out.message = message_of(findings, tried);
  if (c.comm.rank() != 0) return out;
  log_history(findings);
  try {
    io::write_file_atomic(out.report, report_json(findings, hood, tried));
    out.message += " Report: " + out.report;
  } catch (const std::exception& e) {
    // The divergence is what the run ends with; a full disk is only mentioned.
    log::error(str("could not write the divergence report: ", e.what()));
    out.report.clear();
  }
  return out;
}

}  // namespace hemo
