// The checks a run passes before it allocates (issue 18): the memory plan
// (core/sim/memory_plan.hpp) against what set-up then allocates, the memory available,
// the refusal's advice; the Mach limit (core/sim/units.hpp) and the collision operators'
// grid Reynolds limits (plugins/lb_bgk/stability.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "core/common/error.hpp"
#include "core/common/log.hpp"
#include "core/config/config.hpp"
#include "core/config/schema.hpp"
#include "core/sim/memory_plan.hpp"
#include "core/sim/simulation.hpp"
#include "core/sim/units.hpp"
#include "plugins/lb_bgk/stability.hpp"
#include "temp_dir.hpp"

using namespace hemo;

namespace {

std::string input_error(const auto& body) {
  try {
    body();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char* n, const char* value) : name(n) { ::setenv(n, value, 1); }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("memory plan: node fields take components x stride x element, the largest are listed first") {
  MemoryPlan p(1000, 1024);
  p.node_field("lb_bgk", "f", 19, 8);
  p.node_field("lb_bgk", "velocity", 3, 8);
  p.array("core", "link_node", 500, 4);
  p.host("lb_bgk", "halo staging (pinned)", 1 << 20);
  CHECK(p.run_bytes() == 19ull * 1024 * 8 + 3ull * 1024 * 8 + 2000);
  CHECK(p.host_only_bytes() == 1u << 20);
  const auto largest = p.largest();
  REQUIRE(largest.size() == 3);  // host items are not the run's memory
  CHECK(largest[0].name == "f");
  CHECK(largest[2].name == "link_node");
  CHECK(p.describe_largest(1) == "f 152.0 KiB, 2 more 26.0 KiB");
  p.advise("lb_bgk.streaming = \"aa\"", 0);  // saves nothing: not advised
  CHECK(p.advice().empty());
}

TEST_CASE("memory available: /proc/meminfo, cgroup limits and HEMO_MEMORY_LIMIT_BYTES") {
  CHECK(parse_meminfo_available("MemTotal:       16000000 kB\nMemFree:  1 kB\nMemAvailable:    8000000 kB\n") ==
        8000000ull * 1024);
  CHECK(parse_meminfo_available("MemTotal: 5 kB\n") == 0);
  CHECK(parse_cgroup_limit("max\n") == 0);
  CHECK(parse_cgroup_limit("4294967296\n") == 4294967296ull);
  CHECK(parse_cgroup_limit("9223372036854771712\n") == 0);  // cgroup v1's "no limit"
  {
    ScopedEnv env("HEMO_MEMORY_LIMIT_BYTES", "12G");
    CHECK(memory_limit_from_environment() == 12ull << 30);
    const MemoryAvailable a = host_memory_available();
    CHECK(a.bytes == 12ull << 30);
    CHECK(a.from_user);
  }
  {
    ScopedEnv env("HEMO_MEMORY_LIMIT_BYTES", "1500000");
    CHECK(memory_limit_from_environment() == 1500000);
  }
  {
    ScopedEnv env("HEMO_MEMORY_LIMIT_BYTES", "lots");
    CHECK(contains(input_error([] { (void)memory_limit_from_environment(); }), "HEMO_MEMORY_LIMIT_BYTES = 'lots'"));
  }
  CHECK(memory_limit_from_environment() == 0);
  const MemoryAvailable here = host_memory_available();  // this machine: something, from somewhere
  CHECK(here.bytes > 0);
  CHECK(!here.from_user);
}

TEST_CASE("memory refusal: what is needed, what can be used, and what to change") {
  MemoryPlan p(1000000, 1000000);
  p.node_field("lb_bgk", "f", 19, 8);
  p.node_field("lb_bgk", "f_next", 19, 8);
  p.node_field("core", "neighbours", 18, 4);
  p.advise("lb_bgk.streaming = \"aa\"", 152000000, "one population set");
  MemoryContext c;
  c.dx = 1e-4;
  c.available = {1000000000, "MemAvailable in /proc/meminfo", false};  // 900 MB usable: the 376 MB plan fits
  CHECK(usable_bytes(c) == 900000000);
  CHECK(memory_refusal(p, c).empty());
  c.sharing = 4;  // four ranks share it: 225 MB each
  CHECK(usable_bytes(c) == 225000000);
  const std::string m = memory_refusal(p, c);
  INFO(m);
  CHECK(contains(m, "needs about 358.6 MiB of host memory"));
  CHECK(contains(m, "f 145.0 MiB, f_next 145.0 MiB, neighbours 68.7 MiB"));
  CHECK(contains(m, "only 214.6 MiB can be used (953.7 MiB shared by 4 ranks, from MemAvailable in /proc/meminfo, less a 10% margin)"));
  // 376 / 225 = 1.67: dx x 1.67^(1/3) x 1.02 = 1.21, and ceil(1.67 x 1.1) = 2 ranks.
  CHECK(contains(m, "lattice.dx = 0.0001 -> 0.00012 m or coarser (x1.21"));
  CHECK(contains(m, "run on 2 ranks or more (now 1)"));
  CHECK(contains(m, "lb_bgk.streaming = \"aa\" (saves 145.0 MiB: one population set)"));
  c.available.bytes = 0;  // unknown: nothing to refuse on
  CHECK(memory_refusal(p, c).empty());
}

TEST_CASE("significant digits round toward the limit they print") {
  CHECK(floor_significant(1.1547e-6, 3) == doctest::Approx(1.15e-6).epsilon(1e-12));
  CHECK(ceil_significant(1.1547e-6, 3) == doctest::Approx(1.16e-6).epsilon(1e-12));
  CHECK(floor_significant(0.3, 3) == doctest::Approx(0.3).epsilon(1e-12));  // exact values stay
  CHECK(floor_significant(8.66e-4, 3) <= 8.66e-4);
}

namespace {

config::Config flow_case(const std::string& lattice) {
  config::Schema schema;
  declare_units_schema(schema);
  schema.section("flow", "core", "").real("max_mach", "1", "").greater_than(0.0).default_value(default_max_mach);
  return config::Document::parse("[fluid]\ndensity = 1060.0\nviscosity = 3.3e-6\n[lattice]\n" + lattice, "case.toml")
      .validate(schema);
}

FlowNumbers flow_at(const LatticeUnits& u, double velocity) {
  FlowNumbers f;
  f.velocity = velocity;
  f.velocity_source = "iolet 'inlet'";
  f.u_lattice = u.velocity_to_lattice(velocity);
  f.mach = f.u_lattice * std::sqrt(3.0);
  return f;
}

}  // namespace

TEST_CASE("Mach above flow.max_mach: refused naming the key that sets dt and the value that keeps within it") {
  // dx = 1e-4, dt = 2e-5, U = 1.5 m/s: u_lattice = 0.3, Mach 0.520 > 0.3; dt <= 2e-5 x 0.3 / 0.5196 = 1.1547e-5.
  const config::Config dt_case = flow_case("dx = 1.0e-4\ndt = 2.0e-5\n");
  const LatticeUnits u = derive_units(dt_case);
  const std::string m = input_error([&] { check_mach(dt_case, u, flow_at(u, 1.5), 0.3); });
  INFO(m);
  CHECK(contains(m, "case.toml:6:6: lattice.dt: = 2e-05 s gives Mach 0.52 > 0.3 (flow.max_mach) at U = 1.5 m/s (iolet 'inlet')"));
  CHECK(contains(m, "use lattice.dt <= 1.15e-05 s"));
  // The printed dt keeps within the limit.
  {
    const config::Config fixed = flow_case("dx = 1.0e-4\ndt = 1.15e-5\n");
    const LatticeUnits v = derive_units(fixed);
    CHECK_NOTHROW(check_mach(fixed, v, flow_at(v, 1.5), 0.3));
  }
  // A higher limit lets it run.
  CHECK_NOTHROW(check_mach(dt_case, u, flow_at(u, 1.5), 0.6));
  // With tau: Mach scales with tau - 1/2 (and dx); tau = 0.8 gives dt = 3.03e-4 s here.
  const config::Config tau_case = flow_case("dx = 1.0e-4\ntau = 0.8\n");
  const LatticeUnits t = derive_units(tau_case);
  const FlowNumbers f = flow_at(t, 0.15);  // u_lattice = 0.4545, Mach 0.787
  const std::string mt = input_error([&] { check_mach(tau_case, t, f, 0.3); });
  INFO(mt);
  CHECK(contains(mt, "lattice.tau: = 0.8 gives Mach 0.787 > 0.3"));
  const double tau_max = 0.5 + floor_significant(0.3 * 0.3 / f.mach, 3);
  CHECK(tau_max == doctest::Approx(0.614));
  CHECK(contains(mt, "use lattice.tau <= 0.614 "));
  CHECK(contains(mt, "or lattice.dx <= 3.81e-05 m at this tau"));
}

TEST_CASE("grid Reynolds limits of the collision operators follow the stability map") {
  using lb_bgk::grid_reynolds_limit;
  // docs/stability.md: the highest Re / N that survived, one 19% grid step up.
  CHECK(grid_reynolds_limit("bgk", 0.1875).refuse == 34.0);
  CHECK(grid_reynolds_limit("trt", 0.1875).refuse == 12.0);
  CHECK(grid_reynolds_limit("trt", 0.25).refuse == 12.0);
  CHECK(grid_reynolds_limit("trt", 0.01).refuse == 34.0);  // near BGK
  CHECK(grid_reynolds_limit("regularized", 0.1875).refuse == 270.0);
  // Every limit lies above what survived and warns below it: 453 / 16 (bgk, bifurcation),
  // 160 / 16 (trt), 3620 / 16 (regularized, pipe); 800 / 24 for BGK's backflow jet.
  CHECK(grid_reynolds_limit("bgk", 0.1875).refuse > 800.0 / 24.0);
  CHECK(grid_reynolds_limit("trt", 0.1875).refuse > 160.0 / 16.0);
  CHECK(grid_reynolds_limit("regularized", 0.1875).refuse > 3620.0 / 16.0);
  for (const char* c : {"bgk", "trt", "regularized"})
    CHECK(grid_reynolds_limit(c, 0.1875).warn < grid_reynolds_limit(c, 0.1875).refuse);
}

namespace {

/// Runs set-up of `case_text` and returns the plan and the fields it allocated (name ->
/// bytes) on this rank.
struct Planned {
  std::uint64_t planned = 0;
  std::map<std::string, std::uint64_t> plan, fields;
  std::uint64_t field_bytes = 0;
};

Planned plan_and_allocate(const std::string& case_text) {
  test::TempDir dir("memory_plan");
  const std::string path = (dir.path / "case.toml").string();
  std::ofstream(path) << case_text;
  RunOptions o;
  o.case_path = path;
  o.output_dir = (dir.path / "out").string();
  o.progress = ProgressMode::never;
  RunSummary summary;
  const log::Level level = log::level();
  log::set_level(log::Level::error);
  Simulation sim(o, summary);
  log::set_level(level);
  Planned p;
  p.planned = sim.memory_plan().run_bytes();
  for (const MemoryItem& i : sim.memory_plan().items()) p.plan[i.name] += i.bytes;
  for (const FieldBase* f : sim.fields().list()) p.fields[f->name()] = f->bytes();
  p.field_bytes = sim.fields().bytes();
  return p;
}

const char* pipe_case = R"([run]
steps = 1
precision = "fp64"
[lattice]
dx = 5.0e-4
dt = 2.0e-4
[geometry]
shape = "pipe"
radius = 0.004
length = 0.016
axis = [1.0, 0.0, 0.0]
[[boundaries.iolet]]
name = "inlet"
center = [-0.008, 0.0, 0.0]
normal = [-1.0, 0.0, 0.0]
radius = 0.004
condition = "velocity"
velocity = 0.05
[[boundaries.iolet]]
name = "outlet"
center = [0.008, 0.0, 0.0]
normal = [1.0, 0.0, 0.0]
radius = 0.004
condition = "pressure"
pressure = 0.0
[output]
final = false
)";

}  // namespace

TEST_CASE("memory plan: every field set-up allocates was planned, at its size") {
  const std::string pipe = pipe_case;
  for (const std::string name : {"node list, fp64, two sets", "bricks, in place", "fp32, e4m11", "lb_vlbm and wall_shear",
                                 "cells"}) {
    std::string text = pipe;
    if (name == "bricks, in place")
      text = pipe + "[lb_bgk]\nstreaming = \"aa\"\n", text.replace(text.find("dt = 2.0e-4"), 11, "dt = 2.0e-4\nlayout = \"bricks\"");
    if (name == "fp32, e4m11")
      text.replace(text.find("precision = \"fp64\""), 18, "precision = \"fp32\""), text += "[lb_bgk]\nstorage = \"e4m11\"\n";
    if (name == "lb_vlbm and wall_shear")
      text.replace(text.find("steps = 1"), 9, "steps = 1\nplugins = [\"lb_bgk\", \"lb_vlbm\", \"boundaries\", \"wall_shear\"]");
    if (name == "cells")
      text = "[run]\nsteps = 1\nprecision = \"fp32\"\nplugins = [\"lb_bgk\", \"boundaries\", \"rbc\"]\n"
             "[fluid]\ndensity = 1025.0\nviscosity = 1.17e-6\n[lattice]\ndx = 2.5e-6\ntau = 1.0\n"
             "[geometry]\nshape = \"pipe\"\nradius = 15.0e-6\nlength = 40.0e-6\naxis = [1.0, 0.0, 0.0]\n"
             "[boundaries]\nperiodic = [\"x\"]\n[forcing]\nacceleration = [30.0, 0.0, 0.0]\n"
             "[rbc]\nhaematocrit = 0.2\noutput = false\n[output]\nfinal = false\n";
    CAPTURE(name);
    const Planned p = plan_and_allocate(text);
    // Each field of the registry was planned under its name with at least its bytes
    // (exactly, for the node fields and the core's arrays).
    for (const auto& [field, bytes] : p.fields) {
      CAPTURE(field);
      REQUIRE(p.plan.count(field) == 1);
      CHECK(p.plan.at(field) == bytes);
    }
    // The plan holds the fields and more (the plugins' own tables and buffers: with cells
    // their per-node lists, 36 bytes a node, and their table; wall_shear's wall and band
    // node tables, large in this thin pipe), but not much more.
    MESSAGE(name, ": planned ", p.planned, ", fields ", p.field_bytes);
    CHECK(p.planned >= p.field_bytes);
    CHECK(double(p.planned) <= 2.0 * double(p.field_bytes));
  }
}
