// Checkpoints of particle tables on many ranks (core/sim/checkpoint.hpp), with ranks as
// threads (comm::in_process): every rank's rows reach the file, listed by id whatever
// the rank count (in rank order for a table without id), and a restore on any rank
// count gives every rank all rows and the restart values.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "tests/unit/in_process_ranks.hpp"
#include "tests/unit/temp_dir.hpp"
#include "core/comm/communicator.hpp"
#include "core/fields/field_registry.hpp"
#include "core/io/hdf5_file.hpp"
#include "core/sim/checkpoint.hpp"

using namespace hemo;
namespace fs = std::filesystem;

namespace {

struct TempDir : hemo::test::TempDir {
  TempDir() : hemo::test::TempDir("checkpoint") {}
};

constexpr int voxels = 6;  // a row of 6 fluid voxels, voxel v on rank v % ranks

mesh::SparseMesh mesh_of(int rank, int ranks) {
  mesh::SparseMesh m;
  m.dims = {voxels, 1, 1};
  m.rank = rank;
  for (int v = rank; v < voxels; v += ranks) {
    m.i.push_back(v);
    m.j.push_back(0);
    m.k.push_back(0);
  }
  m.num_nodes = m.num_interior = m.stride = std::uint32_t(m.i.size());
  return m;
}

/// What a rank of the test run holds: a restart-state node field `f` (zero),
/// table `cells` (position 3 floats and id, restart state; energy, scratch; restart value
/// `start_size`) and table `marks` (one float column, no id).
struct Rank {
  mesh::SparseMesh mesh;
  FieldRegistry fields;
  double start_size = 0.0;
  Rank(int rank, int ranks) : mesh(mesh_of(rank, ranks)), fields(exec::Space::host, mesh.num_nodes, mesh.stride) {
    fields.declare_node_field<double>("f", 1, "test", "").set_restart_state();
    auto& cells = fields.declare_particle_table("cells", "test", 2);
    cells.add<float>("position", 3, "").set_restart_state();
    cells.add<double>("energy", 1, "");
    cells.add<std::uint32_t>("id", 1, "").set_restart_state();
    cells.bind_restart_value("start_size", start_size);
    fields.declare_particle_table("marks", "test", 2).add<float>("mark", 1, "").set_restart_state();
  }
  ParticleTable& cells() { return fields.particle_table("cells"); }
  ParticleTable& marks() { return fields.particle_table("marks"); }
  Field<double>& f() { return fields.get<double>("f"); }
  /// Cells with these ids: position component c of cell `id` is 10 id + c.
  void place(const std::vector<std::uint32_t>& ids) {
    cells().resize(ids.size());
    for (std::size_t p = 0; p < ids.size(); ++p) {
      cells().get<std::uint32_t>("id").component(0)[p] = ids[p];
      for (int c = 0; c < 3; ++c)
        cells().get<float>("position").component(c)[p] = float(10 * ids[p] + std::uint32_t(c));
    }
  }
};

using test::on_ranks;

template <class T>
std::vector<T> read_row(const io::hdf5::Input& in, const std::string& name, hid_t type, std::size_t n, int row) {
  std::vector<T> out(n);
  in.read(name, type, out.data(), row);
  return out;
}

}  // namespace

