#pragma once
// Field output: HDF5 data plus an XDMF description per output step, so ParaView opens
// the time series directly (File > Open > fields.xmf, reader "XDMF Reader").
//
// Layout under the output directory:
//   fields/mesh.h5                 /coordinates (N x 3, m), /voxel (N x 3, int32),
//                                  /connectivity (N: 0..N-1, integers, for the Polyvertex
//                                  topology, which ParaView's XDMF3 reader needs spelled out)
//   fields/step_<step>.h5          one dataset per field: /<name> (N) or (N x 3)
//   fields/step_<step>.xmf         one grid (Polyvertex topology on the nodes)
//   fields.xmf                     a temporal collection of all steps written so far
// Every file is written under a temporary name and renamed when complete.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hemo::io {

/// One field on the nodes, already in physical units, node-major: values[n * components + c].
struct HostField {
  std::string name;  // "velocity"
  std::string unit;  // "m/s"
  int components = 1;  // 1 (scalar) or 3 (vector)
  std::vector<double> values;
};

enum class FloatFormat { float32, float64 };

class FieldWriter {
 public:
  /// Writes fields/mesh.h5 at once. positions: node centres in m; voxels: (i, j, k).
  /// With continue_after = s > 0 (a run restarted from step s), the step files of steps
  /// <= s already in the folder stay listed in fields.xmf and later ones (written after
  /// the checkpoint by the run that stopped) are removed; the nodes must be those, in the
  /// same order, that the earlier run wrote (output_actions.hpp writes them in global
  /// voxel order, so that any rank count gives the same mesh.h5).
  FieldWriter(std::string output_dir, const std::vector<std::array<double, 3>>& positions,
              const std::vector<std::array<std::int32_t, 3>>& voxels, FloatFormat format,
              std::int64_t continue_after = 0);

  /// Writes fields/step_<step>.h5 and .xmf and rewrites fields.xmf. Returns the .h5 path.
  std::string write(std::int64_t step, double time, const std::vector<HostField>& fields);

  std::size_t node_count() const { return nodes_; }

  /// For a run restarted from step continue_after in this output folder that may write
  /// no snapshot: removes the step files after that step and lists the others in
  /// fields.xmf (what the constructor does with continue_after, without a mesh).
  static void continue_series(const std::string& output_dir, std::int64_t continue_after);

 private:
  std::string dir_;
  std::size_t nodes_;
  FloatFormat format_;
  struct Written {
    std::int64_t step;
    double time;
    std::string xmf_name;
    std::string grid_xml;  // this step's <Grid>, paths relative to output_dir, for fields.xmf
  };
  std::vector<Written> written_;
  explicit FieldWriter(std::string output_dir) : dir_(std::move(output_dir)), nodes_(0), format_(FloatFormat::float64) {}
  void adopt_earlier_steps(std::int64_t continue_after);
  /// The step files of `dir` up to continue_after (later ones are removed), with `nodes`
  /// nodes each (0: any count), in step order.
  static std::vector<Written> steps_until(const std::string& dir, std::int64_t continue_after, std::size_t nodes);
  void write_collection() const;
};

}  // namespace hemo::io
