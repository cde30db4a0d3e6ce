#include "core/sim/output_actions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

}  // namespace

io::ProbeSample OutputActions::locate(const config::Config& probe, std::string_view key, const std::array<double, 3>& p,
                                      double s) {
  // Within one voxel diagonal of a fluid node counts as inside: the wall lies half a
  // spacing beyond the last node. The nearest node of all ranks wins (ties: the lower
  // voxel index), so every rank count samples the same node.
  const auto node = mesh_.nearest(p, 2);
  double d2 = std::numeric_limits<double>::infinity(), voxel = 0.0;
  if (node) {
    const auto x = mesh_.position(*node);
    d2 = (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]);
    voxel = double(mesh_.voxel_index(*node));
  }
  const double best = -comm_.max(-d2);
  const bool candidate = node && d2 <= best + 1e-24;
  const double best_voxel = -comm_.max(candidate ? -voxel : -std::numeric_limits<double>::infinity());
  if (!std::isfinite(best)) {
    probe.fail(key, str("the point (", fmt_g(p[0]), ", ", fmt_g(p[1]), ", ", fmt_g(p[2]),
                        ") m is not in the fluid (no fluid node within two lattice spacings)"));
  }
  const bool mine = candidate && voxel == best_voxel;
  std::array<double, 3> x{0.0, 0.0, 0.0};
  if (mine) x = mesh_.position(*node);
  comm_.sum(std::span<double>(x.data(), 3));  // the owner's position; zeros elsewhere
  return {mine ? *node : std::uint32_t(-1), x, s};
}

OutputActions::OutputActions(const config::Config& cfg, const mesh::SparseMesh& mesh, const LatticeUnits& units,
                             std::string output_dir, std::int64_t last_step, exec::Space space, Precision precision,
                             comm::Communicator& comm, std::int64_t first_step)
    : mesh_(mesh), comm_(comm), units_(units), dir_(std::move(output_dir)), last_step_(last_step), first_step_(first_step),
      snapshot_(space, precision, mesh.num_nodes, mesh.stride) {
  every_ = cfg.integer("output.every");
  final_ = cfg.boolean("output.final");
  // Where each node goes in the files; gathered here, on every rank's main thread, only
  // if snapshots will be written.
  if (every_ > 0 || final_) file_nodes_ = gather_voxels(mesh_, comm_);
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
      samples.push_back(locate(p, "position", spec.start, 0.0));
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
        samples.push_back(locate(p, s == 0 ? "start" : (s == spec.points - 1 ? "end" : "start"), x, t * length));
      }
    }
    std::vector<std::int64_t> nodes;
    for (const io::ProbeSample& sample : samples)
      nodes.push_back(sample.node == std::uint32_t(-1) ? -1 : std::int64_t(sample.node));
    probe_specs_.push_back(spec);
    probe_nodes_.push_back(std::move(nodes));
    if (comm_.rank() == 0) {
      probes_.emplace_back(dir_, spec, std::move(samples), first_step_);
      files_.push_back(probes_.back().path());
    }
  }
}

bool OutputActions::fields_due(std::int64_t step) const {
  return (every_ > 0 && step % every_ == 0) || (final_ && step == last_step_);
}

bool OutputActions::due(std::int64_t step) const {
  if (fields_due(step)) return true;
  for (std::size_t p = 0; p < probe_specs_.size(); ++p)
    if (probe_specs_[p].due(step)) return true;
  return false;
}

OutputActions::~OutputActions() {
  if (background_.joinable()) background_.join();
}

void OutputActions::finish() {
  if (background_.joinable()) background_.join();
  if (writer_error_) std::rethrow_exception(std::exchange(writer_error_, nullptr));
}

std::vector<double> OutputActions::probe_moments(std::int64_t step) const {
  // The four moments of each sample of each due probe; zeros where another rank owns the
  // sample, so the sum over ranks is the owner's value exactly.
  std::vector<double> v;
  for (std::size_t p = 0; p < probe_specs_.size(); ++p) {
    if (!probe_specs_[p].due(step)) continue;
    for (std::int64_t node : probe_nodes_[p])
      for (int row = 0; row < 4; ++row) v.push_back(node < 0 ? 0.0 : snapshot_.value(row, std::uint32_t(node)));
  }
  return v;
}

