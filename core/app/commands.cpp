#include "core/app/commands.hpp"

#include <glob.h>
#include <unistd.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <filesystem>
#include <string>
#include <vector>

#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/common/version.hpp"
#include "core/common/text.hpp"
#include "core/exec/cuda_runtime.hpp"
#include "core/geometry/caps.hpp"
#include "core/geometry/shapes.hpp"
#include "core/geometry/stl.hpp"
#include "core/geometry/surface.hpp"
#include "core/geometry/voxel_file.hpp"
#include "core/geometry/voxelize.hpp"
#include "core/io/output_folder.hpp"
#include "core/mesh/lattice_view.hpp"
#include "core/partition/brick_partition.hpp"
#include "core/sim/case_schema.hpp"
#include "core/sim/checkpoint.hpp"
#include "core/sim/memory_plan.hpp"
#include "core/sim/simulation.hpp"
#include "core/sim/stop_signals.hpp"

namespace hemo::app {

namespace {

/// Runs `body`, mapping each kind of failure to its exit code and recording it. A run
/// that a signal stopped after a step (with a checkpoint) ends "interrupted".
template <class Body>
int guarded(RunSummary& summary, Body&& body) {
  try {
    body();
    const bool interrupted = !summary.interrupted_by.empty();
    summary.status = interrupted ? "interrupted" : "ok";
    summary.exit_code = int(interrupted ? ExitCode::interrupted : ExitCode::ok);
  } catch (const InputError& e) {
    log::error(e.what());
    summary.status = std::string("bad input: ") + e.what();
    summary.exit_code = int(ExitCode::bad_input);
  } catch (const DivergenceError& e) {
    log::error(e.what());
    summary.status = std::string("diverged: ") + e.what();
    summary.failed_step = e.step();
    summary.failed_node = e.node();
    summary.exit_code = int(ExitCode::diverged);
  } catch (const WriteError& e) {
    log::error(e.what());
    summary.status = std::string("write failed: ") + e.what();
    summary.exit_code = int(ExitCode::write_failed);
  } catch (const std::bad_alloc& e) {
    // After set-up (which refuses what its plan says would not fit, and turns a failed
    // allocation into InputError): memory the run took as it went (cells, outputs).
    const std::string when = summary.steps > summary.first_step ? str("after step ", summary.steps)
                                                                 : std::string("in set-up or the first step");
    const std::string what = str("out of memory (", e.what(), ") ", when,
                                 ": make lattice.dx larger, run on more ranks, or give the run more memory "
                                 "(docs/cluster.md, \"Memory\")");
    log::error(what);
    summary.status = "bad input: " + what;
    summary.exit_code = int(ExitCode::bad_input);
  } catch (const std::exception& e) {
    log::error(e.what());
    summary.status = std::string("error: ") + e.what();
    summary.exit_code = int(ExitCode::failure);
  }
  return summary.exit_code;
}

/// The cap files of --caps, with the patterns that the shell did not expand (quoted,
/// or matching nothing there) expanded here, each in sorted order.
std::vector<std::string> cap_paths(const std::vector<std::string>& args) {
  std::vector<std::string> paths;
  for (const std::string& a : args) {
    std::error_code ec;
    if (a.find_first_of("*?[") == std::string::npos || std::filesystem::exists(a, ec)) {
      paths.push_back(a);
      continue;
    }
    glob_t found{};
    const int rc = glob(a.c_str(), 0, nullptr, &found);
    if (rc == 0)
      for (std::size_t k = 0; k < found.gl_pathc; ++k) paths.emplace_back(found.gl_pathv[k]);
    globfree(&found);
    if (rc == GLOB_NOMATCH) throw InputError(str("--caps '", a, "': no file matches this pattern"));
    if (rc != 0) throw InputError(str("--caps '", a, "': the pattern could not be expanded (glob error ", rc, ")"));
  }
  return paths;
}

/// mesh SURFACE.stl --find-iolets [--caps CAP.stl...]: the openings of the surface (its
/// open ends, or the caps of a closed one) as [[boundaries.iolet]] tables on stdout.
void find_iolets(const CommandLine& cl) {
  const std::string& path = cl.run.case_path;
  const geometry::LengthUnit unit = geometry::length_unit_from_string(cl.unit);
  const geometry::TriangleMesh surface = geometry::read_stl(path, unit);
  if (cl.caps.empty()) {
    const auto ends = geometry::find_open_ends(surface);
    if (ends.empty())
      throw InputError(str(path, ": the surface is closed (no open ends to fit iolet planes to); give the cap of "
                           "each opening with --caps CAP.stl... (the flat patches that close the openings, as the "
                           "meshing tool exports them), or use the open version of the surface"));
    std::printf("# %zu open end%s of %s (%s)\n%s", ends.size(), ends.size() == 1 ? "" : "s", path.c_str(),
                surface.description.c_str(), geometry::open_ends_toml(ends).c_str());
    return;
  }
  const geometry::SurfaceCheck check = geometry::check_surface(surface);
  if (check.boundary_edges > 0)
    throw InputError(str(path, ": --caps needs the closed surface (its caps included), but this one is open (",
                         check.boundary_edges, " boundary edges); leave out --caps to fit planes to its open ends"));
  std::vector<geometry::CapFile> caps;
  for (const std::string& cap : cap_paths(cl.caps)) caps.push_back({cap, geometry::read_stl(cap, unit)});
  const auto openings = geometry::fit_caps(surface, caps);
  std::printf("# %zu cap%s of %s (%s)\n%s", openings.size(), openings.size() == 1 ? "" : "s", path.c_str(),
              surface.description.c_str(), geometry::open_ends_toml(openings).c_str());
}

/// hemoflow mesh OPEN.stl --cap CLOSED.stl: the surface closed by flat caps, each cap
/// beside it, and the iolets of those caps (fit_caps, as --find-iolets --caps prints them).
void cap_surface(const CommandLine& cl) {
  const std::string& path = cl.run.case_path;
  const geometry::LengthUnit unit = geometry::length_unit_from_string(cl.unit);
  const geometry::CappedSurface capped = geometry::cap_open_ends(geometry::read_stl(path, unit));
  const std::filesystem::path out(cl.capped_output);
  geometry::write_stl_binary(out.string(), capped.closed, unit);
  std::printf("wrote %s: %zu triangles, %zu opening%s closed by flat caps\n", out.string().c_str(),
              capped.closed.size(), capped.caps.size(), capped.caps.size() == 1 ? "" : "s");
  std::vector<geometry::CapFile> caps;
  for (std::size_t i = 0; i < capped.caps.size(); ++i) {
    const std::string file = (out.parent_path() / str(out.stem().string(), "_cap", i + 1, ".stl")).string();
    geometry::write_stl_binary(file, capped.caps[i], unit);
    std::printf("wrote %s: %zu triangles (the cap of the opening of radius %s mm)\n", file.c_str(),
                capped.caps[i].size(), fmt_g(capped.ends[i].radius * 1e3, 4).c_str());
    // Read back as a user's cap file would be: the tables below are what --caps gives.
    caps.push_back({file, geometry::read_stl(file, unit)});
  }
  auto openings = geometry::fit_caps(geometry::read_stl(out.string(), unit), caps);
  for (geometry::OpenEnd& o : openings) o.name.clear();  // "inlet", "outlet1", ... by size, not the files' names
  std::printf("# %zu cap%s of %s; use it with [geometry] shape = \"stl\", file = \"%s\", unit = \"%s\"\n%s",
              openings.size(), openings.size() == 1 ? "" : "s", out.string().c_str(), out.string().c_str(),
              geometry::to_string(unit).c_str(), geometry::open_ends_toml(openings).c_str());
}

/// The largest of a value over the ranks of the command (itself on one rank).
double comm_max(const CommandLine& cl, double value) { return cl.run.comm ? cl.run.comm->max(value) : value; }

/// hemoflow check: how the plan compares with the memory of this machine, which need not
/// be the one the run goes to (a login node): said, not refused; `run` refuses.
void report_memory_here(const MemoryPlan& plan, bool cuda, const config::Config& config) {
  const std::uint64_t need = plan.run_bytes();
  MemoryContext context;
  context.dx = config.real("lattice.dx");
  if (cuda) {
    const auto devices = exec::cuda::devices();
    if (devices.empty()) {
      std::printf("memory here: no CUDA device visible; `hemoflow run` compares the plan with the GPU's free memory\n");
      return;
    }
    const std::int64_t asked = config.integer("run.device");
    const auto& d = devices[std::size_t(asked >= 0 && asked < std::int64_t(devices.size()) ? asked : 0)];
    const std::uint64_t user = memory_limit_from_environment();
    context.available = user ? MemoryAvailable{user, "HEMO_MEMORY_LIMIT_BYTES", true}
                             : MemoryAvailable{d.memory_bytes, str("GPU ", d.index, " (", d.name, ") in all"), false};
    context.memory = str("memory of GPU ", d.index);
  } else {
    context.available = host_memory_available();
  }
  if (!context.available.bytes) return;
  const std::uint64_t usable = usable_bytes(context);
  std::printf("memory here: %s usable of %s (%s, less a %d%% margin): %s\n", fmt_bytes(double(usable)).c_str(),
              fmt_bytes(double(context.available.bytes)).c_str(), context.available.source.c_str(),
              int(memory_margin * 100 + 0.5),
              need <= usable ? "one rank fits" : "one rank would NOT fit here; `hemoflow run` would refuse it");
  if (need > usable) log::warn(memory_refusal(plan, context));
}

/// Takes the run's output folder before anything touches it (rank 0): its lock, the
/// removal of what killed writes left, and the refusal of a fresh run over another run's
/// results (a checkpoint, snapshots, CSV series, a summary of steps taken) without
/// --overwrite, so nothing is lost to a repeated command. InputError or WriteError.
io::FolderLock take_output_folder(const RunOptions& run, const std::string& folder) {
  io::FolderLock lock = io::FolderLock::take(folder, run.case_path);
  if (const int n = io::remove_partial_writes(folder))
    log::info(str("output: removed ", n, " partial file", n == 1 ? "" : "s", " (*.tmp) that an interrupted write left in ",
                  folder));
  const std::filesystem::path checkpoint = std::filesystem::path(folder) / checkpoint_file_name;
  std::error_code ec;
  if (!run.restart.empty() || run.overwrite) return lock;
  if (std::filesystem::exists(checkpoint, ec))
    throw InputError(str("the output folder '", folder, "' holds checkpoint.h5, a run that can be continued: continue it "
                         "with --restart ", folder, ", replace it (its results and checkpoint) with --overwrite, or "
                         "give this run another --output"));
  if (const std::vector<std::string> found = io::results_in(folder); !found.empty()) {
    std::string list;
    for (const std::string& f : found) list += (list.empty() ? "" : ", ") + f;
    throw InputError(str("the output folder '", folder, "' holds another run's results (", list,
                         "): replace them with --overwrite, or give this run another --output"));
  }
  return lock;
}

}  // namespace

int command_run(const CommandLine& cl) {
  RunSummary summary;
  const int rank = cl.run.comm ? cl.run.comm->rank() : 0, ranks = cl.run.comm ? cl.run.comm->size() : 1;
  const std::string folder = run_output_dir(cl.run);
  // Rank 0 writes every file of the run, so it alone takes the folder; every rank learns
  // whether it could. A refused run leaves the folder as it found it (no summary.json).
  io::FolderLock lock;
  std::string refused;
  int refused_code = 0;
  bool had_run = false;
  if (rank == 0) {
    try {
      had_run = io::holds_run(folder);
      lock = take_output_folder(cl.run, folder);
    } catch (const InputError& e) {
      refused = e.what();
      refused_code = int(ExitCode::bad_input);
    } catch (const WriteError& e) {
      refused = e.what();
      refused_code = int(ExitCode::write_failed);
    }
  }
  if (ranks > 1) refused_code = int(cl.run.comm->max(double(refused_code)));
  if (refused_code) {
    if (rank == 0) log::error(refused);
    return refused_code;
  }
  std::string output_dir;
  int code = guarded(summary, [&] {
    if (!std::filesystem::exists(cl.run.case_path))
      throw InputError(str("cannot open case file '", cl.run.case_path, "': no such file"));
    Simulation sim(cl.run, summary);
    output_dir = summary.output_dir;
    // From the first step to the end of the process, SIGTERM, SIGINT and SIGUSR1 stop the
    // run after a step with a checkpoint (exit code 4) instead of killing it.
    catch_stop_signals();
    sim.run();
  });
  // summary.json is written whenever the run took its output folder (set-up cleared it
  // and wrote "running"), failures included, so scripts always find a status; and for a
  // failure before that into a folder that held no run. A folder holding another run's
  // results is left as it was when this one fails before it took the folder. Rank 0.
  if (output_dir.empty() && !had_run) output_dir = folder;
  if (output_dir.empty() && rank == 0)
    log::info(str("output: ", folder, " is left as it was (the run failed before it took the folder)"));
  if (!output_dir.empty() && rank == 0) {
    try {
      write_summary(summary, output_dir);
    } catch (const std::exception& e) {
      log::error(str("could not write summary.json: ", e.what()));
      // Scripts look for summary.json: without it a finished or interrupted run is a
      // failed write (and the other ranks are ended below); an error keeps its code.
      if (code == int(ExitCode::ok) || code == int(ExitCode::interrupted)) code = int(ExitCode::write_failed);
    }
  }
  // A rank that failed ends every rank (the others may wait for it in an exchange). A
  // run stopped by a signal stopped on every rank after the same step: all end normally.
  if (code != 0 && code != int(ExitCode::interrupted) && ranks > 1)
    cl.run.comm->abort(code, "ending every rank after the error above");
  return code;
}

namespace {

/// A duration as a person reads it: "3.2 s", "4 min 12 s", "16 h 5 min".
std::string readable_duration(double s) {
  if (s < 60.0) return str(fmt_g(s, 2), " s");
  const long long t = static_cast<long long>(std::llround(s));
  if (t < 3600) return str(t / 60, " min ", t % 60, " s");
  return str(t / 3600, " h ", (t % 3600) / 60, " min");
}

/// check --time N: N steps of the case into a temporary folder, nothing written there but
/// the run's own small files (no snapshots, probes or checkpoints), then the whole run's
/// time from the steady steps (after the first 10) and the set-up. The folder is removed.
void time_case(const CommandLine& cl, const RunSummary& checked) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path(ec) / str("hemoflow-check-time-", static_cast<long long>(::getpid()));
  RunOptions timed = cl.run;
  timed.output_dir = dir.string();
  timed.steps = cl.time_steps;
  timed.overwrite = true;
  timed.progress = ProgressMode::never;
  timed.comm = nullptr;
  for (const char* o : {"output.every=0", "output.final=false", "output.probe=[]", "checkpoint.every=0",
                        "checkpoint.final=false"})
    timed.overrides.push_back(o);
  RunSummary summary;
  struct RemoveAfter {
    fs::path dir;
    ~RemoveAfter() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } remove_after{dir};
  {
    // The check above said what set-up says; the timed run speaks only of its errors.
    struct QuietWhile {
      log::Level was = log::level();
      QuietWhile() { log::set_level(log::Level::error); }
      ~QuietWhile() { log::set_level(was); }
    } quiet;
    Simulation sim(timed, summary);
    sim.run();
  }
  if (summary.steady_steps <= 0 || !(summary.steady_seconds > 0.0))
    throw std::runtime_error(str("check --time: the timed run of ", summary.steps, " steps measured no steady steps"));
  const double per_step = summary.steady_seconds / double(summary.steady_steps);
  const double total = per_step * double(checked.steps_requested) + summary.setup_seconds;
  std::printf("time: about %s for the %lld steps (a step took %s ms over steps %lld-%lld of %lld timed here on %s, %s "
              "MLUPS; set-up %s s); snapshots, probes and checkpoints add to it\n",
              readable_duration(total).c_str(), static_cast<long long>(checked.steps_requested),
              fmt_g(1e3 * per_step, 3).c_str(), static_cast<long long>(summary.steps - summary.steady_steps + 1),
              static_cast<long long>(summary.steps), static_cast<long long>(summary.steps), summary.device.c_str(),
              fmt_g(double(checked.fluid_nodes) / per_step / 1e6, 4).c_str(), fmt_g(summary.setup_seconds, 3).c_str());
}

}  // namespace

