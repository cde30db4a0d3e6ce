#include "core/io/probes.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "core/common/text.hpp"
#include "core/io/series_csv.hpp"

namespace hemo::io {

namespace {

void append_number(std::string& row, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ",%.10g", v);
  row += buf;
}

}  // namespace

Probe::Probe(const std::string& output_dir, ProbeSpec spec, std::vector<ProbeSample> samples,
             std::int64_t continue_after)
    : spec_(std::move(spec)), samples_(std::move(samples)) {
  if (spec_.name.empty() || spec_.name.find('/') != std::string::npos)
    throw std::invalid_argument("probe name \"" + spec_.name +
                                "\" is not a valid file name (empty or containing '/')");
  const bool line = spec_.kind == ProbeSpec::Kind::line;
  if (samples_.empty() || (!line && samples_.size() != 1))
    throw std::invalid_argument("probe \"" + spec_.name + "\": " +
                                std::to_string(samples_.size()) + " samples for a " +
                                (line ? "line (at least 1 expected)" : "point (1 expected)"));
  path_ = (std::filesystem::path(output_dir) / (spec_.name + ".csv")).string();

  // The output directory may not exist yet when probes are set up before any field
  // output; create it rather than fail on a fresh run.
  std::error_code ec;
  std::filesystem::create_directories(output_dir, ec);
  // Each column's SI unit in its name, as iolets.csv does.
  out_ = open_series_csv(path_,
                         str("step,time_s,", line ? "s_m," : "",
                             "x_m,y_m,z_m,density_kg_m3,pressure_Pa,ux_m_per_s,uy_m_per_s,uz_m_per_s"),
                         continue_after);
  if (!*out_) throw std::runtime_error("cannot write probe file " + path_);
}

void Probe::record(std::int64_t step, double time, const ProbeValues& values) {
  const std::size_t n = samples_.size();
  if (values.density.size() != n || values.pressure.size() != n || values.velocity.size() != n)
    throw std::invalid_argument(
        "probe \"" + spec_.name + "\": values for " + std::to_string(values.density.size()) +
        "/" + std::to_string(values.pressure.size()) + "/" +
        std::to_string(values.velocity.size()) + " samples (density/pressure/velocity), " +
        std::to_string(n) + " expected");
  const bool line = spec_.kind == ProbeSpec::Kind::line;
  // One write per record, so a crash leaves whole records only (short of the OS
  // splitting the write).
  std::string text;
  for (std::size_t i = 0; i < n; ++i) {
    const ProbeSample& s = samples_[i];
    text += std::to_string(step);
    append_number(text, time);
    if (line) append_number(text, s.s);
    for (const double x : s.position) append_number(text, x);
    append_number(text, values.density[i]);
    append_number(text, values.pressure[i]);
    for (const double u : values.velocity[i]) append_number(text, u);
    text += '\n';
  }
  append_row(*out_, path_, text);
}

}  // namespace hemo::io
