#pragma once
// The halo exchange of a node field between ranks (issue 11; HemeLB's order, seeds/001
// sec. 3): a plugin that pulls from neighbour nodes asks for it in its phases:
//   collide_edge      update the edge nodes (the ones other ranks pull from);
//   halo_send         start(field): pack the edge values each neighbour needs, post;
//   collide_interior  update the interior nodes while the messages fly;
//   halo_receive      finish(field): wait, place the arrived values in the halo nodes.
// What goes where comes from the mesh's halo plan (SparseMesh::halo). On CUDA, values are
// packed on the device and staged through pinned host buffers (no CUDA-aware MPI yet).
// With one rank there is nothing to exchange and every call returns at once.
#include <cstdint>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/exec/device_array.hpp"
#include "core/fields/field_registry.hpp"
#include "core/mesh/sparse_mesh.hpp"

namespace hemo {

class HaloExchange {
 public:
  HaloExchange(comm::Communicator& comm, const mesh::SparseMesh& mesh, exec::Space space);
  ~HaloExchange();
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  /// True when this rank has neighbour ranks.
  bool active() const { return !mesh_.halo.empty(); }
  comm::Communicator& comm() { return comm_; }

  /// Packs every component of the field at each neighbour's send nodes and posts the
  /// messages. The field's values at the send nodes must be final.
  template <class T>
  void start(Field<T>& field);
  /// Waits for the messages of start() and writes the values into the halo nodes.
  template <class T>
  void finish(Field<T>& field);
  template <class T>
  void exchange(Field<T>& field) {
    start(field);
    finish(field);
  }

  /// Bytes one exchange of a field of `components` values of `value_bytes` sends from this rank.
  std::uint64_t bytes_sent(int components, std::size_t value_bytes) const;

 private:
  struct Peer {
    int rank = 0;
    std::uint32_t sends = 0, receive_begin = 0, receives = 0;
    exec::DeviceArray<std::uint32_t> send_nodes;  // in the run's space
    std::size_t send_offset = 0, receive_offset = 0;  // bytes into the staging buffers
  };
  void reserve(std::size_t bytes_per_node);
  unsigned char* host_buffer(bool send) { return send ? send_host_ : receive_host_; }

  comm::Communicator& comm_;
  const mesh::SparseMesh& mesh_;
  exec::Space space_;
  std::vector<Peer> peers_;
  std::uint64_t send_nodes_ = 0, receive_nodes_ = 0;
  std::size_t bytes_per_node_ = 0;                 // of the buffers allocated now
  unsigned char* send_host_ = nullptr;             // pinned on CUDA
  unsigned char* receive_host_ = nullptr;
  exec::DeviceArray<unsigned char> send_device_;   // CUDA: packed values before the download
  std::vector<comm::Message> sends_, receives_;
  bool in_flight_ = false;
};

}  // namespace hemo