void OutputActions::record_probes(std::int64_t step, double time, const std::vector<double>& moments) {
  std::size_t at = 0;
  for (std::size_t p = 0; p < probes_.size(); ++p) {
    if (!probe_specs_[p].due(step)) continue;
    io::ProbeValues v;
    for (std::size_t s = 0; s < probe_nodes_[p].size(); ++s, at += 4) {
      v.density.push_back(units_.density_to_physical(moments[at]));
      v.pressure.push_back(units_.pressure_to_physical(moments[at]));
      v.velocity.push_back({units_.velocity_to_physical(moments[at + 1]), units_.velocity_to_physical(moments[at + 2]),
                            units_.velocity_to_physical(moments[at + 3])});
    }
    probes_[p].record(step, time, v);
  }
}

void OutputActions::write(std::int64_t step, double time, const FieldRegistry& fields) {
  if (!due(step)) return;
  finish();  // the previous snapshot's files first; its buffers are reused below
  snapshot_.capture(fields);
  if (comm_.size() > 1) {
    write_gathered(step, time);
    return;
  }
  background_ = std::thread([this, step, time] {
    try {
      snapshot_.wait();
      record_probes(step, time, probe_moments(step));
      if (fields_due(step))
        write_fields(step, time, mesh_.num_fluid(), [this](int row, std::size_t i) {
          return snapshot_.value(row, mesh_.fluid_node(std::uint32_t(i)));
        });
    } catch (...) {
      writer_error_ = std::current_exception();
    }
  });
}

void OutputActions::write_gathered(std::int64_t step, double time) {
  // MPI is called from this (the main) thread only; rank 0's files are written behind it.
  snapshot_.wait();
  std::vector<double> probes = probe_moments(step);
  if (!probes.empty()) comm_.sum(probes);
  const bool fields = fields_due(step);
  const std::uint32_t n = mesh_.num_fluid();  // in gather_voxels' order: fluid nodes, no holes
  if (fields) {
    std::vector<double> mine(4 * std::size_t(n));  // node-major: 4 values per node
    for (std::uint32_t i = 0; i < n; ++i)
      for (int row = 0; row < 4; ++row) mine[4 * std::size_t(i) + row] = snapshot_.value(row, mesh_.fluid_node(i));
    gathered_ = comm_.gather(std::span<const double>(mine), 0);
  }
  if (comm_.rank() != 0) return;
  probe_values_ = std::move(probes);
  background_ = std::thread([this, step, time, fields] {
    try {
      record_probes(step, time, probe_values_);
      if (fields)
        write_fields(step, time, gathered_.size() / 4,
                     [this](int row, std::size_t node) { return gathered_[4 * node + std::size_t(row)]; });
    } catch (...) {
      writer_error_ = std::current_exception();
    }
  });
}

void OutputActions::write_fields(std::int64_t step, double time, std::size_t n, const Moments& value) {
  const std::vector<std::size_t>& order = file_nodes_.ascending;
  if (!writer_) {
    std::vector<std::array<double, 3>> positions(n);
    std::vector<std::array<std::int32_t, 3>> voxel(n);
    for (std::size_t p = 0; p < n; ++p) {
      const std::uint64_t v = file_nodes_.voxel[order[p]];
      voxel[p] = mesh_.voxel_coordinates(v);
      positions[p] = mesh_.voxel_centre(v);
    }
    writer_ = std::make_unique<io::FieldWriter>(dir_, positions, voxel, format_, first_step_);
    files_.push_back((std::filesystem::path(dir_) / "fields.xmf").string());
    std::vector<std::uint64_t>().swap(file_nodes_.voxel);  // in mesh.h5 now; the order stays
  }
  auto rho = [&](std::size_t p) { return value(0, order[p]); };
  auto u = [&](int c, std::size_t p) { return value(1 + c, order[p]); };
  std::vector<io::HostField> out;
  for (const std::string& name : field_names_) {
    io::HostField f;
    f.name = name;
    if (name == "density") {
      f.unit = "kg/m^3";
      f.values.resize(n);
      for (std::size_t i = 0; i < n; ++i) f.values[i] = units_.density_to_physical(rho(i));
    } else if (name == "pressure") {
      f.unit = "Pa";
      f.values.resize(n);
      for (std::size_t i = 0; i < n; ++i) f.values[i] = units_.pressure_to_physical(rho(i));
    } else {
      f.unit = "m/s";
      f.components = 3;
      f.values.resize(3 * n);
      for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) f.values[3 * i + c] = units_.velocity_to_physical(u(c, i));
    }
    out.push_back(std::move(f));
  }
  writer_->write(step, time, out);
}

}  // namespace hemo
