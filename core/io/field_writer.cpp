#include "core/io/field_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "core/io/hdf5_file.hpp"
#include "core/io/json.hpp"
#include "core/io/write_failure.hpp"

namespace hemo::io {

namespace {

namespace fs = std::filesystem;

static_assert(sizeof(std::array<double, 3>) == 3 * sizeof(double),
              "positions are written straight from the vector as an N x 3 array");
static_assert(sizeof(std::array<std::int32_t, 3>) == 3 * sizeof(std::int32_t),
              "voxels are written straight from the vector as an N x 3 array");

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// Shortest text that reads back as the same double, so ParaView's time values match
// the solver's exactly without 17-digit noise.
std::string exact_double(double d) {
  char buf[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

std::string step_stem(std::int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step_%08lld", static_cast<long long>(step));
  return buf;
}

bool connectivity_is_64bit(std::size_t nodes) {
  return nodes > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
}

struct FieldMeta {
  std::string name;
  int components;
};

// One <Grid> for a step. `prefix` is the directory of the .h5 files as seen from the
// .xmf file holding the grid ("" beside them, "fields/" from fields.xmf): the XDMF
// readers resolve HDF paths relative to the file they parse, even for xi:include'd
// grids, which is why fields.xmf inlines the grids rather than including them.
std::string grid_xml(const std::string& indent, const std::string& prefix, std::int64_t step,
                     double time, const std::vector<FieldMeta>& fields, std::size_t nodes,
                     FloatFormat format) {
  const std::string n = std::to_string(nodes);
  const std::string i1 = indent + "  ";
  const std::string i2 = indent + "    ";
  const std::string stem = step_stem(step);
  const std::string mesh = xml_escape(prefix) + "mesh.h5";
  const char* precision = format == FloatFormat::float32 ? "4" : "8";
  std::string x;
  x += indent + "<Grid Name=\"" + stem + "\" GridType=\"Uniform\">\n";
  x += i1 + "<Time Value=\"" + exact_double(time) + "\"/>\n";
  x += i1 + "<Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" + n +
       "\" NodesPerElement=\"1\">\n";
  x += i2 + "<DataItem Dimensions=\"" + n + "\" NumberType=\"Int\" Precision=\"" +
       (connectivity_is_64bit(nodes) ? "8" : "4") + "\" Format=\"HDF\">" + mesh +
       ":/connectivity</DataItem>\n";
  x += i1 + "</Topology>\n";
  x += i1 + "<Geometry GeometryType=\"XYZ\">\n";
  x += i2 + "<DataItem Dimensions=\"" + n +
       " 3\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">" + mesh +
       ":/coordinates</DataItem>\n";
  x += i1 + "</Geometry>\n";
  for (const FieldMeta& f : fields) {
    const bool vec = f.components == 3;
    const std::string name = xml_escape(f.name);
    x += i1 + "<Attribute Name=\"" + name + "\" AttributeType=\"" + (vec ? "Vector" : "Scalar") +
         "\" Center=\"Node\">\n";
    x += i2 + "<DataItem Dimensions=\"" + n + (vec ? " 3" : "") +
         "\" NumberType=\"Float\" Precision=\"" + precision + "\" Format=\"HDF\">" +
         xml_escape(prefix) + stem + ".h5:/" + name + "</DataItem>\n";
    x += i1 + "</Attribute>\n";
  }
  x += indent + "</Grid>\n";
  return x;
}

const char* const kXmlHead = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Xdmf Version=\"3.0\">\n";

}  // namespace

FieldWriter::FieldWriter(std::string output_dir,
                         const std::vector<std::array<double, 3>>& positions,
                         const std::vector<std::array<std::int32_t, 3>>& voxels,
                         FloatFormat format, std::int64_t continue_after)
    : dir_(std::move(output_dir)), nodes_(positions.size()), format_(format) {
  if (voxels.size() != positions.size())
    throw std::invalid_argument("FieldWriter: " + std::to_string(positions.size()) +
                                " positions but " + std::to_string(voxels.size()) + " voxels");
  const fs::path fields_dir = fs::path(dir_) / "fields";
  make_folder(fields_dir.string());

  const hdf5::Quiet quiet;
  hdf5::Output out((fields_dir / "mesh.h5").string());
  const hsize_t dims[2] = {nodes_, 3};
  const std::string metres = "m";
  out.dataset("coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dims, positions.data(),
              &metres);
  out.dataset("voxel", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dims, voxels.data(), nullptr);
  if (connectivity_is_64bit(nodes_)) {
    std::vector<std::int64_t> ids(nodes_);
    std::iota(ids.begin(), ids.end(), std::int64_t{0});
    out.dataset("connectivity", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, dims, ids.data(), nullptr);
  } else {
    std::vector<std::int32_t> ids(nodes_);
    std::iota(ids.begin(), ids.end(), std::int32_t{0});
    out.dataset("connectivity", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, dims, ids.data(), nullptr);
  }
  out.commit();
  if (continue_after > 0) adopt_earlier_steps(continue_after);
}

void FieldWriter::adopt_earlier_steps(std::int64_t continue_after) {
  written_ = steps_until(dir_, continue_after, nodes_);
  write_collection();
}

void FieldWriter::continue_series(const std::string& output_dir, std::int64_t continue_after) {
  std::error_code ec;
  if (!fs::exists(fs::path(output_dir) / "fields.xmf", ec)) return;
  FieldWriter listing(output_dir);
  listing.written_ = steps_until(output_dir, continue_after, 0);
  listing.write_collection();
}

std::vector<FieldWriter::Written> FieldWriter::steps_until(const std::string& dir, std::int64_t continue_after,
                                                            std::size_t nodes) {
  std::vector<Written> kept;
  const fs::path fields_dir = fs::path(dir) / "fields";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fields_dir, ec)) {
    const std::string name = entry.path().filename().string();
    long long step = -1;
    char tail[8] = {};
    if (std::sscanf(name.c_str(), "step_%lld.%4s", &step, tail) != 2 || step < 0) continue;
    if (step > continue_after) {  // the stopped run's future: recomputed by this one
      fs::remove(entry.path(), ec);
      continue;
    }
    if (std::string(tail) != "h5") continue;
    // The step's time and fields from its own file; one that does not match the mesh
    // (nodes > 0: another geometry wrote it) is left out of fields.xmf.
    const hdf5::Quiet quiet;
    try {
      const hdf5::Input in(entry.path().string(), "a field snapshot");
      Written w;
      w.step = step;
      in.numbers("time", H5T_NATIVE_DOUBLE, 1, &w.time);
      std::vector<FieldMeta> meta;
      FloatFormat format = FloatFormat::float64;
      hdf5::Handle root(H5Gopen2(in.root(), "/", H5P_DEFAULT), H5Gclose);
      H5G_info_t info{};
      if (!root.ok() || H5Gget_info(root.get(), &info) < 0) continue;
      std::size_t n = nodes;
      bool fits = true;
      for (hsize_t i = 0; i < info.nlinks; ++i) {
        char field[256] = {};
        if (H5Lget_name_by_idx(root.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, field, sizeof field, H5P_DEFAULT) < 0)
          continue;
        const hdf5::Input::Shape shape = in.shape(field);
        if (shape.dims.empty()) fits = false;
        else if (n == 0) n = shape.dims[0];
        fits = fits && shape.dims[0] == n;
        format = shape.type_size == 4 ? FloatFormat::float32 : FloatFormat::float64;
        meta.push_back({field, shape.dims.size() == 2 ? int(shape.dims[1]) : 1});
      }
      if (!fits || meta.empty()) continue;
      w.xmf_name = "fields/" + step_stem(step) + ".xmf";
      w.grid_xml = grid_xml("      ", "fields/", step, w.time, meta, n, format);
      kept.push_back(std::move(w));
    } catch (const std::exception&) {
      // Not a snapshot we can read: not listed.
    }
  }
  std::sort(kept.begin(), kept.end(), [](const Written& a, const Written& b) { return a.step < b.step; });
  return kept;
}

void FieldWriter::write_collection() const {
  std::string all = kXmlHead;
  all += "  <Domain>\n";
  all += "    <Grid Name=\"fields\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const Written& w : written_) all += w.grid_xml;
  all += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  write_file_atomic((fs::path(dir_) / "fields.xmf").string(), all);
}

std::string FieldWriter::write(std::int64_t step, double time,
                               const std::vector<HostField>& fields) {
  if (step < 0) throw std::invalid_argument("FieldWriter: negative step " + std::to_string(step));
  if (!std::isfinite(time))
    throw std::invalid_argument("FieldWriter: time of step " + std::to_string(step) +
                                " is not finite");
  std::set<std::string_view> names;
  std::vector<FieldMeta> meta;
  for (const HostField& f : fields) {
    if (f.name.empty() || f.name.find('/') != std::string::npos)
      throw std::invalid_argument("FieldWriter: invalid field name \"" + f.name +
                                  "\" (empty or containing '/')");
    if (!names.insert(f.name).second)
      throw std::invalid_argument("FieldWriter: field \"" + f.name + "\" given twice");
    if (f.components != 1 && f.components != 3)
      throw std::invalid_argument("FieldWriter: field \"" + f.name + "\" has " +
                                  std::to_string(f.components) + " components (1 or 3 expected)");
    const std::size_t expected = nodes_ * static_cast<std::size_t>(f.components);
    if (f.values.size() != expected)
      throw std::invalid_argument("FieldWriter: field \"" + f.name + "\" has " +
                                  std::to_string(f.values.size()) + " values, expected " +
                                  std::to_string(expected));
    meta.push_back({f.name, f.components});
  }

  const fs::path fields_dir = fs::path(dir_) / "fields";
  const std::string stem = step_stem(step);
  const std::string h5_path = (fields_dir / (stem + ".h5")).string();
  {
    const hdf5::Quiet quiet;
    hdf5::Output out(h5_path);
    std::vector<float> narrow;
    for (const HostField& f : fields) {
      const hsize_t dims[2] = {nodes_, static_cast<hsize_t>(f.components)};
      const int rank = f.components == 1 ? 1 : 2;
      if (format_ == FloatFormat::float32) {
        // Converted here rather than by HDF5 so the rounding is plain IEEE (overflow to
        // inf, NaN kept), whatever HDF5's conversion path would do.
        narrow.assign(f.values.begin(), f.values.end());
        out.dataset(f.name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, rank, dims, narrow.data(), &f.unit);
      } else {
        out.dataset(f.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, rank, dims, f.values.data(),
                    &f.unit);
      }
    }
    const long long step_value = step;
    out.attribute(out.root(), "step", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, &step_value);
    out.attribute(out.root(), "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &time);
    out.commit();
  }

  const std::string xmf_name = stem + ".xmf";
  std::string step_xmf = kXmlHead;
  step_xmf += "  <Domain>\n";
  step_xmf += grid_xml("    ", "", step, time, meta, nodes_, format_);
  step_xmf += "  </Domain>\n</Xdmf>\n";
  write_file_atomic((fields_dir / xmf_name).string(), step_xmf);

  // Kept in step order; writing a step again (a rerun over the same directory)
  // replaces its entry instead of listing the time twice.
  Written entry{step, time, "fields/" + xmf_name,
                grid_xml("      ", "fields/", step, time, meta, nodes_, format_)};
  auto it = std::lower_bound(written_.begin(), written_.end(), step,
                             [](const Written& w, std::int64_t s) { return w.step < s; });
  if (it != written_.end() && it->step == step)
    *it = std::move(entry);
  else
    written_.insert(it, std::move(entry));

  write_collection();
  return h5_path;
}

}  // namespace hemo::io
