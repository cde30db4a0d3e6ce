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

constexpr int format_version = 1;
constexpr const char* dataset_name = "solid_fraction";

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

namespace {

/// The attributes, checked, and the shape of /solid_fraction checked against them.
VoxelGrid read_header(const io::hdf5::Input& r) {
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
  // In floating point: the product of three ints may overflow voxel_count()'s int64.
  if (double(g.dims[0]) * double(g.dims[1]) * double(g.dims[2]) > double(std::int64_t(1) << 40))
    r.fail(str("dims = ", g.dims[0], " x ", g.dims[1], " x ", g.dims[2], ": too many voxels"));
  for (const double o : g.origin)
    if (!std::isfinite(o)) r.fail("origin is not finite");

  const io::hdf5::Input::Shape shape = r.shape(dataset_name);
  if (shape.type_class != H5T_FLOAT) r.fail("dataset /solid_fraction is not floating point");
  const hsize_t expect[3] = {hsize_t(g.dims[2]), hsize_t(g.dims[1]), hsize_t(g.dims[0])};
  if (shape.dims.size() != 3 || !std::equal(expect, expect + 3, shape.dims.begin())) {
    r.fail(str("dataset /solid_fraction has ",
               shape.dims.size() == 3 ? str("shape (", shape.dims[0], ", ", shape.dims[1], ", ", shape.dims[2], ")")
                                      : str("rank ", shape.dims.size()),
               " but dims say (nz, ny, nx) = (", expect[0], ", ", expect[1], ", ", expect[2], ")"));
  }
  return g;
}

/// P of g's window, read as a hyperslab; fluid = P < 1.
void read_window(const io::hdf5::Input& r, VoxelGrid& g) {
  const auto& w = g.window;
  g.solid_fraction.resize(std::size_t(w.count()));
  g.fluid.resize(g.solid_fraction.size());
  if (w.count() == 0) return;
  const hsize_t start[3] = {hsize_t(w.lo[2]), hsize_t(w.lo[1]), hsize_t(w.lo[0])};
  const hsize_t count[3] = {hsize_t(w.extent[2]), hsize_t(w.extent[1]), hsize_t(w.extent[0])};
  r.read_box(dataset_name, H5T_NATIVE_FLOAT, 3, start, count, g.solid_fraction.data());
  for (std::size_t v = 0; v < g.solid_fraction.size(); ++v) {
    const float p = g.solid_fraction[v];
    if (!(p >= 0.0f && p <= 1.0f)) {  // also catches NaN
      const auto nx = std::size_t(w.extent[0]), ny = std::size_t(w.extent[1]);
      r.fail(str("/solid_fraction at voxel (", w.lo[0] + v % nx, ", ", w.lo[1] + v / nx % ny, ", ",
                 w.lo[2] + v / (nx * ny), ") is ", p, ", outside [0, 1]"));
    }
    g.fluid[v] = p < 1.0f;
  }
}

}  // namespace

VoxelGrid read_voxel_file_header(const std::string& path) {
  const io::hdf5::Quiet quiet;
  const io::hdf5::Input r(path, "a voxel geometry file");
  return read_header(r);
}

void read_voxel_file_window(const std::string& path, VoxelGrid& grid) {
  const io::hdf5::Quiet quiet;
  const io::hdf5::Input r(path, "a voxel geometry file");
  const VoxelGrid header = read_header(r);
  if (header.dims != grid.dims)
    r.fail(str("dims = ", header.dims[0], " x ", header.dims[1], " x ", header.dims[2], " changed while it was read"));
  read_window(r, grid);
}

VoxelGrid read_voxel_file(const std::string& path) {
  const io::hdf5::Quiet quiet;
  const io::hdf5::Input r(path, "a voxel geometry file");
  VoxelGrid g = read_header(r);
  g.window = VoxelWindow::whole(g.dims);
  read_window(r, g);
  return g;
}

}  // namespace hemo::geometry
