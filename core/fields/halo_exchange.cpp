#include "core/fields/halo_exchange.hpp"

#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/exec/gather.hpp"

namespace hemo {

HaloExchange::HaloExchange(comm::Communicator& comm, const mesh::SparseMesh& mesh, exec::Space space)
    : comm_(comm), mesh_(mesh), space_(space) {
  for (const mesh::HaloNeighbour& h : mesh.halo) {
    Peer p;
    p.rank = h.rank;
    p.sends = static_cast<std::uint32_t>(h.send.size());
    p.receive_begin = h.receive_begin;
    p.receives = h.receive_count;
    p.send_nodes = exec::to_device(space, h.send);
    p.send_offset = send_nodes_;
    p.receive_offset = receive_nodes_;
    send_nodes_ += p.sends;
    receive_nodes_ += p.receives;
    peers_.push_back(std::move(p));
  }
}

HaloExchange::~HaloExchange() {
  if (in_flight_) {
    try {
      comm_.finish_exchange();
    } catch (...) {
    }
  }
  for (unsigned char* b : {send_host_, receive_host_}) {
    if (!b) continue;
    if (space_ == exec::Space::cuda) exec::cuda::release_pinned(b);
    else std::free(b);
  }
}

std::uint64_t HaloExchange::bytes_sent(int components, std::size_t value_bytes) const {
  return send_nodes_ * std::uint64_t(components) * value_bytes;
}

void HaloExchange::reserve(std::size_t bytes_per_node) {
  if (bytes_per_node <= bytes_per_node_) return;
  for (unsigned char** b : {&send_host_, &receive_host_}) {
    if (*b) {
      if (space_ == exec::Space::cuda) exec::cuda::release_pinned(*b);
      else std::free(*b);
    }
    const std::size_t bytes = (b == &send_host_ ? send_nodes_ : receive_nodes_) * bytes_per_node + 64;
    *b = static_cast<unsigned char*>(space_ == exec::Space::cuda ? exec::cuda::allocate_pinned(bytes)
                                                                  : std::aligned_alloc(64, (bytes + 63) / 64 * 64));
    if (!*b) throw std::bad_alloc();
  }
  if (space_ == exec::Space::cuda) send_device_ = exec::DeviceArray<unsigned char>(space_, send_nodes_ * bytes_per_node + 64);
  bytes_per_node_ = bytes_per_node;
}

template <class T>
void HaloExchange::start(Field<T>& field) {
  if (!active()) return;
  if (in_flight_) throw std::logic_error("halo exchange: start() while another exchange is in flight");
  const int rows = field.components();
  const std::size_t per_node = std::size_t(rows) * sizeof(T);
  reserve(per_node);
  // Pack: each peer's values as rows x nodes, peers one after the other.
  unsigned char* packed = space_ == exec::Space::cuda ? send_device_.data() : send_host_;
  for (Peer& p : peers_)
    exec::gather_rows(space_, field.data(), field.stride(), rows, p.send_nodes.data(), p.sends,
                      reinterpret_cast<T*>(packed + p.send_offset * per_node));
  if (space_ == exec::Space::cuda) exec::cuda::copy_to_host(send_host_, send_device_.data(), send_nodes_ * per_node);
  sends_.clear();
  receives_.clear();
  for (Peer& p : peers_) {
    sends_.push_back({p.rank, 0, {send_host_ + p.send_offset * per_node, p.sends * per_node}});
    receives_.push_back({p.rank, 0, {receive_host_ + p.receive_offset * per_node, p.receives * per_node}});
  }
  comm_.start_exchange(sends_, receives_);
  in_flight_ = true;
}

template <class T>
void HaloExchange::finish(Field<T>& field) {
  if (!active()) return;
  if (!in_flight_) throw std::logic_error("halo exchange: finish() without start()");
  in_flight_ = false;
  comm_.finish_exchange();
  const int rows = field.components();
  const std::size_t per_node = std::size_t(rows) * sizeof(T);
  // The halo nodes of one peer are contiguous: each row is one copy.
  for (const Peer& p : peers_) {
    const T* in = reinterpret_cast<const T*>(receive_host_ + p.receive_offset * per_node);
    for (int r = 0; r < rows; ++r) {
      T* dst = field.component(r) + p.receive_begin;
      const T* src = in + std::size_t(r) * p.receives;
      if (space_ == exec::Space::cuda) exec::cuda::copy_to_device(dst, src, p.receives * sizeof(T));
      else std::memcpy(dst, src, p.receives * sizeof(T));
    }
  }
}

template void HaloExchange::start<float>(Field<float>&);
template void HaloExchange::start<double>(Field<double>&);
template void HaloExchange::finish<float>(Field<float>&);
template void HaloExchange::finish<double>(Field<double>&);

}  // namespace hemo