int command_check(const CommandLine& cl) {
  RunSummary summary;
  return guarded(summary, [&] {
    if (!std::filesystem::exists(cl.run.case_path))
      throw InputError(str("cannot open case file '", cl.run.case_path, "': no such file"));
    Simulation sim(cl.run, summary, Simulation::Stop::after_mesh);
    // What the run will allocate (Simulation::memory_plan), the largest rank's: the plugins
    // declared their fields and buffers, as run checks them against the memory there.
    const MemoryPlan& plan = sim.memory_plan();
    const double planned = comm_max(cl, double(plan.run_bytes()));
    if (cl.run.comm && cl.run.comm->rank() != 0) return;  // rank 0 reports
    const bool cuda = sim.config().string("run.backend") == "cuda";
    const std::string memory = cuda ? "device memory" : "host memory";
    const bool brick_layout = summary.layout == "bricks";
    std::printf("%s: ok (%llu fluid nodes%s, %lld steps, tau %.4g, Mach %.3g, Reynolds %.4g; about %s of %s%s)\n",
                cl.run.case_path.c_str(), static_cast<unsigned long long>(summary.fluid_nodes),
                brick_layout ? str(" in ", summary.brick_slots / 64, " bricks of 4^3, fill ",
                             fmt_f(double(summary.fluid_nodes) / double(std::max<std::uint64_t>(summary.brick_slots, 1)), 3))
                             .c_str()
                       : "",
                static_cast<long long>(summary.steps_requested), summary.tau, summary.mach, summary.reynolds,
                fmt_bytes(planned).c_str(), memory.c_str(), summary.ranks > 1 ? " on the largest rank" : "");
    std::printf("memory: %s\n", plan.describe_largest(6).c_str());
    report_memory_here(plan, cuda, sim.config());
    if (cl.ranks > 0) {
      const auto t0 = std::chrono::steady_clock::now();
      const mesh::SparseMesh& m = sim.mesh();
      const int edge = int(sim.config().integer("partition.brick"));
      std::vector<std::int32_t> fi, fj, fk;  // the fluid nodes (a brick layout's holes left out)
      for (std::uint32_t f = 0; f < m.num_fluid(); ++f) {
        const std::uint32_t n = m.fluid_node(f);
        fi.push_back(m.i[n]), fj.push_back(m.j[n]), fk.push_back(m.k[n]);
      }
      const partition::BrickGrid bricks = partition::make_bricks(m.dims, fi, fj, fk, edge);
      const partition::Partition p = partition::partition_bricks(bricks, cl.ranks, m.periodic);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("partition: %d ranks, bricks of %d^3 voxels (%lld in the box), %s s\n%s", cl.ranks, edge,
                  static_cast<long long>(bricks.count()), fmt_g(seconds, 3).c_str(), p.describe().c_str());
      if (brick_layout) {
        // On bricks a rank's update runs over its stored bricks' slots, holes included: 64
        // per brick, counted once at its first fluid node (fluid nodes ascend).
        std::vector<std::uint64_t> slots(std::size_t(cl.ranks), 0);
        std::uint32_t last = mesh::no_brick;
        for (std::size_t f = 0; f < fi.size(); ++f) {
          const std::uint32_t brick = m.fluid_node(std::uint32_t(f)) / mesh::brick_slots;
          if (brick == last) continue;
          last = brick;
          slots[std::size_t(p.owner[std::size_t(bricks.brick_of_voxel(fi[f], fj[f], fk[f]))])] += mesh::brick_slots;
        }
        std::uint64_t total = 0, most = 0;
        for (const std::uint64_t v : slots) total += v, most = std::max(most, v);
        std::printf("bricks layout: slots (4^3 bricks x 64, holes included) largest / mean %s\n",
                    fmt_g(double(most) * cl.ranks / double(std::max<std::uint64_t>(total, 1)), 4).c_str());
      }
      const std::uint64_t largest = *std::max_element(p.part_fluid.begin(), p.part_fluid.end());
      std::printf("memory on %d ranks: about %s of %s on the largest part (this rank's estimate scaled to its %llu fluid "
                  "nodes; halos not counted)\n",
                  cl.ranks, fmt_bytes(planned * double(largest) / double(std::max<std::uint64_t>(summary.fluid_nodes, 1))).c_str(),
                  memory.c_str(), static_cast<unsigned long long>(largest));
    }
    if (cl.time_steps > 0) {
      std::fflush(stdout);
      time_case(cl, summary);
    } else {
      std::printf("time: not measured (hemoflow check --time 50 runs 50 steps here and estimates the whole run)\n");
    }
  });
}

