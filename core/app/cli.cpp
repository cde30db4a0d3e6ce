#include "core/app/cli.hpp"

#include <cstdlib>
#include <cstring>

#include "core/common/text.hpp"

namespace hemo::app {

const char* usage_text() {
  return R"(usage:
  hemoflow run CASE.toml [options]     run a case
  hemoflow check CASE.toml [options]   validate a case and build its mesh, without running
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
  if (first != "run" && first != "check" && first != "info") {
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
    else if (a == "--keys" && cl.command == "info") cl.keys = true;
    else if (a == "--markdown" && cl.command == "info") cl.markdown = true;
    else if (a.rfind("-", 0) == 0) {
      const std::vector<std::string> known{"--set", "--steps", "--backend", "--output", "--progress", "--quiet", "--keys", "--markdown"};
      const std::string hint = closest_match(a, known);
      throw UsageError(str("unknown option '", a, "'", hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    } else if (cl.command != "info" && cl.run.case_path.empty()) cl.run.case_path = a;
    else throw UsageError(str("unexpected argument '", a, "'"));
  }
  if ((cl.command == "run" || cl.command == "check") && cl.run.case_path.empty())
    throw UsageError(str("'hemoflow ", cl.command, "' needs a case file: hemoflow ", cl.command, " CASE.toml"));
  return cl;
}

}  // namespace hemo::app
