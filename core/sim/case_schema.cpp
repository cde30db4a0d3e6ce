#include "core/sim/case_schema.hpp"

#include "core/geometry/shapes.hpp"
#include "core/sim/units.hpp"

namespace hemo {

void declare_core_schema(config::Schema& schema) {
  schema.section("run", "core", "What to run and where")
      .integer("steps", "1", "Number of time steps (--steps N on the command line overrides it)")
      .at_least(1)
      .default_value(std::int64_t{1000})
      .real("end_time", "s", "Physical time to simulate, instead of steps: steps = ceil(end_time / dt)")
      .greater_than(0.0)
      .string("backend", "Where kernels run: 'cpu' (OpenMP) or 'cuda' (also --backend)")
      .choices({"cpu", "cuda"})
      .default_value(std::string("cpu"))
      .string("precision", "Floating-point precision of the populations and fields")
      .choices({"fp32", "fp64"})
      .default_value(std::string("fp64"))
      .strings("plugins", "Plugins to load (files hemo_plugin_<name>.so); exactly one must be of kind 'lb'")
      .default_value(default_plugins())
      .integer("check_every", "1", "Steps between checks for NaN and of the total mass")
      .at_least(1)
      .default_value(std::int64_t{100})
      .integer("device", "1", "CUDA device index; -1 picks the rank's local index modulo the device count")
      .at_least(-1)
      .default_value(std::int64_t{-1})
      .boolean("fence_actions",
               "CUDA: wait for the device after every action, so that the time table gives each action its device "
               "time and a faulting kernel is named by its action (slower: the aorta's step 0.124 instead of 0.072 ms "
               "on an H100, docs/performance.md); false: the device runs behind the host and waits only where results are read")
      .default_value(false)
      .boolean("device_timeline",
               "CUDA, a diagnostic: bracket every action of every step by two marks on the device's clock, so that "
               "summary.json's device_timeline gives each action its device span (device work and any idle inside the "
               "action) and the device gap before it (idle, waiting for the host to get there): where the GPU idles "
               "in an unfenced run. Costs two event records per action per step; not on the CPU")
      .default_value(false)
      .string("halo_transport",
              "CUDA, several ranks: how halo values reach a neighbour rank. 'auto': device to device (CUDA IPC, over "
              "NVLink where the GPUs have it) for ranks on the same host whose GPUs reach each other, through host "
              "memory and MPI for the others; 'host': always through host memory and MPI (docs/cluster.md)")
      .choices({"auto", "host"})
      .default_value(std::string("auto"));

  schema.section("partition", "core", "How the vessel is split between MPI ranks (hemoflow check --ranks N reports it)")
      .integer("brick", "voxels", "Edge of the bricks that SCOTCH assigns to ranks, each weighted by its fluid voxels: "
                                  "smaller bricks balance better, larger ones partition faster")
      .at_least(1)
      .default_value(std::int64_t{8});

  schema.section("checkpoint", "core",
                 "Checkpoints: <output>/checkpoint.h5, from which `hemoflow run CASE --restart DIR` continues the run "
                 "bitwise, on any rank count (docs/cluster.md, \"Restarting\")")
      .integer("every", "1", "Steps between checkpoints; 0: none on a step count")
      .at_least(0)
      .default_value(std::int64_t{0})
      .real("wall_seconds", "s",
            "Wall-clock budget of the job: once set-up and steps have taken this long, the run writes a checkpoint and "
            "stops (exit 0, summary.json says so); set it a few minutes under the batch system's time limit")
      .greater_than(0.0)
      .boolean("final", "Write a checkpoint after the last step too (to extend the run later)")
      .default_value(false);

  declare_units_schema(schema);
  geometry::declare_schema(schema);

  schema.section("forcing", "core",
                 "Body force acting on the fluid (Guo forcing): g(t) = acceleration + amplitude cos(2 pi t / period)")
      .reals("acceleration", "m/s^2", "Uniform body acceleration g (force per unit mass; a pressure gradient G = rho g)", 3)
      .default_value(std::vector<double>{0.0, 0.0, 0.0})
      .reals("amplitude", "m/s^2", "Amplitude of an oscillating part of g (Womersley flow when it drives a pipe)", 3)
      .default_value(std::vector<double>{0.0, 0.0, 0.0})
      .real("period", "s", "Period of the oscillating part")
      .greater_than(0.0);
  schema.section("initial", "core", "Initial state")
      .reals("velocity", "m/s", "Uniform initial velocity (the density starts at fluid.density)", 3)
      .default_value(std::vector<double>{0.0, 0.0, 0.0});
  schema.section("flow", "core",
                 "Reference scales for the printed Mach and Reynolds numbers (estimated when absent), and the Mach limit")
      .real("reference_velocity", "m/s", "Characteristic velocity; default: the largest the case imposes (a "
                                         "velocity iolet's peak, a moving wall, initial.velocity, the Poiseuille "
                                         "velocity of the forcing)")
      .greater_than(0.0)
      .real("reference_length", "m", "Characteristic length; default: the diameter of the velocity iolet that "
                                     "sets the reference velocity, else the geometry's (pipe or root vessel "
                                     "diameter, an STL's largest inscribed diameter, the smallest box edge)")
      .greater_than(0.0)
      .real("max_mach", "1",
            "Largest Mach number (reference velocity over the lattice's speed of sound) a run may have: above it "
            "`hemoflow check` and `run` refuse the case and print the lattice.dt or lattice.tau that keeps within it. "
            "The lattice Boltzmann method solves weakly compressible flow: density changes and errors grow as "
            "Mach^2, 9% at 0.3; above 0.1 a run is warned (docs/stability.md, \"Limits checked before a run\")")
      .greater_than(0.0)
      .default_value(default_max_mach);

  schema.section("output", "core", "Field output (HDF5 + XDMF for ParaView) and probes")
      .integer("every", "1", "Steps between field outputs; 0 writes only the final state")
      .at_least(0)
      .default_value(std::int64_t{0})
      .strings("fields", "Fields to write")
      .choices({"density", "pressure", "velocity"})
      .default_value(std::vector<std::string>{"density", "pressure", "velocity"})
      .string("precision", "Floating-point format of the written fields")
      .choices({"float32", "float64"})
      .default_value(std::string("float64"))
      .boolean("final", "Write the fields after the last step")
      .default_value(true);
  schema.table_array("output.probe", "core", "Point and line probes, written to <output>/<name>.csv with the columns step, time_s, s_m (the "
                     "distance along a line probe), x_m, y_m, z_m, density_kg_m3, pressure_Pa (gauge), ux_m_per_s, "
                     "uy_m_per_s, uz_m_per_s: each name ends in its SI unit")
      .string("name", "File name of the probe (letters, digits, '_' and '-')")
      .required()
      .string("type", "'point' or 'line'")
      .choices({"point", "line"})
      .required()
      .reals("position", "m", "point: where to sample", 3)
      .reals("start", "m", "line: first sample point", 3)
      .reals("end", "m", "line: last sample point", 3)
      .integer("points", "1", "line: number of samples, ends included")
      .at_least(2)
      .default_value(std::int64_t{50})
      .integer("every", "1", "Steps between records")
      .at_least(1)
      .default_value(std::int64_t{100});
}

}  // namespace hemo
