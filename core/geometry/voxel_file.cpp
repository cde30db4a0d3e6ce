// HDF5 voxel geometry file (layout in voxel_file.hpp), through core/io/hdf5_file.hpp.
#include "core/geometry/voxel_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/io/hdf5_file.hpp"

namespace hemo::geometry {

namespace {

using io::hdf5::Handle;
using io::hdf5::reason;

constexpr int format_version = 1;
constexpr const char* dataset_name = "solid_fraction";

class Reader {
 public:
  Reader(std::string path, hid_t file) : path_(std::move(path)), file_(file) {}
  [[noreturn]] void fail(const std::string& what) const { throw InputError(path_ + ": " + what); }

  // A numeric attribute of n values (1: scalar); `what` names it in messages.
  template <class T>
  void numbers(const char* name, hid_t mem_type, std::size_t n, T* out) const {
    if (H5Aexists(file_, name) <= 0) fail(str("no attribute '", name, "': not a hemoflow voxel geometry file"));
    Handle attr(H5Aopen(file_, name, H5P_DEFAULT), H5Aclose);
    Handle space(attr.ok() ? H5Aget_space(attr.get()) : H5I_INVALID_HID, H5Sclose);
    Handle type(attr.ok() ? H5Aget_type(attr.get()) : H5I_INVALID_HID, H5Tclose);
    if (!space.ok() || !type.ok()) fail(str("cannot open attribute '", name, "'", reason()));
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) fail(str("attribute '", name, "' is not numeric"));
    const hssize_t count = H5Sget_simple_extent_npoints(space.get());
    if (count != hssize_t(n)) fail(str("attribute '", name, "' has ", count, " value(s), expected ", n));
    if (H5Aread(attr.get(), mem_type, out) < 0) fail(str("cannot read attribute '", name, "'", reason()));
  }

  std::string text(const char* name) const {
    if (H5Aexists(file_, name) <= 0) fail(str("no attribute '", name, "'"));
    Handle attr(H5Aopen(file_, name, H5P_DEFAULT), H5Aclose);
    Handle type(attr.ok() ? H5Aget_type(attr.get()) : H5I_INVALID_HID, H5Tclose);
    if (!type.ok() || H5Tget_class(type.get()) != H5T_STRING) fail(str("attribute '", name, "' is not a string"));
    Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    if (H5Tis_variable_str(type.get()) > 0) {
      H5Tset_size(mem.get(), H5T_VARIABLE);
      H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
      char* p = nullptr;
      if (H5Aread(attr.get(), mem.get(), &p) < 0) fail(str("cannot read attribute '", name, "'", reason()));
      std::string s = p ? p : "";
      H5free_memory(p);
      return s;
    }
    const std::size_t size = H5Tget_size(type.get());
    std::string s(size, '\0');
    H5Tset_size(mem.get(), size);
    if (H5Aread(attr.get(), mem.get(), s.data()) < 0) fail(str("cannot read attribute '", name, "'", reason()));
    s.resize(std::strlen(s.c_str()));
    return s;
  }

 private:
  std::string path_;
  hid_t file_;
};

}  // namespace

void write_voxel_file(const std::string& path, const VoxelGrid& grid, const std::vector<float>* signed_distance) {
  if (signed_distance && signed_distance->size() != std::size_t(grid.voxel_count()))
    throw std::invalid_argument("write_voxel_file: " + path + ": the signed distance has the wrong size");
  const std::int64_t total = grid.voxel_count();
  if (total <= 0) throw std::invalid_argument("write_voxel_file: " + path + ": the grid has no voxels");
  const bool have_p = !grid.solid_fraction.empty();
  if ((have_p ? grid.solid_fraction.size() : grid.fluid.size()) != std::size_t(total)) {
    throw std::invalid_argument(str("write_voxel_file: ", path, ": ", have_p ? "solid_fraction" : "fluid",
                                    " has the wrong size for ", grid.dims[0], " x ", grid.dims[1], " x ",
                                    grid.dims[2], " voxels"));
  }
  std::vector<float> from_fluid;
  if (!have_p) {
    from_fluid.resize(std::size_t(total));
    std::transform(grid.fluid.begin(), grid.fluid.end(), from_fluid.begin(),
                   [](std::uint8_t f) { return f ? 0.0f : 1.0f; });
  }
  const float* p = have_p ? grid.solid_fraction.data() : from_fluid.data();

  const io::hdf5::Quiet quiet;
  io::hdf5::Output out(path);
  const hsize_t shape[3] = {hsize_t(grid.dims[2]), hsize_t(grid.dims[1]), hsize_t(grid.dims[0])};
  // Chunks of ~32k values (128 KiB), whole x rows where they fit, so a reader of a slab
  // of z decompresses little more than it needs; gzip level 4 (P is mostly 0 and 1).
  const hsize_t cx = std::min<hsize_t>(shape[2], 64), cy = std::min<hsize_t>(shape[1], 64);
  const hsize_t chunk[3] = {std::clamp<hsize_t>(32768 / (cx * cy), 1, shape[0]), cy, cx};
  out.dataset(dataset_name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 3, shape, p, nullptr, chunk, 4);
  // For inspection (ParaView, h5py): + inside, - outside, m; clamped to +-band away from
  // the surface. Runs read only P.
  if (signed_distance)
    out.dataset("signed_distance", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 3, shape, signed_distance->data(), nullptr, chunk, 4);
  const int version = format_version;
  out.attribute(out.root(), "format_version", H5T_STD_I32LE, H5T_NATIVE_INT, 1, &version);
  out.attribute(out.root(), "dims", H5T_STD_I32LE, H5T_NATIVE_INT, 3, grid.dims.data());
  out.attribute(out.root(), "origin", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, grid.origin.data());
  out.attribute(out.root(), "dx", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &grid.dx);
  out.attribute(out.root(), "characteristic_length", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &grid.characteristic_length);
  out.string_attribute(out.root(), "description", grid.description);
  out.commit();
}

