#include "core/io/particle_writer.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>

#include "core/common/text.hpp"
#include "core/io/hdf5_file.hpp"
#include "core/io/json.hpp"

namespace hemo::io {

namespace {

namespace fs = std::filesystem;

std::string file_stem(const std::string& set, std::int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "_%08lld", static_cast<long long>(step));
  return set + buf;
}

struct Meta {
  std::string name;
  int components;
};

std::string grid_xml(const std::string& set, std::int64_t step, double time, std::size_t count,
                     const std::vector<Meta>& attributes) {
  const std::string n = std::to_string(count), file = "particles/" + file_stem(set, step) + ".h5";
  std::string x;
  x += "      <Grid Name=\"" + file_stem(set, step) + "\" GridType=\"Uniform\">\n";
  x += "        <Time Value=\"" + fmt_round_trip(time) + "\"/>\n";
  // Polyvertex without connectivity: the points in order (count may be 0).
  x += "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" + n + "\" NodesPerElement=\"1\"/>\n";
  x += "        <Geometry GeometryType=\"XYZ\">\n";
  x += "          <DataItem Dimensions=\"" + n + " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" + file +
       ":/position</DataItem>\n";
  x += "        </Geometry>\n";
  for (const Meta& a : attributes) {
    const char* type = a.components == 1 ? "Scalar" : a.components == 3 ? "Vector" : "Matrix";
    x += "        <Attribute Name=\"" + a.name + "\" AttributeType=\"" + type + "\" Center=\"Node\">\n";
    x += "          <DataItem Dimensions=\"" + n + (a.components == 1 ? "" : " " + std::to_string(a.components)) +
         "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" + file + ":/" + a.name + "</DataItem>\n";
    x += "        </Attribute>\n";
  }
  x += "      </Grid>\n";
  return x;
}

}  // namespace

ParticleWriter::ParticleWriter(std::string output_dir, std::string set, std::int64_t continue_after)
    : dir_(std::move(output_dir)), set_(std::move(set)) {
  if (set_.empty() || set_.find_first_of("/\\ ") != std::string::npos)
    throw std::invalid_argument("ParticleWriter: invalid set name \"" + set_ + "\"");
  std::error_code ec;
  fs::create_directories(fs::path(dir_) / "particles", ec);
  if (ec) throw std::runtime_error("cannot create directory " + (fs::path(dir_) / "particles").string() + ": " + ec.message());
  if (continue_after > 0) {
    adopt_earlier_steps(continue_after);
    write_collection();
  }
}

void ParticleWriter::continue_series(const std::string& output_dir, const std::string& set,
                                     std::int64_t continue_after) {
  std::error_code ec;
  if (!fs::exists(fs::path(output_dir) / (set + ".xmf"), ec)) return;
  const ParticleWriter continued(output_dir, set, continue_after);
}

void ParticleWriter::adopt_earlier_steps(std::int64_t continue_after) {
  // The stopped run's future is recomputed by this one: its snapshots go.
  std::error_code ec;
  const std::string prefix = set_ + "_";
  for (const auto& entry : fs::directory_iterator(fs::path(dir_) / "particles", ec)) {
    const std::string name = entry.path().filename().string();
    long long step = -1;
    if (name.rfind(prefix, 0) == 0 && std::sscanf(name.c_str() + prefix.size(), "%lld", &step) == 1 &&
        step > continue_after)
      fs::remove(entry.path(), ec);
  }
  // The grids of the earlier steps whose files are there, verbatim from the collection
  // (so it reads as the uninterrupted run's).
  std::ifstream in(fs::path(dir_) / (set_ + ".xmf"));
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string open = "      <Grid Name=\"" + prefix, close = "      </Grid>\n", time = "<Time Value=\"";
  for (std::size_t at = xml.find(open); at != std::string::npos; at = xml.find(open, at + 1)) {
    const std::size_t end = xml.find(close, at), t = xml.find(time, at);
    long long step = -1;
    if (end == std::string::npos || t == std::string::npos || t > end ||
        std::sscanf(xml.c_str() + at + open.size(), "%lld", &step) != 1 || step < 0 || step > continue_after ||
        !fs::exists(fs::path(dir_) / "particles" / (file_stem(set_, step) + ".h5"), ec))
      continue;
    written_.push_back({step, std::strtod(xml.c_str() + t + time.size(), nullptr),
                        xml.substr(at, end + close.size() - at)});
  }
  std::sort(written_.begin(), written_.end(), [](const Written& a, const Written& b) { return a.step < b.step; });
}

std::string ParticleWriter::write(std::int64_t step, double time, const std::vector<std::array<double, 3>>& positions,
                                  const std::vector<HostField>& attributes) {
  const std::size_t count = positions.size();
  std::set<std::string> names{"position"};
  std::vector<Meta> meta;
  for (const HostField& a : attributes) {
    if (a.name.empty() || a.name.find('/') != std::string::npos || !names.insert(a.name).second)
      throw std::invalid_argument("ParticleWriter: attribute name \"" + a.name + "\" is empty, has '/' or is taken");
    if (a.components < 1 || a.values.size() != count * std::size_t(a.components))
      throw std::invalid_argument("ParticleWriter: attribute \"" + a.name + "\" has " + std::to_string(a.values.size()) +
                                  " values for " + std::to_string(count) + " particles of " +
                                  std::to_string(a.components) + " components");
    meta.push_back({a.name, a.components});
  }
  const std::string path = (fs::path(dir_) / "particles" / (file_stem(set_, step) + ".h5")).string();
  {
    const hdf5::Quiet quiet;
    hdf5::Output out(path);
    const std::string metres = "m";
    const hsize_t dims[2] = {count, 3};
    out.dataset("position", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dims, positions.data(), &metres);
    for (const HostField& a : attributes) {
      const hsize_t d[2] = {count, hsize_t(a.components)};
      out.dataset(a.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, a.components == 1 ? 1 : 2, d, a.values.data(), &a.unit);
    }
    const long long step_value = step, count_value = static_cast<long long>(count);
    out.attribute(out.root(), "step", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, &step_value);
    out.attribute(out.root(), "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &time);
    out.attribute(out.root(), "count", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, &count_value);
    out.commit();
  }
  Written entry{step, time, grid_xml(set_, step, time, count, meta)};
  auto it = std::lower_bound(written_.begin(), written_.end(), step,
                             [](const Written& w, std::int64_t s) { return w.step < s; });
  if (it != written_.end() && it->step == step) *it = std::move(entry);
  else written_.insert(it, std::move(entry));
  write_collection();
  return path;
}

void ParticleWriter::write_collection() const {
  std::string all = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n";
  all += "    <Grid Name=\"" + set_ + "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const Written& w : written_) all += w.grid_xml;
  all += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  write_file_atomic((fs::path(dir_) / (set_ + ".xmf")).string(), all);
}

}  // namespace hemo::io
