// The usage texts of the `hemoflow` command (usage_text, cli.hpp): `hemoflow --help`
// gives every command in brief, `hemoflow COMMAND --help` one command with its options.
#include <string>

#include "core/app/cli.hpp"

namespace hemo::app {

namespace {

// The exit codes and environment, in the main usage and at the end of each command's.
#define HEMO_EXIT_CODES \
  "exit codes: 0 success, 1 other failure, 2 bad input (case file, geometry, options),\n" \
  "            3 the run diverged (NaN; where and what to try: <output>/divergence.json),\n" \
  "            4 stopped by SIGTERM, SIGINT or SIGUSR1 after a step, with a checkpoint and\n" \
  "              summary.json status \"interrupted\" (continue with --restart <output>),\n" \
  "            5 an output could not be written (full disk, quota, file size limit, a folder\n" \
  "              that cannot be made: the message names the file and the bytes)\n" \
  "environment: HEMO_PLUGIN_PATH (extra plugin folders), OMP_NUM_THREADS (CPU threads),\n" \
  "  HEMO_MEMORY_LIMIT_BYTES (the memory one rank may use, e.g. 12G; docs/cluster.md)\n"

const char* const overview = R"(usage:
  hemoflow run CASE.toml [options]     run a case
  hemoflow check CASE.toml [options]   validate a case and build its mesh, without running
  hemoflow mesh CASE.toml [--voxels FILE] [--set ...]
                                       voxelize the case's geometry once (an STL: solid fractions
                                       with geometry.subsamples^3 samples) and write it to FILE
                                       (default: next to the case, <case>.voxels.h5); a case then
                                       loads it with geometry.shape = "voxels", geometry.file = FILE
  hemoflow mesh SURFACE.stl --find-iolets [--unit m|mm|um] [--caps CAP.stl...]
                                       fit a plane to each opening of a vessel surface (the open
                                       ends of an open surface, or the cap files of a closed one)
                                       and print them as [[boundaries.iolet]] tables to paste
                                       into a case
  hemoflow mesh OPEN.stl --cap CLOSED.stl [--unit m|mm|um]
                                       close every planar opening of an open surface with a flat
                                       cap: write CLOSED.stl, each cap beside it, and the iolets
  hemoflow stl-pipe --output FILE.stl --radius R --length L [--axis X,Y,Z] [--center X,Y,Z]
                    [--segments N] [--end-radius R2] [--open] [--cap-files PREFIX]
                                       write a triangulated pipe (m), e.g. tilted, for validation
  hemoflow info [--keys [--markdown]]  build, backends, devices and plugins; --keys: every config key
  hemoflow COMMAND --help              that command's usage and options
  hemoflow --version | --help

options for run and check:
  --set SECTION.KEY=VALUE   override a key of the case file (repeatable; same validation)
  --steps N                 number of time steps (overrides run.steps and run.end_time)
  --backend cpu|cuda        where kernels run (same as --set run.backend=...)
  --output DIR              output folder (default: out/<case name>)
  --progress auto|always|never
  --quiet                   only warnings and errors

)" HEMO_EXIT_CODES;

const char* const case_options = R"(
options:
  --set SECTION.KEY=VALUE   override a key of the case file (repeatable; same validation as
                            the file: --set lattice.dx=1e-4, --set boundaries.iolet.0.velocity=0.1)
  --steps N                 number of time steps (overrides run.steps and run.end_time)
  --backend cpu|cuda        where kernels run (same as --set run.backend=...)
  --output DIR, -o DIR      output folder (default: out/<case name>)
  --progress auto|always|never
                            the progress line (auto: shown unless --quiet)
  --quiet, -q               only warnings and errors
  --help, -h                this help
)";

const char* const footer = R"(
)" HEMO_EXIT_CODES;

const char* const run_usage = R"(usage: hemoflow run CASE.toml [options]

