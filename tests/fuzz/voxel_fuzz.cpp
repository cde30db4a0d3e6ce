// libFuzzer target for the voxel geometry file reader (core/geometry/voxel_file.hpp):
// read_voxel_file_header, read_voxel_file and read_voxel_file_window on an HDF5 file made
// from the input (h5_recipe.hpp: a recipe, or raw bytes). Bad input must end in
// InputError; any other exception, a crash, a sanitizer report, or a grid that breaks
// what the reader promises is a finding.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/geometry/voxel_file.hpp"
#include "tests/fuzz/fuzz_common.hpp"
#include "tests/fuzz/h5_recipe.hpp"

namespace {

using hemo::geometry::VoxelGrid;
using hemo::geometry::VoxelWindow;

/// The whole grid is read only up to this many voxels (a header may claim 2^40, which a
/// real run would try to allocate: that is memory, not a reader bug); above it, a window.
constexpr std::int64_t max_whole_read = 1 << 18;
constexpr int max_window_edge = 16;

[[noreturn]] void finding(const std::string& what) { hemo::fuzz::finding("voxel_fuzz", what); }

/// What read_voxel_file_header promises.
void check_header(const VoxelGrid& h) {
  if (h.dims[0] <= 0 || h.dims[1] <= 0 || h.dims[2] <= 0) finding("non-positive dims accepted");
  if (!(h.dx > 0.0) || !std::isfinite(h.dx)) finding("unusable dx accepted");
  for (const double o : h.origin)
    if (!std::isfinite(o)) finding("non-finite origin accepted");
  if (double(h.dims[0]) * double(h.dims[1]) * double(h.dims[2]) > double(std::int64_t(1) << 40))
    finding("more than 2^40 voxels accepted");
}

/// What the readers of voxels promise: P and fluid for every voxel of the window, P in
/// [0, 1], fluid exactly where P < 1.
void check_voxels(const VoxelGrid& g) {
  const auto n = std::size_t(g.window.count());
  if (g.solid_fraction.size() != n || g.fluid.size() != n) finding("P or fluid has the wrong size for the window");
  for (std::size_t v = 0; v < n; ++v) {
    const float p = g.solid_fraction[v];
    if (!(p >= 0.0f && p <= 1.0f)) finding(hemo::str("P = ", p, " outside [0, 1] accepted"));
    if (bool(g.fluid[v]) != (p < 1.0f)) finding("fluid flag disagrees with P < 1");
  }
}

/// A window of at most max_window_edge^3 voxels at the far corner of the box (the corner
/// a whole read reaches last), so that windows are read for any box size.
VoxelWindow far_corner(const VoxelGrid& h) {
  VoxelWindow w;
  for (int a = 0; a < 3; ++a) {
    w.extent[a] = std::min(h.dims[a], max_window_edge);
    w.lo[a] = h.dims[a] - w.extent[a];
  }
  return w;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hemo::fuzz::ScratchFile scratch("voxel", ".voxels.h5");
  hemo::fuzz::write_h5_input(scratch.path, data, size);
  try {
    const VoxelGrid header = hemo::geometry::read_voxel_file_header(scratch.path);
    check_header(header);
    VoxelGrid whole;
    const bool read_whole = header.voxel_count() <= max_whole_read;
    if (read_whole) {
      whole = hemo::geometry::read_voxel_file(scratch.path);
      if (whole.dims != header.dims || whole.dx != header.dx || whole.origin != header.origin ||
          whole.description != header.description)
        finding("read_voxel_file and read_voxel_file_header disagree on the box");
      if (!whole.holds_whole_box()) finding("read_voxel_file did not hold the whole box");
      check_voxels(whole);
    }
    VoxelGrid part = header;
    part.window = far_corner(header);
    hemo::geometry::read_voxel_file_window(scratch.path, part);
    check_voxels(part);
    if (read_whole) {
      const VoxelWindow& w = part.window;
      for (int k = 0; k < w.extent[2]; ++k)
        for (int j = 0; j < w.extent[1]; ++j)
          for (int i = 0; i < w.extent[0]; ++i) {
            const float a = part.solid_fraction[std::size_t(part.index(w.lo[0] + i, w.lo[1] + j, w.lo[2] + k))];
            const float b = whole.solid_fraction[std::size_t(whole.index(w.lo[0] + i, w.lo[1] + j, w.lo[2] + k))];
            if (a != b) finding("a window read differs from the whole read");
          }
    }
  } catch (const hemo::InputError& e) {
    // The expected outcome for bad input, except where the input is known to be valid.
    if (hemo::fuzz::expect_valid()) finding(std::string("a valid seed was refused: ") + e.what());
  } catch (const std::exception& e) {
    finding(std::string("exception other than InputError: ") + e.what());
  }
  return 0;
}
