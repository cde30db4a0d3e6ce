#include "core/app/cli.hpp"

#include <cstdlib>
#include <cstring>

#include "core/common/text.hpp"

namespace hemo::app {

const char* usage_text() {
  return R"(usage:
  hemoflow run CASE.toml [options]     run a case
  hemoflow check CASE.toml [options]   validate a case and build its mesh, without running
  hemoflow mesh CASE.toml [--voxels FILE] [--set ...]
                                       voxelize the case's geometry once (an STL: solid fractions
                                       with geometry.subsamples^3 samples) and write it to FILE
                                       (default: next to the case, <case>.voxels.h5); a case then
                                       loads it with geometry.shape = "voxels", geometry.file = FILE
  hemoflow mesh SURFACE.stl --find-iolets [--unit m|mm|um]
                                       fit a plane to each open end of an open surface and print
                                       them as [[boundaries.iolet]] tables to paste into a case
  hemoflow stl-pipe --output FILE.stl --radius R --length L [--axis X,Y,Z] [--center X,Y,Z]
                    [--segments N] [--open]
                                       write a triangulated pipe (m), e.g. tilted, for validation
  hemoflow info [--keys [--markdown]]  build, backends, devices and plugins; --keys: every config key
  hemoflow --version | --help

options for run and check:
  --set SECTION.KEY=VALUE   override a key of the case file (repeatable; same validation)
  --steps N                 number of time steps (overrides run.steps and run.end_time)
  --backend cpu|cuda        where kernels run (same as --set run.backend=...)
  --output DIR              output folder (default: out/<case name>)
  --progress auto|always|never
  --quiet                   only warnings and errors

exit codes: 0 success, 1 other failure, 2 bad input (case file, geometry, options),
            3 the run diverged (NaN; step and node are reported)
environment: HEMO_PLUGIN_PATH (extra plugin folders), OMP_NUM_THREADS (CPU threads)
)";
}

CommandLine parse_command_line(int argc, char** argv) {
  CommandLine cl;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) throw UsageError("no command given");
  std::size_t i = 0;
  const std::string first = args[i++];
  if (first == "--help" || first == "-h" || first == "help") {
    cl.command = "help";
    return cl;
  }
  if (first == "--version") {
    cl.command = "version";
    return cl;
  }
  if (first != "run" && first != "check" && first != "info" && first != "mesh" && first != "stl-pipe") {
    throw UsageError(str("unknown command '", first, "'", first.size() > 5 && first.substr(first.size() - 5) == ".toml"
                                                               ? " (did you mean 'hemoflow run " + first + "'?)"
                                                               : ""));
  }
  cl.command = first;
  auto value_of = [&](const std::string& opt) -> std::string {
    if (i >= args.size()) throw UsageError(str(opt, " needs a value"));
    return args[i++];
  };
  while (i < args.size()) {
    std::string a = args[i++];
    // Accept --opt=value as well as --opt value.
    std::string inline_value;
    bool has_inline = false;
    if (a.rfind("--", 0) == 0) {
      const auto eq = a.find('=');
      if (eq != std::string::npos && a.rfind("--set", 0) != 0) {
        inline_value = a.substr(eq + 1);
        a = a.substr(0, eq);
        has_inline = true;
      } else if (a.rfind("--set=", 0) == 0) {
        inline_value = a.substr(6);
        a = "--set";
        has_inline = true;
      }
    }
    auto value = [&](const std::string& opt) { return has_inline ? inline_value : value_of(opt); };
    if (a == "--set") cl.run.overrides.push_back(value(a));
    else if (a == "--steps") {
      const std::string v = value(a);
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1) throw UsageError("--steps takes a positive whole number, not '" + v + "'");
      cl.run.steps = n;
    }
    else if (a == "--backend") cl.run.overrides.push_back("run.backend=\"" + value(a) + "\"");
    else if (a == "--output" || a == "-o") cl.run.output_dir = value(a);
    else if (a == "--progress") {
      const std::string v = value(a);
      if (v == "auto") cl.run.progress = ProgressMode::automatic;
      else if (v == "always") cl.run.progress = ProgressMode::always;
      else if (v == "never") cl.run.progress = ProgressMode::never;
      else throw UsageError("--progress takes auto, always or never, not '" + v + "'");
    } else if (a == "--quiet" || a == "-q") cl.quiet = true;
    else if (a == "--voxels" && cl.command == "mesh") cl.voxel_file = value(a);
    else if (a == "--find-iolets" && cl.command == "mesh") cl.find_iolets = true;
    else if (a == "--unit" && cl.command == "mesh") cl.unit = value(a);
    else if (cl.command == "stl-pipe" && (a == "--radius" || a == "--length" || a == "--segments")) {
      const std::string v = value(a);
      char* end = nullptr;
      const double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !(x > 0)) throw UsageError(str(a, " takes a positive number, not '", v, "'"));
      if (a == "--radius") cl.pipe_radius = x;
      else if (a == "--length") cl.pipe_length = x;
      else cl.pipe_segments = static_cast<int>(x);
    } else if (cl.command == "stl-pipe" && (a == "--axis" || a == "--center")) {
      const std::string v = value(a);
      std::vector<double> xyz;
      std::size_t at = 0;
      while (at <= v.size()) {
        const std::size_t comma = v.find(',', at);
        const std::string part = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        char* end = nullptr;
        xyz.push_back(std::strtod(part.c_str(), &end));
        if (part.empty() || *end != '\0') throw UsageError(str(a, " takes three numbers X,Y,Z, not '", v, "'"));
        if (comma == std::string::npos) break;
        at = comma + 1;
      }
      if (xyz.size() != 3) throw UsageError(str(a, " takes three numbers X,Y,Z, not '", v, "'"));
      (a == "--axis" ? cl.pipe_axis : cl.pipe_center) = xyz;
    } else if (a == "--open" && cl.command == "stl-pipe") cl.pipe_open = true;
    else if (a == "--keys" && cl.command == "info") cl.keys = true;
    else if (a == "--markdown" && cl.command == "info") cl.markdown = true;
    else if (a.rfind("-", 0) == 0) {
      const std::vector<std::string> known{"--set",     "--steps",  "--backend",     "--output", "--progress",
                                           "--quiet",   "--keys",   "--markdown",    "--voxels", "--find-iolets",
                                           "--unit",    "--radius", "--length",      "--axis",   "--center",
                                           "--segments", "--open"};
      const std::string hint = closest_match(a, known);
      throw UsageError(str("unknown option '", a, "'", hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    } else if (cl.command != "info" && cl.command != "stl-pipe" && cl.run.case_path.empty()) cl.run.case_path = a;
    else throw UsageError(str("unexpected argument '", a, "'"));
  }
  if ((cl.command == "run" || cl.command == "check") && cl.run.case_path.empty())
    throw UsageError(str("'hemoflow ", cl.command, "' needs a case file: hemoflow ", cl.command, " CASE.toml"));
  if (cl.command == "mesh" && cl.run.case_path.empty())
    throw UsageError("'hemoflow mesh' needs a case file or an STL file");
  if (cl.command == "stl-pipe") cl.stl_output = cl.run.output_dir;
  if (cl.command == "stl-pipe" && (cl.stl_output.empty() || !(cl.pipe_radius > 0) || !(cl.pipe_length > 0)))
    throw UsageError("'hemoflow stl-pipe' needs --output FILE.stl, --radius R and --length L");
  return cl;
}

}  // namespace hemo::app
