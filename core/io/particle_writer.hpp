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
// temporary name and renamed. A run restarted in its own output folder continues the
// collection: the earlier steps' grids are kept as the stopped run wrote them, and its
// snapshots after the checkpoint are removed.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/io/field_writer.hpp"

namespace hemo::io {

class ParticleWriter {
 public:
  /// Starts an empty collection; with continue_after = s > 0 (a run restarted from step
  /// s), continues the one in the folder: the snapshots of steps <= s stay listed in
  /// <set>.xmf and later ones (written after the checkpoint by the run that stopped) are
  /// removed, as FieldWriter does for fields.
  ParticleWriter(std::string output_dir, std::string set, std::int64_t continue_after = 0);
  /// For a run restarted from step continue_after in this output folder that writes no
  /// snapshots of the set: removes those after that step and lists the others in
  /// <set>.xmf (what the constructor does with continue_after), where <set>.xmf exists.
  static void continue_series(const std::string& output_dir, const std::string& set, std::int64_t continue_after);
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
  /// Removes the snapshots after continue_after and keeps the grids of the earlier ones
  /// whose files are there, verbatim from <set>.xmf, in step order.
  void adopt_earlier_steps(std::int64_t continue_after);
  void write_collection() const;
  std::string dir_, set_;
  std::vector<Written> written_;
};

}  // namespace hemo::io