int command_mesh(const CommandLine& cl) {
  RunSummary summary;
  return guarded(summary, [&] {
    const std::string& path = cl.run.case_path;
    if (!std::filesystem::exists(path)) throw InputError(str("cannot open '", path, "': no such file"));
    const auto t0 = std::chrono::steady_clock::now();
    const bool is_stl = std::filesystem::path(path).extension() == ".stl" || std::filesystem::path(path).extension() == ".STL";
    if (is_stl && !cl.capped_output.empty()) {
      cap_surface(cl);
      return;
    }
    if (is_stl) {
      if (!cl.find_iolets)
        throw InputError(str("'hemoflow mesh ", path, "': an STL file takes --find-iolets; to voxelize, give a case "
                             "file whose [geometry] has shape = \"stl\""));
      find_iolets(cl);
      return;
    }
    if (cl.find_iolets)
      throw InputError(str("'hemoflow mesh ", path, " --find-iolets': --find-iolets takes a vessel surface (.stl), "
                           "not a case file"));
    RunOptions options = cl.run;
    // The file keeps the solid fractions; a case that loads it chooses whether to use them.
    options.overrides.push_back("geometry.solid_fraction=true");
    Simulation sim(options, summary, Simulation::Stop::after_geometry);
    const geometry::VoxelGrid& v = sim.voxels();
    std::int64_t fluid = 0, partial = 0;
    for (std::size_t i = 0; i < v.fluid.size(); ++i) {
      fluid += v.fluid[i];
      partial += !v.solid_fraction.empty() && v.fluid[i] && v.solid_fraction[i] > 0.0f;
    }
    std::string out = cl.voxel_file;
    if (out.empty()) out = (std::filesystem::path(path).parent_path() / std::filesystem::path(path).stem()).string() + ".voxels.h5";
    // The signed distance of the VLBM paper's mesh generation (sec. 2.2), within two
    // spacings of the wall, is stored beside P for inspection.
    std::vector<float> distance;
    const config::Config g = sim.config().section("geometry");
    if (g.string("shape") == "stl") {
      const std::string file = geometry::geometry_file(g);
      const geometry::TriangleMesh surface = geometry::read_stl(file, geometry::length_unit_from_string(g.string("unit")));
      distance = geometry::signed_distance(surface, v, 2.0 * v.dx);
    }
    geometry::write_voxel_file(out, v, distance.empty() ? nullptr : &distance);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // The wall cuts come with the voxels (those of the centre classification, though the
    // file's fluid flags follow P < 1).
    const std::string cuts = v.has_wall_cuts ? str("; ", v.wall_cuts.size(), " wall cuts") : std::string();
    std::printf("%s: %d x %d x %d voxels of dx = %s m; %lld stored (P < 1), of which %lld partial (0 < P < 1)%s; "
                "%.1f s\nwrote %s\nuse it with: [geometry] shape = \"voxels\", file = \"%s\"\n",
                v.description.c_str(), v.dims[0], v.dims[1], v.dims[2], fmt_g(v.dx).c_str(),
                static_cast<long long>(fluid), static_cast<long long>(partial), cuts.c_str(), seconds, out.c_str(),
                out.c_str());
  });
}

