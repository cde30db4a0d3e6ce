#include "core/sim/output_actions.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "core/common/error.hpp"
#include "core/common/text.hpp"

namespace hemo {

namespace {

bool safe_file_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

io::ProbeSample locate(const config::Config& probe, std::string_view key, const mesh::SparseMesh& mesh,
                       const std::array<double, 3>& p, double s) {
  // Within one voxel diagonal of a fluid node counts as inside: the wall lies half a
  // spacing beyond the last node.
  const auto node = mesh.nearest(p, 2);
  if (!node) {
    probe.fail(key, str("the point (", fmt_g(p[0]), ", ", fmt_g(p[1]), ", ", fmt_g(p[2]),
                        ") m is not in the fluid (no fluid node within two lattice spacings)"));
  }
  return {*node, mesh.position(*node), s};
}

}  // namespace

OutputActions::OutputActions(const config::Config& cfg, const mesh::SparseMesh& mesh, const LatticeUnits& units,
                             std::string output_dir, std::int64_t last_step, exec::Space space, Precision precision)
    : mesh_(mesh), units_(units), dir_(std::move(output_dir)), last_step_(last_step),
      snapshot_(space, precision, mesh.num_nodes, mesh.stride) {
  every_ = cfg.integer("output.every");
  final_ = cfg.boolean("output.final");
  field_names_ = cfg.strings("output.fields");
  format_ = cfg.string("output.precision") == "float32" ? io::FloatFormat::float32 : io::FloatFormat::float64;

  std::vector<std::string> names;
  for (const config::Config& p : cfg.tables("output.probe")) {
    io::ProbeSpec spec;
    spec.name = p.string("name");
    if (!safe_file_name(spec.name)) p.fail("name", "use only letters, digits, '_' and '-' (it becomes a file name)");
    if (std::find(names.begin(), names.end(), spec.name) != names.end()) p.fail("name", "another probe has this name");
    names.push_back(spec.name);
    spec.every = p.integer("every");
    std::vector<io::ProbeSample> samples;
    if (p.string("type") == "point") {
      if (!p.has("position")) p.fail("position", "is required for a point probe");
      for (const char* k : {"start", "end"})
        if (p.has(k)) p.fail(k, "applies to line probes only; a point probe takes 'position'");
      spec.kind = io::ProbeSpec::Kind::point;
      spec.start = p.vec3("position");
      samples.push_back(locate(p, "position", mesh, spec.start, 0.0));
    } else {
      for (const char* k : {"start", "end"})
        if (!p.has(k)) p.fail(k, "is required for a line probe");
      if (p.has("position")) p.fail("position", "applies to point probes only; a line probe takes 'start' and 'end'");
      spec.kind = io::ProbeSpec::Kind::line;
      spec.start = p.vec3("start");
      spec.end = p.vec3("end");
      spec.points = static_cast<int>(p.integer("points"));
      const double length = std::sqrt((spec.end[0] - spec.start[0]) * (spec.end[0] - spec.start[0]) +
                                      (spec.end[1] - spec.start[1]) * (spec.end[1] - spec.start[1]) +
                                      (spec.end[2] - spec.start[2]) * (spec.end[2] - spec.start[2]));
      if (!(length > 0.0)) p.fail("end", "the line has zero length");
      for (int s = 0; s < spec.points; ++s) {
        const double t = double(s) / double(spec.points - 1);
        const std::array<double, 3> x{spec.start[0] + t * (spec.end[0] - spec.start[0]),
                                      spec.start[1] + t * (spec.end[1] - spec.start[1]),
                                      spec.start[2] + t * (spec.end[2] - spec.start[2])};
        samples.push_back(locate(p, s == 0 ? "start" : (s == spec.points - 1 ? "end" : "start"), mesh, x, t * length));
      }
    }
    probes_.emplace_back(dir_, spec, std::move(samples));
    files_.push_back(probes_.back().path());
  }
}

bool OutputActions::fields_due(std::int64_t step) const {
  return (every_ > 0 && step % every_ == 0) || (final_ && step == last_step_);
}

bool OutputActions::due(std::int64_t step) const {
  if (fields_due(step)) return true;
  return std::any_of(probes_.begin(), probes_.end(), [&](const io::Probe& p) { return p.due(step); });
}

OutputActions::~OutputActions() {
  if (background_.joinable()) background_.join();
}

void OutputActions::finish() {
  if (background_.joinable()) background_.join();
  if (writer_error_) std::rethrow_exception(std::exchange(writer_error_, nullptr));
}

void OutputActions::write(std::int64_t step, double time, const FieldRegistry& fields) {
  if (!due(step)) return;
  finish();  // the previous snapshot's files first; its buffers are reused below
  snapshot_.capture(fields);
  background_ = std::thread([this, step, time] {
    try {
      snapshot_.wait();
      write_files(step, time);
    } catch (...) {
      writer_error_ = std::current_exception();
    }
  });
}

void OutputActions::write_files(std::int64_t step, double time) {
  const std::size_t n = snapshot_.nodes();
  auto rho = [this](std::uint32_t i) { return snapshot_.value(0, i); };
  auto u = [this](int c, std::uint32_t i) { return snapshot_.value(1 + c, i); };

  for (io::Probe& probe : probes_) {
    if (!probe.due(step)) continue;
    io::ProbeValues v;
    for (const io::ProbeSample& s : probe.samples()) {
      v.density.push_back(units_.density_to_physical(rho(s.node)));
      v.pressure.push_back(units_.pressure_to_physical(rho(s.node)));
      v.velocity.push_back({units_.velocity_to_physical(u(0, s.node)), units_.velocity_to_physical(u(1, s.node)),
                            units_.velocity_to_physical(u(2, s.node))});
    }
    probe.record(step, time, v);
  }

  if (!fields_due(step)) return;
  if (!writer_) {
    std::vector<std::array<double, 3>> positions(n);
    std::vector<std::array<std::int32_t, 3>> voxel(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      positions[i] = mesh_.position(i);
      voxel[i] = {mesh_.i[i], mesh_.j[i], mesh_.k[i]};
    }
    writer_ = std::make_unique<io::FieldWriter>(dir_, positions, voxel, format_);
    files_.push_back((std::filesystem::path(dir_) / "fields.xmf").string());
  }
  std::vector<io::HostField> out;
  for (const std::string& name : field_names_) {
    io::HostField f;
    f.name = name;
    if (name == "density") {
      f.unit = "kg/m^3";
      f.values.resize(n);
      for (std::uint32_t i = 0; i < n; ++i) f.values[i] = units_.density_to_physical(rho(i));
    } else if (name == "pressure") {
      f.unit = "Pa";
      f.values.resize(n);
      for (std::uint32_t i = 0; i < n; ++i) f.values[i] = units_.pressure_to_physical(rho(i));
    } else {
      f.unit = "m/s";
      f.components = 3;
      f.values.resize(3 * n);
      for (std::uint32_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) f.values[3 * i + c] = units_.velocity_to_physical(u(c, i));
    }
    out.push_back(std::move(f));
  }
  writer_->write(step, time, out);
}

}  // namespace hemo
