#include "core/fields/halo_exchange.hpp"

#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/exec/for_each.hpp"
#include "physics/d3q19.hpp"

namespace hemo {

namespace {

using clock = std::chrono::steady_clock;
double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

exec::RowList rows_of(HaloRows which, int components, std::uint32_t directions) {
  exec::RowList r;
  for (int c = 0; c < components; ++c) {
    const int q = which == HaloRows::crossing_opposite ? phys::d3q19::opposite(c) : c;
    if (which == HaloRows::all || (directions & (1u << q))) r.add(c);
  }
  return r;
}

}  // namespace

HaloExchange::HaloExchange(comm::Communicator& comm, const mesh::SparseMesh& mesh, exec::Space space)
    : comm_(comm), mesh_(mesh), space_(space), send_host_(space), receive_host_(space) {
  // The peer owning each halo node (for the reverse exchange's keep masks).
  std::vector<int> peer_of(std::size_t(mesh.stride) - mesh.num_nodes, -1);
  for (std::size_t k = 0; k < mesh.halo.size(); ++k) {
    const mesh::HaloNeighbour& h = mesh.halo[k];
    if (h.receive.empty())
      for (std::uint32_t i = 0; i < h.receive_count; ++i) peer_of[h.receive_begin + i - mesh.num_nodes] = int(k);
    for (const std::uint32_t n : h.receive) peer_of[n - mesh.num_nodes] = int(k);
  }
  for (const mesh::HaloNeighbour& h : mesh.halo) {
    Peer p;
    p.rank = h.rank;
    p.sends = static_cast<std::uint32_t>(h.send.size());
    p.receive_begin = h.receive_begin;
    p.receives = h.receive_count;
    p.send_directions = h.send_directions;
    p.receive_directions = h.receive_directions;
    p.send_nodes = exec::to_device(space, h.send);
    p.scattered = !h.receive.empty();
    std::vector<std::uint32_t> receive = h.receive;
    if (!p.scattered)
      for (std::uint32_t i = 0; i < h.receive_count; ++i) receive.push_back(h.receive_begin + i);
    p.receive_nodes = exec::to_device(space, receive);
    // In place, after an odd step, the peer wrote row opp(q) of our send node y exactly
    // where one of its nodes pulled q from y, i.e. where y pulls opp(q) from that node.
    const exec::RowList rows = rows_of(HaloRows::crossing_opposite, phys::d3q19::Q, h.send_directions);
    std::vector<std::uint8_t> keep(std::size_t(rows.count) * h.send.size(), 0);
    const int self = int(peers_.size());
    for (int r = 0; r < rows.count; ++r)
      for (std::size_t i = 0; i < h.send.size(); ++i) {
        const std::uint32_t code = mesh.pulls_from(rows.row[r], h.send[i]);
        keep[std::size_t(r) * h.send.size() + i] =
            mesh::is_node(code) && code >= mesh.num_nodes && peer_of[code - mesh.num_nodes] == self;
      }
    p.reverse_keep = exec::to_device(space, keep);
    peers_.push_back(std::move(p));
  }
  if (space == exec::Space::cuda && !peers_.empty()) download_ = std::make_unique<exec::cuda::AsyncDownload>();
}

HaloExchange::~HaloExchange() {
  if (posted_) {
    try {
      comm_.finish_exchange();
    } catch (...) {
    }
  }
  download_.reset();
}

void HaloExchange::reserve(std::size_t send_bytes, std::size_t receive_bytes) {
  send_host_.resize(send_bytes);
  receive_host_.resize(receive_bytes);
  if (space_ == exec::Space::cuda && send_device_.size() < send_bytes)
    send_device_ = exec::DeviceArray<unsigned char>(space_, send_bytes + send_bytes / 2);
}

void HaloExchange::post() {
  comm_.start_exchange(sends_, receives_);
  posted_ = true;
}

template <class T>
void HaloExchange::start(Field<T>& field, HaloRows which, HaloDirection direction) {
  if (!active()) return;
  if (in_flight_) throw std::logic_error("halo exchange: start() while another exchange is in flight");
  // Layout: each peer's values as rows x nodes, peers one after the other. In reverse the
  // halo nodes send (the rows of the directions pulled from the peer) and the send nodes
  // receive: the same lists, the same order, the roles swapped.
  reverse_ = direction == HaloDirection::reverse;
  reverse_rows_ = which;
  std::size_t send_bytes = 0, receive_bytes = 0;
  for (Peer& p : peers_) {
    p.send_rows = rows_of(which, field.components(), reverse_ ? p.receive_directions : p.send_directions);
    p.receive_rows = rows_of(which, field.components(), reverse_ ? p.send_directions : p.receive_directions);
    p.send_offset = send_bytes;
    p.receive_offset = receive_bytes;
    send_bytes += std::size_t(p.send_rows.count) * (reverse_ ? p.receives : p.sends) * sizeof(T);
    receive_bytes += std::size_t(p.receive_rows.count) * (reverse_ ? p.sends : p.receives) * sizeof(T);
  }
  reserve(send_bytes, receive_bytes);
  send_bytes_ = send_bytes;
  last_bytes_sent_ = send_bytes;
  unsigned char* packed = space_ == exec::Space::cuda ? send_device_.data() : send_host_.data();
  for (Peer& p : peers_) {
    const std::uint32_t count = reverse_ ? p.receives : p.sends;
    const exec::GatherRows<T> pack{field.data(), field.stride(), p.send_rows,
                                   reverse_ ? p.receive_nodes.data() : p.send_nodes.data(), count,
                                   reinterpret_cast<T*>(packed + p.send_offset)};
    exec::for_each(space_, {0, std::uint32_t(p.send_rows.count) * count}, pack, "halo::gather_rows");
  }
  sends_.clear();
  receives_.clear();
  for (Peer& p : peers_) {
    const std::size_t out = reverse_ ? p.receives : p.sends, in = reverse_ ? p.sends : p.receives;
    sends_.push_back({p.rank, 0, {send_host_.bytes() + p.send_offset, std::size_t(p.send_rows.count) * out * sizeof(T)}});
    receives_.push_back(
        {p.rank, 0, {receive_host_.bytes() + p.receive_offset, std::size_t(p.receive_rows.count) * in * sizeof(T)}});
  }
  in_flight_ = true;
  if (space_ == exec::Space::cuda) {
    // On a copy stream, after the packing kernel; the caller goes on queueing the interior.
    download_->copy(send_host_.data(), send_device_.data(), send_bytes);
  } else {
    post();
  }
}

template <class T>
void HaloExchange::finish(Field<T>& field) {
  if (!active()) return;
  if (!in_flight_) throw std::logic_error("halo exchange: finish() without start()");
  in_flight_ = false;
  if (space_ == exec::Space::cuda) {
    download_->wait();  // the edge values are on the host (the interior kernel still runs)
    post();
    // Drive the messages while the GPU works; what remains once it is idle is exposed.
    bool gpu_done = false, messages_done = false;
    clock::time_point idle_since{};
    while (!(gpu_done && messages_done)) {
      if (!messages_done) messages_done = comm_.test_exchange();
      if (!gpu_done && exec::cuda::compute_idle()) {
        gpu_done = true;
        idle_since = clock::now();
      }
    }
    comm_.finish_exchange();
    posted_ = false;
    wait_seconds_ += since(idle_since);
  } else {
    const auto t0 = clock::now();
    comm_.finish_exchange();
    posted_ = false;
    wait_seconds_ += since(t0);
  }
  // The halo nodes of one peer are contiguous on the node list (each row is one copy);
  // with bricks they are scattered over the halo bricks' slots.
  const auto t0 = clock::now();
  for (const Peer& p : peers_) {
    const T* in = reinterpret_cast<const T*>(receive_host_.bytes() + p.receive_offset);
    if (p.scattered || reverse_) {
      const std::uint32_t count = reverse_ ? p.sends : p.receives;
      const std::size_t bytes = std::size_t(p.receive_rows.count) * count * sizeof(T);
      if (space_ == exec::Space::cuda) {
        // Each peer at its own offset: a scatter still running never sees the next peer's copy.
        const std::size_t end = p.receive_offset + bytes;
        if (receive_device_.size() < end) {
          exec::cuda::synchronize_compute("halo::scatter_rows");  // earlier scatters read the old buffer
          receive_device_ = exec::DeviceArray<unsigned char>(space_, receive_host_.size() + receive_host_.size() / 2);
        }
        exec::cuda::copy_to_device(receive_device_.data() + p.receive_offset, in, bytes);
        in = reinterpret_cast<const T*>(receive_device_.data() + p.receive_offset);
      }
      if (reverse_ && (field.components() != phys::d3q19::Q || reverse_rows_ != HaloRows::crossing_opposite))
        throw std::logic_error("halo exchange: a reverse exchange takes the opposite crossing rows of populations");
      const exec::ScatterRows<T> place{field.data(), field.stride(), p.receive_rows,
                                       reverse_ ? p.send_nodes.data() : p.receive_nodes.data(), count, in,
                                       reverse_ ? p.reverse_keep.data() : nullptr};
      exec::for_each(space_, {0, std::uint32_t(p.receive_rows.count) * count}, place, "halo::scatter_rows");
      continue;
    }
    for (int r = 0; r < p.receive_rows.count; ++r) {
      T* dst = field.component(p.receive_rows.row[r]) + p.receive_begin;
      const T* src = in + std::size_t(r) * p.receives;
      if (space_ == exec::Space::cuda) exec::cuda::copy_to_device(dst, src, p.receives * sizeof(T));
      else std::memcpy(dst, src, p.receives * sizeof(T));
    }
  }
  if (space_ == exec::Space::cuda) wait_seconds_ += since(t0);
}

template void HaloExchange::start<float>(Field<float>&, HaloRows, HaloDirection);
template void HaloExchange::start<double>(Field<double>&, HaloRows, HaloDirection);
template void HaloExchange::finish<float>(Field<float>&);
template void HaloExchange::finish<double>(Field<double>&);
template void HaloExchange::start<phys::Fp16s>(Field<phys::Fp16s>&, HaloRows, HaloDirection);
template void HaloExchange::finish<phys::Fp16s>(Field<phys::Fp16s>&);
template void HaloExchange::start<phys::E4m11s>(Field<phys::E4m11s>&, HaloRows, HaloDirection);
template void HaloExchange::finish<phys::E4m11s>(Field<phys::E4m11s>&);

}  // namespace hemo