int command_stl_pipe(const CommandLine& cl) {
  RunSummary summary;
  return guarded(summary, [&] {
    const geometry::Point c{cl.pipe_center[0], cl.pipe_center[1], cl.pipe_center[2]};
    const geometry::Point a{cl.pipe_axis[0], cl.pipe_axis[1], cl.pipe_axis[2]};
    if (!(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] > 0)) throw InputError("--axis must not be the zero vector");
    if (cl.pipe_segments < 8) throw InputError("--segments must be at least 8");
    const geometry::TriangleMesh pipe = geometry::make_pipe_surface(c, a, cl.pipe_radius, cl.pipe_length,
                                                                    cl.pipe_segments, !cl.pipe_open, cl.pipe_end_radius);
    geometry::write_stl_binary(cl.stl_output, pipe);
    std::printf("wrote %s: %zu triangles (%s)\n", cl.stl_output.c_str(), pipe.size(), cl.pipe_open ? "open ends" : "closed");
    if (cl.cap_prefix.empty()) return;
    // Each end's cap as a file of its own, as meshing tools export them beside the surface.
    for (int end = 0; end < 2; ++end) {
      const std::string file = str(cl.cap_prefix, "_", end, ".stl");
      const geometry::TriangleMesh cap = geometry::pipe_cap(pipe, cl.pipe_segments, end);
      geometry::write_stl_binary(file, cap);
      std::printf("wrote %s: %zu triangles (the cap at the %s end)\n", file.c_str(), cap.size(), end == 0 ? "-axis" : "+axis");
    }
  });
}

