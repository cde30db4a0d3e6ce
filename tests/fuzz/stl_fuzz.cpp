// libFuzzer target for the STL reader (core/geometry/stl.hpp) and the surface checks that
// run on what it returns (core/geometry/surface.hpp). Bad input must end in InputError;
// any other exception, a crash, a sanitizer report or a broken invariant is a finding.
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "core/common/error.hpp"
#include "core/geometry/stl.hpp"
#include "core/geometry/surface.hpp"
#include "tests/fuzz/fuzz_common.hpp"

namespace {

/// The triangle limit for an input. Inputs whose size is a multiple of 4 get a limit of
/// 4 triangles, so that the refusal paths are reached with inputs of a few KB; the rest
/// get a limit no input of that size reaches, so that the surface checks see whole meshes.
std::int64_t max_triangles_for(std::size_t size) { return size % 4 == 0 ? 4 : 1'000'000; }

[[noreturn]] void finding(const char* what) { hemo::fuzz::finding("stl_fuzz", std::string("invariant broken: ") + what); }

/// What read_stl promises about a mesh it returns.
void check_mesh(const hemo::geometry::TriangleMesh& mesh) {
  if (mesh.triangles.empty()) finding("a mesh with no triangles was returned");
  std::vector<bool> used(mesh.vertices.size(), false);
  for (const auto& t : mesh.triangles) {
    for (std::uint32_t v : t) {
      if (v >= mesh.vertices.size()) finding("vertex index out of range");
      used[v] = true;
    }
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) finding("degenerate triangle kept");
  }
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    if (!used[v]) finding("unused vertex kept");
    for (double x : mesh.vertices[v])
      if (!std::isfinite(x)) finding("non-finite coordinate returned");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // read_stl takes a path: one scratch file per process (fuzz_common.hpp).
  static const hemo::fuzz::ScratchFile scratch("stl", ".stl");
  const std::string& path = scratch.path;
  scratch.write(data, size);
  try {
    const hemo::geometry::TriangleMesh mesh =
        hemo::geometry::read_stl(path, hemo::geometry::LengthUnit::mm, max_triangles_for(size));
    check_mesh(mesh);
    const hemo::geometry::SurfaceCheck check = hemo::geometry::check_surface(mesh);
    if (check.hole_examples.size() > 5 || (check.boundary_edges > 0) != !check.hole_examples.empty())
      finding("hole examples inconsistent with the boundary edge count");
    const auto ends = hemo::geometry::find_open_ends(mesh);
    std::size_t rim_edges = 0;
    for (const auto& e : ends) rim_edges += e.edges;
    if (rim_edges > check.boundary_edges) finding("open ends use more edges than there are boundary edges");
    (void)hemo::geometry::open_ends_toml(ends);
    if (check.boundary_edges > 0) {
      try {
        hemo::geometry::require_closed(mesh);
        finding("require_closed accepted a surface with boundary edges");
      } catch (const hemo::InputError&) {
      }
    }
  } catch (const hemo::InputError& e) {
    // The expected outcome for bad input, except where the input is known to be valid.
    if (hemo::fuzz::expect_valid()) finding((std::string("a valid seed was refused: ") + e.what()).c_str());
  } catch (const std::exception& e) {
    finding((std::string("exception other than InputError: ") + e.what()).c_str());
  }
  return 0;
}