Runs a case: reads and validates it, builds the geometry, the mesh and the fields, steps
it and writes summary.json, case.toml (as run), fields.xmf with fields/*.h5 and the
probes' CSV files into the output folder. Before stepping it prints dx, dt, tau, and the
Mach and Reynolds numbers (see hemoflow check --help).

  --restart DIR             continue from DIR/checkpoint.h5 (or a checkpoint file), written
                            by a run of the same case with [checkpoint] every, final or
                            wall_seconds, on any rank count; the run goes on to its end step
                            (run.steps or --steps), bitwise as if it had never stopped. In
                            its own output folder it continues the CSV series and snapshots.
  --overwrite               replace another run's results in the output folder (snapshots,
                            CSV series, summary, checkpoint), which a fresh run otherwise
                            refuses; a run that failed before its first step is replaced
                            without it

The output folder is locked while the run lasts (.hemoflow.lock): a second run into it is
refused, naming the first. Partial files of an interrupted write (*.tmp) are removed.

SIGTERM, SIGINT (Ctrl-C) and SIGUSR1 (Slurm's --signal=USR1@SECONDS) stop the run after
the step it is in, on every rank, with a checkpoint: exit code 4; repeated signals are
ignored until the checkpoint is written (docs/cluster.md, "Signals").
)";

const char* const check_usage = R"(usage: hemoflow check CASE.toml [options]

Validates a case and builds its mesh without running it: reports every problem of the
case file at once (file:line:column), then prints the fluid nodes, the steps, tau, the
Mach and Reynolds numbers and the memory one rank needs (its largest fields and buffers,
and whether it fits this machine: run refuses what would not fit where it runs). The
reference velocity is the largest the case imposes (a velocity iolet's peak, a moving
wall, the initial velocity, the forcing's Poiseuille velocity); the reference length is
the diameter of the velocity iolet that sets it, else the geometry's.
flow.reference_velocity and flow.reference_length override them.

Check and run refuse (exit code 2), with the setting that would pass: a Mach number above
flow.max_mach (0.3; warned above 0.1); a grid Reynolds number U dx / nu above what the
collision operator survived in the stability map (lb_bgk.max_grid_reynolds; bgk 34, trt 12,
regularized 270); red blood cells that would cross a tile in a step (docs/stability.md,
"Limits checked before a run").

  --ranks N   also partition the mesh for N MPI ranks as a run would (bricks of
              partition.brick voxels, SCOTCH) and print each rank's bricks and fluid
              nodes, the imbalance (largest / mean) and the time the partitioning took
  --time N    also run N steps of the case (20 or more; nothing is kept: a temporary
              output folder, no snapshots, probes or checkpoints) on the backend it
              names, and estimate the whole run's time from the steps after the first 10
              and the set-up's
)";

const char* const mesh_usage = R"(usage: hemoflow mesh CASE.toml [--voxels FILE] [--set SECTION.KEY=VALUE]...
       hemoflow mesh SURFACE.stl --find-iolets [--unit m|mm|um] [--caps CAP.stl [CAP.stl...]]
       hemoflow mesh OPEN.stl --cap CLOSED.stl [--unit m|mm|um]

mesh CASE.toml: voxelizes the case's geometry once (an STL: solid fractions with
geometry.subsamples^3 samples per cell) and writes it to FILE (default: next to the case,
<case>.voxels.h5); a case then loads it with geometry.shape = "voxels", geometry.file = FILE.

mesh SURFACE.stl --find-iolets: fits a plane to each opening of a vessel surface and
prints them as [[boundaries.iolet]] tables to paste into a case, largest first. The largest
is suggested as the inlet (a parabolic velocity profile; fill in its velocity), the others
as outlets at zero pressure. Normals point out of the fluid; radius = sqrt(area / pi).
  - An open surface: the openings are its open ends (loops of boundary edges).
  - A closed surface: give one cap file per opening with --caps, as meshing tools export
    them: the flat patch of triangles that closes the opening, which are also triangles
    of SURFACE.stl. Each cap is fitted by its area-weighted centroid and normal, and is
    refused if it is not flat to 1% of its radius or if its centre lies farther than 3%
    of its radius from SURFACE. Which way is out of the fluid is decided by voxelizing
    SURFACE (ray parity): the triangles' winding is never used.

mesh OPEN.stl --cap CLOSED.stl: closes every opening of an open surface with a flat cap (a
fan of triangles from the opening's area centroid), writes the closed surface to
CLOSED.stl (in the same unit) and each cap beside it (CLOSED_cap1.stl, ... largest first),
and prints the iolets of those caps as --find-iolets --caps would. An opening whose rim is
not flat to 1% of its radius is refused (cut it with a plane first). Rim vertices closer
than a millionth of the surface's size are welded when any STL is read.

options:
  --voxels FILE             mesh CASE.toml: where to write the voxel geometry
  --set SECTION.KEY=VALUE   mesh CASE.toml: override a key of the case file (repeatable)
  --find-iolets             fit iolet planes to the openings of SURFACE.stl
  --unit m|mm|um            the unit of SURFACE.stl and of every cap file (default: m)
  --caps CAP.stl...         the cap files of a closed SURFACE.stl: every argument up to the
                            next option; a quoted pattern such as 'caps/*.stl' is expanded by
                            hemoflow. Give SURFACE.stl before --caps.
  --cap CLOSED.stl          close the openings of OPEN.stl with flat caps (see above)
  --quiet, -q               only warnings and errors
  --help, -h                this help
)";

const char* const stl_pipe_usage = R"(usage: hemoflow stl-pipe --output FILE.stl --radius R --length L [--axis X,Y,Z] [--center X,Y,Z]
                         [--segments N] [--end-radius R2] [--open] [--cap-files PREFIX]

Writes the wall of a circular pipe as binary STL (m), e.g. tilted off the lattice axes,
for validation cases and tests: closed by flat caps (fans around a centre vertex) unless
--open.

options:
  --output FILE.stl, -o     the file to write
  --radius R                radius (m); with --end-radius, at the end at center - axis L/2
  --end-radius R2           radius (m) at the end at center + axis L/2 (default: R): a
                            tapered pipe
  --length L                length (m) along the axis
  --axis X,Y,Z              direction of the axis, any length (default: 1,0,0)
  --center X,Y,Z            centre of the pipe (m) (default: 0,0,0)
  --segments N              vertices around (default: 128, at least 8)
  --open                    leave both ends open (two boundary loops)
  --cap-files PREFIX        also write the triangles of each end cap as a surface of its own,
                            PREFIX_0.stl (the end at -axis) and PREFIX_1.stl (+axis), as a
                            meshing tool does (for mesh --find-iolets --caps); not with --open
  --quiet, -q               only warnings and errors
  --help, -h                this help
)";

const char* const info_usage = R"(usage: hemoflow info [--keys [--markdown]]

Prints the build (version, commit, build type), the backends and CUDA devices, the plugins
found and the plugin search path.

options:
  --keys                    instead, every config key of core and of the plugins found:
                            type, default, unit, range and description
  --markdown                with --keys: as the tables of docs/config-reference.md
  --help, -h                this help
)";

}  // namespace

std::string usage_text(const std::string& command) {
  if (command == "run") return std::string(run_usage) + case_options + footer;
  if (command == "check") return std::string(check_usage) + case_options + footer;
  if (command == "mesh") return std::string(mesh_usage) + footer;
  if (command == "stl-pipe") return std::string(stl_pipe_usage) + footer;
  if (command == "info") return std::string(info_usage);
  return overview;
}

}  // namespace hemo::app
