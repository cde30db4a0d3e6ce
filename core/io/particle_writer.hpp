#pragma once
// Particle output (red blood cells and any other particle set): one HDF5 file per
// snapshot step and an XDMF temporal collection, so ParaView shows the particles as
// points carrying their attributes (File > Open > <set>.xmf, reader "XDMF Reader"; for
// oriented ellipsoids: Glyph, type Sphere, Orientation Array "axis", Scale Array
// "glyph_scale", scale mode "vector", scale factor 1; the plugin writes those arrays).
//
// Layout under the output directory:
//   particles/<set>_<step>.h5   /position (N x 3, m), one dataset per attribute, (N) or
//                               (N x k), each with a "unit" attribute; attributes step,
//                               time, count
//   <set>.xmf                   a temporal collection of every step written so far
// The number of particles may change from step to step. Files are written under a
// temporary name and renamed.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/io/field_writer.hpp"

namespace hemo::io {

class ParticleWriter {
 public:
  /// Starts an empty collection. (Continuing one after a restart comes with cells in
  /// checkpoints; a run with cells cannot restart yet.)
  ParticleWriter(std::string output_dir, std::string set);
  /// Writes particles/<set>_<step>.h5 and rewrites <set>.xmf. Attributes are particle-
  /// major (values[p * components + c]) with any number of components. Returns the path.
  std::string write(std::int64_t step, double time, const std::vector<std::array<double, 3>>& positions,
                    const std::vector<HostField>& attributes);

 private:
  struct Written {
    std::int64_t step;
    double time;
    std::string grid_xml;
  };
  void write_collection() const;
  std::string dir_, set_;
  std::vector<Written> written_;
};

}  // namespace hemo::io