TEST_CASE("checkpoint: particle tables written on 2 ranks list every row by id and restore whole on 1 and 3 ranks") {
  TempDir dir;
  const std::string path = (dir.path / "checkpoint.h5").string();
  CheckpointInfo info;
  info.step = 7;
  info.precision = "fp64";
  info.dims = {voxels, 1, 1};

  // Written on 2 ranks, the cells' ids interleaved: rank 0 holds 4, 0, 2 and rank 1 holds
  // 5, 1, 3 (rbc's rows are in tile order, not id order). Rank 1's start_size differs,
  // to show whose is written (a partitioned plugin keeps them equal).
  const std::vector<std::vector<std::uint32_t>> ids{{4, 0, 2}, {5, 1, 3}};
  CHECK(on_ranks(2, [&](int r, comm::Communicator& comm) {
          Rank rank(r, 2);
          rank.place(ids[std::size_t(r)]);
          for (std::uint32_t n = 0; n < rank.mesh.num_nodes; ++n)
            rank.f().component(0)[n] = double(rank.mesh.voxel_index(n));
          rank.start_size = r == 0 ? 1.25 : 9.0;
          rank.marks().resize(2);
          for (int p = 0; p < 2; ++p) rank.marks().get<float>("mark").component(0)[p] = float(10 * r + p);
          write_checkpoint(path, info, rank.mesh, rank.fields, comm);
        }) == std::vector<std::string>{"", ""});

  {
    const io::hdf5::Quiet quiet;
    const io::hdf5::Input in(path, "a hemoflow checkpoint");
    unsigned long long count = 0;
    in.numbers_of("particles/cells", "count", H5T_NATIVE_ULLONG, 1, &count);
    CHECK(count == 6);
    CHECK(read_row<std::uint32_t>(in, "particles/cells/id", H5T_NATIVE_UINT32, 6, 0) ==
          std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5});
    CHECK(read_row<float>(in, "particles/cells/position", H5T_NATIVE_FLOAT, 6, 2) ==
          std::vector<float>{2, 12, 22, 32, 42, 52});
    CHECK_FALSE(in.has_dataset("particles/cells/energy"));  // scratch: not kept
    double start_size = 0.0;
    in.numbers_of("particles/cells", "start_size", H5T_NATIVE_DOUBLE, 1, &start_size);
    CHECK(start_size == 1.25);  // rank 0's
    // Without an id column, rank after rank.
    CHECK(read_row<float>(in, "particles/marks/mark", H5T_NATIVE_FLOAT, 4, 0) ==
          std::vector<float>{0, 1, 10, 11});
  }

  for (const int ranks : {1, 3}) {
    CAPTURE(ranks);
    const auto n_ranks = std::size_t(ranks);
    std::vector<std::vector<std::uint32_t>> restored_ids(n_ranks);
    std::vector<std::vector<float>> restored_z(n_ranks);
    std::vector<std::vector<float>> restored_marks(n_ranks);
    std::vector<double> restored_start(n_ranks);
    std::vector<int> field_ok(n_ranks);  // not vector<bool>: each thread writes its own
    CHECK(on_ranks(ranks, [&](int r, comm::Communicator& comm) {
            Rank rank(r, ranks);
            restore_checkpoint(path, rank.mesh, rank.fields, comm);
            const std::size_t n = rank.cells().size();
            restored_ids[std::size_t(r)] = rank.cells().get<std::uint32_t>("id").component_to_host(0, n);
            restored_z[std::size_t(r)] = rank.cells().get<float>("position").component_to_host(2, n);
            restored_marks[std::size_t(r)] =
                rank.marks().get<float>("mark").component_to_host(0, rank.marks().size());
            restored_start[std::size_t(r)] = rank.start_size;
            bool ok = true;  // the node field too, each rank its own voxels
            for (std::uint32_t node = 0; node < rank.mesh.num_nodes; ++node)
              ok = ok && rank.f().component(0)[node] == double(rank.mesh.voxel_index(node));
            field_ok[std::size_t(r)] = ok;
          }) == std::vector<std::string>(n_ranks, ""));
    for (int r = 0; r < ranks; ++r) {
      CAPTURE(r);
      CHECK(restored_ids[std::size_t(r)] == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5});
      CHECK(restored_z[std::size_t(r)] == std::vector<float>{2, 12, 22, 32, 42, 52});
      CHECK(restored_marks[std::size_t(r)] == std::vector<float>{0, 1, 10, 11});
      CHECK(restored_start[std::size_t(r)] == 1.25);
      CHECK(field_ok[std::size_t(r)]);
    }
  }
}
