#include "core/app/cli.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/common/text.hpp"

namespace hemo::app {

namespace {

/// A positive number for --radius, --length, --segments, --end-radius.
double positive_number(const std::string& option, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(x > 0)) throw UsageError(str(option, " takes a positive number, not '", v, "'"));
  return x;
}

/// A whole number in [lo, hi] for --steps, --ranks and --time; `expected` ends the message
/// ("--time takes <expected>, not '...'").
long long whole_number(const std::string& option, const std::string& v, long long lo, long long hi,
                       const std::string& expected) {
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi) throw UsageError(str(option, " takes ", expected, ", not '", v, "'"));
  return n;
}

/// Three numbers X,Y,Z for --axis and --center.
std::vector<double> three_numbers(const std::string& option, const std::string& v) {
  std::vector<double> xyz;
  std::size_t at = 0;
  while (at <= v.size()) {
    const std::size_t comma = v.find(',', at);
    const std::string part = v.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    char* end = nullptr;
    xyz.push_back(std::strtod(part.c_str(), &end));
    if (part.empty() || *end != '\0') throw UsageError(str(option, " takes three numbers X,Y,Z, not '", v, "'"));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (xyz.size() != 3) throw UsageError(str(option, " takes three numbers X,Y,Z, not '", v, "'"));
  return xyz;
}

bool is_option(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

void parse_options(CommandLine& cl, const std::vector<std::string>& args, std::size_t i);
void check_required(const CommandLine& cl);

}  // namespace

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
  // COMMAND --help wins over anything else on the line, which may be half written.
  for (std::size_t k = i; k < args.size(); ++k)
    if (args[k] == "--help" || args[k] == "-h") {
      cl.help = true;
      return cl;
    }
  try {
    parse_options(cl, args, i);
    check_required(cl);
  } catch (const UsageError& e) {
    throw UsageError(e.what(), cl.command);
  }
  return cl;
}

namespace {

void parse_options(CommandLine& cl, const std::vector<std::string>& args, std::size_t i) {
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
    else if (a == "--steps")
      cl.run.steps = whole_number(a, value(a), 1, std::numeric_limits<long long>::max(), "a positive whole number");
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
    else if (a == "--cap" && cl.command == "mesh") {
      cl.capped_output = value(a);
      if (cl.capped_output.empty()) throw UsageError("--cap takes the file to write the closed surface to, e.g. closed.stl");
    }
    else if (a == "--caps" && cl.command == "mesh") {
      // Every argument up to the next option is a cap file (or a pattern).
      const std::size_t before = cl.caps.size();
      if (has_inline) cl.caps.push_back(inline_value);
      while (i < args.size() && !is_option(args[i])) cl.caps.push_back(args[i++]);
      if (cl.caps.size() == before || cl.caps.back().empty())
        throw UsageError("--caps takes one or more cap files (or a pattern such as 'caps/*.stl')");
    } else if (cl.command == "stl-pipe" && (a == "--radius" || a == "--length" || a == "--segments")) {
      const double x = positive_number(a, value(a));
      if (a == "--radius") cl.pipe_radius = x;
      else if (a == "--length") cl.pipe_length = x;
      else cl.pipe_segments = static_cast<int>(x);
    } else if (cl.command == "stl-pipe" && a == "--end-radius") cl.pipe_end_radius = positive_number(a, value(a));
    else if (cl.command == "stl-pipe" && (a == "--axis" || a == "--center"))
      (a == "--axis" ? cl.pipe_axis : cl.pipe_center) = three_numbers(a, value(a));
    else if (a == "--open" && cl.command == "stl-pipe") cl.pipe_open = true;
    else if (a == "--cap-files" && cl.command == "stl-pipe") {
      cl.cap_prefix = value(a);
      if (cl.cap_prefix.empty()) throw UsageError("--cap-files takes a file name prefix, e.g. out/pipe_cap");
    }
    else if (a == "--keys" && cl.command == "info") cl.keys = true;
    else if (a == "--restart" && cl.command == "run") {
      cl.run.restart = value(a);
      if (cl.run.restart.empty()) throw UsageError("--restart takes an output folder (holding checkpoint.h5) or a checkpoint file");
    }
    else if (a == "--overwrite" && cl.command == "run") cl.run.overwrite = true;
    else if (a == "--ranks" && cl.command == "check")
      cl.ranks = int(whole_number(a, value(a), 1, 1000000, "a positive whole number"));
    else if (a == "--time" && cl.command == "check")
      cl.time_steps = int(whole_number(a, value(a), 20, 100000,
                                       "a number of steps from 20 to 100000 (the first 10 are a warm-up)"));
    else if (a == "--markdown" && cl.command == "info") cl.markdown = true;
    else if (a.rfind("-", 0) == 0) {
      const std::vector<std::string> known{"--set",      "--steps",      "--backend",   "--output",    "--progress",
                                           "--quiet",    "--keys",       "--markdown",  "--voxels",    "--find-iolets",
                                           "--unit",     "--caps",       "--cap",       "--radius",    "--length",    "--axis",
                                           "--center",   "--segments",   "--open",      "--end-radius", "--cap-files",
                                           "--restart",  "--overwrite",  "--ranks",      "--time",      "--help"};
      if (std::find(known.begin(), known.end(), a) != known.end())
        throw UsageError(str("option '", a, "' does not apply to 'hemoflow ", cl.command, "'"));
      const std::string hint = closest_match(a, known);
      throw UsageError(str("unknown option '", a, "'", hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    } else if (cl.command != "info" && cl.command != "stl-pipe" && cl.run.case_path.empty()) cl.run.case_path = a;
    else throw UsageError(str("unexpected argument '", a, "'"));
  }
  if (cl.command == "stl-pipe") cl.stl_output = cl.run.output_dir;
}

void check_required(const CommandLine& cl) {
  if ((cl.command == "run" || cl.command == "check") && cl.run.case_path.empty())
    throw UsageError(str("'hemoflow ", cl.command, "' needs a case file: hemoflow ", cl.command, " CASE.toml"));
  if (cl.command == "mesh" && cl.run.case_path.empty())
    throw UsageError(str("'hemoflow mesh' needs a case file or an STL file",
                         cl.caps.empty() ? "" : " (the arguments after --caps are cap files: give SURFACE.stl before --caps)"));
  if (!cl.capped_output.empty() && (cl.find_iolets || !cl.caps.empty()))
    throw UsageError("--cap closes an open surface and prints its iolets itself: leave out --find-iolets and --caps");
  if (!cl.caps.empty() && !cl.find_iolets)
    throw UsageError("--caps goes with --find-iolets: hemoflow mesh SURFACE.stl --find-iolets --caps CAP.stl...");
  if (cl.command == "stl-pipe" && (cl.stl_output.empty() || !(cl.pipe_radius > 0) || !(cl.pipe_length > 0)))
    throw UsageError("'hemoflow stl-pipe' needs --output FILE.stl, --radius R and --length L");
  if (cl.pipe_open && !cl.cap_prefix.empty())
    throw UsageError("--cap-files writes the caps of a closed pipe; leave out --open");
}

}  // namespace

}  // namespace hemo::app
