#include "core/io/field_writer.hpp"

#include <hdf5.h>

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

#include "core/io/json.hpp"

namespace hemo::io {

namespace {

namespace fs = std::filesystem;

static_assert(sizeof(std::array<double, 3>) == 3 * sizeof(double),
              "positions are written straight from the vector as an N x 3 array");
static_assert(sizeof(std::array<std::int32_t, 3>) == 3 * sizeof(std::int32_t),
              "voxels are written straight from the vector as an N x 3 array");

// HDF5 prints its error stack to stderr by default; we report errors as exceptions
// instead, and restore the caller's setting afterwards so that other HDF5 users in the
// process keep theirs.
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  QuietHdf5(const QuietHdf5&) = delete;
  QuietHdf5& operator=(const QuietHdf5&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// The innermost message of the current HDF5 error stack: it carries the cause
// (errno text, "name already exists", ...), where the outer ones only repeat the call.
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* err, void* out) -> herr_t {
        if (n == 0 && err->desc) *static_cast<std::string*>(out) = err->desc;
        return 0;
      },
      &reason);
  return reason.empty() ? std::string() : " (" + reason + ")";
}

class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() {
    if (id_ >= 0) closer_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  herr_t close() {
    const herr_t r = id_ >= 0 ? closer_(id_) : 0;
    id_ = H5I_INVALID_HID;
    return r;
  }

 private:
  hid_t id_;
  Closer closer_;
};

// One HDF5 file written under <path>.tmp and renamed over <path> by commit(); if it is
// abandoned (an exception), the temporary file is closed and removed.
class H5Out {
 public:
  explicit H5Out(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {
    Handle fapl(check_id(H5Pcreate(H5P_FILE_ACCESS), "create a file access list"), H5Pclose);
#if H5_VERSION_GE(1, 10, 7) && !(H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 12 && H5_VERS_RELEASE == 0)
    // Nobody else opens the temporary file, and locking fails outright on some
    // cluster file systems (no flock on Lustre/NFS mounts).
    check(H5Pset_file_locking(fapl.get(), false, true), "disable file locking");
#endif
    file_ = check_id(H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()),
                     "create the file");
  }
  ~H5Out() {
    if (file_ >= 0) {
      H5Fclose(file_);
      std::remove(tmp_.c_str());
    }
  }
  H5Out(const H5Out&) = delete;
  H5Out& operator=(const H5Out&) = delete;

  hid_t root() const { return file_; }

  void dataset(const std::string& name, hid_t file_type, hid_t mem_type, int rank,
               const hsize_t* dims, const void* data, const std::string* unit) {
    const std::string what = "write dataset /" + name;
    Handle space(check_id(H5Screate_simple(rank, dims, nullptr), what.c_str()), H5Sclose);
    Handle dset(check_id(H5Dcreate2(file_, name.c_str(), file_type, space.get(), H5P_DEFAULT,
                                    H5P_DEFAULT, H5P_DEFAULT),
                         what.c_str()),
                H5Dclose);
    hsize_t total = 1;
    for (int i = 0; i < rank; ++i) total *= dims[i];
    // An empty vector may hand us a null pointer, which H5Dwrite rejects.
    if (total > 0)
      check(H5Dwrite(dset.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), what.c_str());
    if (unit) string_attribute(dset.get(), "unit", *unit);
    check(dset.close(), what.c_str());
  }

  // Variable-length UTF-8, so h5py returns a str rather than bytes.
  void string_attribute(hid_t obj, const char* name, const std::string& value) {
    const std::string what = std::string("write attribute ") + name;
    Handle type(check_id(H5Tcopy(H5T_C_S1), what.c_str()), H5Tclose);
    check(H5Tset_size(type.get(), H5T_VARIABLE), what.c_str());
    check(H5Tset_cset(type.get(), H5T_CSET_UTF8), what.c_str());
    Handle space(check_id(H5Screate(H5S_SCALAR), what.c_str()), H5Sclose);
    Handle attr(check_id(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT,
                                    H5P_DEFAULT),
                         what.c_str()),
                H5Aclose);
    const char* p = value.c_str();
    check(H5Awrite(attr.get(), type.get(), &p), what.c_str());
    check(attr.close(), what.c_str());
  }

  void scalar_attribute(hid_t obj, const char* name, hid_t file_type, hid_t mem_type,
                        const void* value) {
    const std::string what = std::string("write attribute ") + name;
    Handle space(check_id(H5Screate(H5S_SCALAR), what.c_str()), H5Sclose);
    Handle attr(check_id(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                         what.c_str()),
                H5Aclose);
    check(H5Awrite(attr.get(), mem_type, value), what.c_str());
    check(attr.close(), what.c_str());
  }

  void commit() {
    const hid_t f = std::exchange(file_, H5I_INVALID_HID);
    if (H5Fclose(f) < 0) {
      const std::string reason = hdf5_reason();
      std::remove(tmp_.c_str());
      throw std::runtime_error("HDF5 error writing " + path_ + ": cannot close the file" +
                               reason);
    }
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      const int err = errno;
      std::remove(tmp_.c_str());
      throw std::runtime_error("cannot rename " + tmp_ + " to " + path_ + ": " +
                               std::strerror(err));
    }
  }

 private:
  void check(herr_t r, const char* what) const {
    if (r < 0) fail(what);
  }
  hid_t check_id(hid_t id, const char* what) const {
    if (id < 0) fail(what);
    return id;
  }
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error("HDF5 error writing " + path_ + ": cannot " + what +
                             hdf5_reason());
  }

  std::string path_;
  std::string tmp_;
  hid_t file_ = H5I_INVALID_HID;
};

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
                         FloatFormat format)
    : dir_(std::move(output_dir)), nodes_(positions.size()), format_(format) {
  if (voxels.size() != positions.size())
    throw std::invalid_argument("FieldWriter: " + std::to_string(positions.size()) +
                                " positions but " + std::to_string(voxels.size()) + " voxels");
  const fs::path fields_dir = fs::path(dir_) / "fields";
  std::error_code ec;
  fs::create_directories(fields_dir, ec);
  if (ec)
    throw std::runtime_error("cannot create directory " + fields_dir.string() + ": " +
                             ec.message());

  const QuietHdf5 quiet;
  H5Out out((fields_dir / "mesh.h5").string());
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
    const QuietHdf5 quiet;
    H5Out out(h5_path);
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
    out.scalar_attribute(out.root(), "step", H5T_STD_I64LE, H5T_NATIVE_LLONG, &step_value);
    out.scalar_attribute(out.root(), "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time);
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

  std::string all = kXmlHead;
  all += "  <Domain>\n";
  all += "    <Grid Name=\"fields\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const Written& w : written_) all += w.grid_xml;
  all += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  write_file_atomic((fs::path(dir_) / "fields.xmf").string(), all);
  return h5_path;
}

}  // namespace hemo::io