VoxelGrid read_voxel_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw InputError(path + ": no such voxel geometry file");
  const io::hdf5::Quiet quiet;
  if (H5Fis_hdf5(path.c_str()) <= 0) throw InputError(path + ": not an HDF5 file (expected a voxel geometry file)");
  Handle fapl(io::hdf5::file_access(), H5Pclose);
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose);
  if (!file.ok()) throw InputError(path + ": cannot open the HDF5 file" + reason());
  const Reader r(path, file.get());

  int version = 0;
  r.numbers("format_version", H5T_NATIVE_INT, 1, &version);
  if (version != format_version) {
    r.fail(str("format_version ", version, " is not supported (this hemoflow reads ", format_version, ")"));
  }
  VoxelGrid g;
  r.numbers("dims", H5T_NATIVE_INT, 3, g.dims.data());
  r.numbers("origin", H5T_NATIVE_DOUBLE, 3, g.origin.data());
  r.numbers("dx", H5T_NATIVE_DOUBLE, 1, &g.dx);
  r.numbers("characteristic_length", H5T_NATIVE_DOUBLE, 1, &g.characteristic_length);
  g.description = r.text("description");
  if (g.dims[0] <= 0 || g.dims[1] <= 0 || g.dims[2] <= 0) {
    r.fail(str("dims = ", g.dims[0], " x ", g.dims[1], " x ", g.dims[2], ": must be positive"));
  }
  if (!(g.dx > 0.0) || !std::isfinite(g.dx)) r.fail(str("dx = ", g.dx, ": must be a positive number"));
  if (g.voxel_count() > (std::int64_t(1) << 40)) r.fail(str("dims = ", g.dims[0], " x ", g.dims[1], " x ", g.dims[2], ": too many voxels"));
  for (const double o : g.origin)
    if (!std::isfinite(o)) r.fail("origin is not finite");

  if (H5Lexists(file.get(), dataset_name, H5P_DEFAULT) <= 0) r.fail("no dataset /solid_fraction");
  Handle dset(H5Dopen2(file.get(), dataset_name, H5P_DEFAULT), H5Dclose);
  Handle space(dset.ok() ? H5Dget_space(dset.get()) : H5I_INVALID_HID, H5Sclose);
  Handle type(dset.ok() ? H5Dget_type(dset.get()) : H5I_INVALID_HID, H5Tclose);
  if (!space.ok() || !type.ok()) r.fail("cannot open dataset /solid_fraction" + reason());
  if (H5Tget_class(type.get()) != H5T_FLOAT) r.fail("dataset /solid_fraction is not floating point");
  hsize_t shape[3] = {0, 0, 0};
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank == 3) H5Sget_simple_extent_dims(space.get(), shape, nullptr);
  const hsize_t expect[3] = {hsize_t(g.dims[2]), hsize_t(g.dims[1]), hsize_t(g.dims[0])};
  if (rank != 3 || !std::equal(shape, shape + 3, expect)) {
    r.fail(str("dataset /solid_fraction has ", rank == 3 ? str("shape (", shape[0], ", ", shape[1], ", ", shape[2], ")")
                                                         : str("rank ", rank),
               " but dims say (nz, ny, nx) = (", expect[0], ", ", expect[1], ", ", expect[2], ")"));
  }
  g.solid_fraction.resize(std::size_t(g.voxel_count()));
  if (H5Dread(dset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, g.solid_fraction.data()) < 0) {
    r.fail("cannot read dataset /solid_fraction" + reason());
  }
  g.fluid.resize(g.solid_fraction.size());
  for (std::size_t v = 0; v < g.solid_fraction.size(); ++v) {
    const float p = g.solid_fraction[v];
    if (!(p >= 0.0f && p <= 1.0f)) {  // also catches NaN
      const auto nx = std::size_t(g.dims[0]), ny = std::size_t(g.dims[1]);
      r.fail(str("/solid_fraction at voxel (", v % nx, ", ", v / nx % ny, ", ", v / (nx * ny), ") is ", p,
                 ", outside [0, 1]"));
    }
    g.fluid[v] = p < 1.0f;
  }
  return g;
}

}  // namespace hemo::geometry
