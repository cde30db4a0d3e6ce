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

constexpr int format_version = 2;  // 2: /wall_cuts
constexpr const char* dataset_name = "solid_fraction";

bool cut_before(const WallCut& a, const WallCut& b) {
  return a.voxel < b.voxel || (a.voxel == b.voxel && a.direction < b.direction);
}

/// /wall_cuts: the cuts as three columns and the first cut of each layer.
void write_cuts(io::hdf5::Output& out, const std::string& path, const VoxelGrid& grid) {
  const auto& cuts = grid.wall_cuts;
  const std::int64_t layer = std::int64_t(grid.dims[0]) * grid.dims[1], total = grid.voxel_count();
  for (std::size_t n = 0; n < cuts.size(); ++n) {
    const WallCut& c = cuts[n];
    if (c.voxel < 0 || c.voxel >= total || c.direction < 1 || c.direction > 18 ||
        !(c.fraction >= 0.0f && c.fraction <= 1.0f) || (n > 0 && !cut_before(cuts[n - 1], c)))
      throw std::invalid_argument(str("write_voxel_file: ", path, ": wall cut ", n, " (voxel ", c.voxel,
                                      ", direction ", int(c.direction), ", fraction ", c.fraction,
                                      ") is out of range or out of order"));
  }
  const hsize_t n = cuts.size();
  std::vector<std::int64_t> voxel(n);
  std::vector<std::uint8_t> direction(n);
  std::vector<float> fraction(n);
  for (std::size_t i = 0; i < n; ++i) {
    voxel[i] = cuts[i].voxel;
    direction[i] = cuts[i].direction;
    fraction[i] = cuts[i].fraction;
  }
  std::vector<std::int64_t> first(std::size_t(grid.dims[2]) + 1);
  std::size_t at = 0;
  for (std::size_t k = 0; k < first.size(); ++k) {
    while (at < n && voxel[at] < std::int64_t(k) * layer) ++at;
    first[k] = std::int64_t(at);
  }
  out.group("wall_cuts");
  // Chunked and compressed where there is anything to chunk: a window reads a range.
  const hsize_t chunk = std::min<hsize_t>(std::max<hsize_t>(n, 1), 65536);
  const hsize_t* c = n > 0 ? &chunk : nullptr;
  out.dataset("wall_cuts/voxel", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &n, voxel.data(), nullptr, c, 4);
  out.dataset("wall_cuts/direction", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, &n, direction.data(), nullptr, c, 4);
  out.dataset("wall_cuts/fraction", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &n, fraction.data(), nullptr, c, 4);
  const hsize_t layers = first.size();
  out.dataset("wall_cuts/layer_first", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, &layers, first.data());
}

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
  if (grid.has_wall_cuts) write_cuts(out, path, grid);
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
VoxelGrid read_header(const io::hdf5::Input& r, int* version_out = nullptr) {
  int version = 0;
  r.numbers("format_version", H5T_NATIVE_INT, 1, &version);
  if (version < 1 || version > format_version) {
    r.fail(str("format_version ", version, " is not supported (this hemoflow reads 1 to ", format_version, ")"));
  }
  if (version_out) *version_out = version;
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

/// The wall cuts of g's held voxels: those of its layers read as one range of each
/// column (layer_first), checked, and those of its voxels kept.
void read_cuts(const io::hdf5::Input& r, VoxelGrid& g) {
  g.wall_cuts.clear();
  g.has_wall_cuts = r.has_dataset("wall_cuts");
  if (!g.has_wall_cuts) return;
  const std::string names[4] = {"wall_cuts/voxel", "wall_cuts/direction", "wall_cuts/fraction",
                                "wall_cuts/layer_first"};
  hsize_t sizes[4];
  for (int c = 0; c < 4; ++c) {
    const io::hdf5::Input::Shape shape = r.shape(names[c]);
    if (shape.dims.size() != 1) r.fail(str("dataset /", names[c], " has rank ", shape.dims.size(), ", not 1"));
    const bool want_float = c == 2;
    if ((shape.type_class == H5T_FLOAT) != want_float || (!want_float && shape.type_class != H5T_INTEGER))
      r.fail(str("dataset /", names[c], " is not ", want_float ? "floating point" : "integer"));
    sizes[c] = shape.dims[0];
  }
  for (int c = 1; c < 3; ++c)
    if (sizes[c] != sizes[0])
      r.fail(str("dataset /", names[c], " has ", sizes[c], " values but /", names[0], " has ", sizes[0]));
  const std::int64_t n = std::int64_t(sizes[0]);
  const int nz = g.dims[2];
  if (sizes[3] != hsize_t(nz) + 1)
    r.fail(str("dataset /", names[3], " has ", sizes[3], " values but the box has ", nz, " layers (", nz + 1,
               " expected)"));
  std::vector<std::int64_t> first(std::size_t(nz) + 1);
  r.read(names[3], H5T_NATIVE_INT64, first.data());
  for (std::size_t k = 0; k < first.size(); ++k)
    if ((k == 0 && first[k] != 0) || (k > 0 && first[k] < first[k - 1]) || first[k] > n ||
        (k == first.size() - 1 && first[k] != n))
      r.fail(str("dataset /", names[3], " is not a rising list from 0 to ", n, " (the cuts' count): value ", k,
                 " is ", first[k]));

  const auto& w = g.window;
  if (w.count() == 0) return;
  const int k0 = w.lo[2], k1 = w.lo[2] + w.extent[2];
  const hsize_t start = hsize_t(first[std::size_t(k0)]);
  const hsize_t count = hsize_t(first[std::size_t(k1)] - first[std::size_t(k0)]);
  std::vector<std::int64_t> voxel(count);
  std::vector<std::uint8_t> direction(count);
  std::vector<float> fraction(count);
  r.read_box(names[0], H5T_NATIVE_INT64, 1, &start, &count, voxel.data());
  r.read_box(names[1], H5T_NATIVE_UINT8, 1, &start, &count, direction.data());
  r.read_box(names[2], H5T_NATIVE_FLOAT, 1, &start, &count, fraction.data());
  const std::int64_t nx = g.dims[0], layer = nx * g.dims[1];
  int k = k0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t at = std::int64_t(start + i);
    while (at >= first[std::size_t(k) + 1]) ++k;
    const WallCut c{voxel[i], direction[i], fraction[i]};
    if (c.voxel < std::int64_t(k) * layer || c.voxel >= std::int64_t(k + 1) * layer)
      r.fail(str("dataset /", names[0], ": cut ", at, " is voxel ", c.voxel, ", not in layer ", k, " where /", names[3],
                 " puts it"));
    if (c.direction < 1 || c.direction > 18)
      r.fail(str("dataset /", names[1], ": cut ", at, " has direction ", int(c.direction), ", outside 1..18"));
    if (!(c.fraction >= 0.0f && c.fraction <= 1.0f))  // also NaN
      r.fail(str("dataset /", names[2], ": cut ", at, " has fraction ", c.fraction, ", outside [0, 1]"));
    if (i > 0 && !cut_before(WallCut{voxel[i - 1], direction[i - 1], 0.0f}, c))
      r.fail(str("dataset /", names[0], ": cut ", at, " (voxel ", c.voxel, ", direction ", int(c.direction),
                 ") does not come after cut ", at - 1, " (voxel ", voxel[i - 1], ", direction ", int(direction[i - 1]),
                 "): the cuts must be sorted by (voxel, direction)"));
    const int ci = int(c.voxel % nx), cj = int(c.voxel % layer / nx);
    if (w.contains(ci, cj, k)) g.wall_cuts.push_back(c);
  }
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
  int version = 0;
  const VoxelGrid header = read_header(r, &version);
  if (header.dims != grid.dims)
    r.fail(str("dims = ", header.dims[0], " x ", header.dims[1], " x ", header.dims[2], " changed while it was read"));
  read_window(r, grid);
  grid.wall_cuts.clear();
  grid.has_wall_cuts = false;
  if (version >= 2) read_cuts(r, grid);
}

VoxelGrid read_voxel_file(const std::string& path) {
  const io::hdf5::Quiet quiet;
  const io::hdf5::Input r(path, "a voxel geometry file");
  int version = 0;
  VoxelGrid g = read_header(r, &version);
  g.window = VoxelWindow::whole(g.dims);
  read_window(r, g);
  if (version >= 2) read_cuts(r, g);
  return g;
}

}  // namespace hemo::geometry
