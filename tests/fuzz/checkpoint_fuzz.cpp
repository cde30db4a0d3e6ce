// libFuzzer target for the checkpoint reader (core/sim/checkpoint.hpp): read_checkpoint_info
// and restore_checkpoint, on one rank, on an HDF5 file made from the input
// (h5_recipe.hpp: a recipe, or raw bytes), into a fixed small "run" that has what a real
// one has: a mesh of 5 fluid voxels in a 3 x 2 x 2 box, restart-state node fields of
// three types (float64 x 3, fp16s x 2 with its element_type attribute, uint32) and two
// particle tables (with and without an id column, with a bound restart value). The seeds
// are that run's checkpoint. Bad input must end in InputError; any other exception, a
// crash or a sanitizer report is a finding.
#include <memory>
#include <cstdint>
#include <exception>
#include <string>

#include "core/comm/communicator.hpp"
#include "core/common/error.hpp"
#include "core/fields/field_registry.hpp"
#include "core/sim/checkpoint.hpp"
#include "physics/storage16.hpp"
#include "tests/fuzz/fuzz_common.hpp"
#include "tests/fuzz/h5_recipe.hpp"

namespace {

using namespace hemo;

[[noreturn]] void finding(const std::string& what) { fuzz::finding("checkpoint_fuzz", what); }

/// The fluid voxels of the run, (i, j, k) in a 3 x 2 x 2 box; lexicographic indices
/// 0, 2, 4, 7, 11.
constexpr int fluid_voxels[][3] = {{0, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 0, 1}, {2, 1, 1}};

mesh::SparseMesh the_mesh() {
  mesh::SparseMesh m;
  m.dims = {3, 2, 2};
  // Not in voxel order: the reader must sort, as on a rank whose nodes are in tile order.
  for (const int v : {3, 0, 4, 2, 1}) {
    m.i.push_back(fluid_voxels[v][0]);
    m.j.push_back(fluid_voxels[v][1]);
    m.k.push_back(fluid_voxels[v][2]);
  }
  m.num_nodes = m.num_interior = m.stride = std::uint32_t(m.i.size());
  return m;
}

struct Run {
  mesh::SparseMesh mesh = the_mesh();
  FieldRegistry fields{exec::Space::host, mesh.num_nodes, mesh.stride};
  double start_size = -1.0;
  Run() {
    fields.declare_node_field<double>("f", 3, "lb_test", "").set_restart_state();
    fields.declare_node_field<phys::Fp16s>("h", 2, "lb_test", "").set_restart_state();
    fields.declare_node_field<std::uint32_t>("tag", 1, "lb_test", "").set_restart_state();
    fields.declare_node_field<double>("density", 1, "lb_test", "");  // not state: not in the file
    auto& cells = fields.declare_particle_table("cells", "rbc_test", 2);
    cells.add<float>("position", 3, "").set_restart_state();
    cells.add<double>("energy", 1, "");
    cells.add<std::uint32_t>("id", 1, "").set_restart_state();
    cells.bind_restart_value("start_size", start_size);
    fields.declare_particle_table("marks", "rbc_test", 2).add<float>("mark", 1, "").set_restart_state();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fuzz::ScratchFile scratch("checkpoint", ".h5");
  static const std::unique_ptr<comm::Communicator> comm = comm::serial();
  fuzz::write_h5_input(scratch.path, data, size);
  try {
    const CheckpointInfo info = read_checkpoint_info(scratch.path, *comm);
    if (info.step < 1) finding("a checkpoint before step 1 was accepted");
    Run run;
    restore_checkpoint(scratch.path, run.mesh, run.fields, *comm);
  } catch (const InputError& e) {
    // The expected outcome for bad input, except where the input is known to be valid.
    if (fuzz::expect_valid()) finding(std::string("a valid seed was refused: ") + e.what());
  } catch (const std::exception& e) {
    finding(std::string("exception other than InputError: ") + e.what());
  }
  return 0;
}