int command_info(const CommandLine& cl) {
  PluginLoader loader = cl.run.loader;
  const auto plugins = loader.discover();
  if (cl.keys) {
    config::Schema schema;
    declare_core_schema(schema);
    for (const PluginListing& l : plugins) {
      if (!l.error.empty()) continue;
      loader.load(l.name).descriptor->declare_config(schema);
    }
    std::fputs((cl.markdown ? schema.describe_markdown() : schema.describe_text()).c_str(), stdout);
    return 0;
  }
  std::printf("hemoflow %s (commit %s, %s build)\n", hemo::version(), hemo::commit(), hemo::build_type());
  std::printf("\nbackends:\n  cpu   OpenMP, %d thread(s) (OMP_NUM_THREADS)\n", omp_get_max_threads());
  if (!exec::cuda_built()) {
    std::printf("  cuda  not built (configure with -DHEMO_CUDA=ON on a machine with nvcc)\n");
  } else {
    const auto devices = exec::cuda::devices();
    std::printf("  cuda  built; %zu device(s) visible\n", devices.size());
    for (const auto& d : devices)
      std::printf("        [%d] %s, sm_%d%d, %d SMs, %s\n", d.index, d.name.c_str(), d.sm_major, d.sm_minor,
                  d.multiprocessors, fmt_bytes(double(d.memory_bytes)).c_str());
  }
  std::printf("\nplugins:\n");
  if (plugins.empty()) std::printf("  none found\n");
  for (const PluginListing& l : plugins) {
    if (l.error.empty())
      std::printf("  %-12s %-10s %-8s %s\n  %-12s %s\n", l.name.c_str(), l.kind.c_str(), l.version.c_str(),
                  l.summary.c_str(), "", l.file.c_str());
    else
      std::printf("  %-12s BROKEN: %s\n", l.name.c_str(), l.error.c_str());
  }
  std::printf("\nplugin search path (first match wins):\n");
  for (const auto& d : loader.search_dirs()) std::printf("  %s\n", d.c_str());
  return 0;
}

}  // namespace hemo::app
