#include "core/fields/halo_exchange.hpp"

#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/common/log.hpp"
#include "core/common/text.hpp"
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

HaloExchange::HaloExchange(comm::Communicator& comm, const mesh::SparseMesh& mesh, exec::Space space, bool device_peers)
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
  if (space == exec::Space::cuda && !peers_.empty()) {
    copies_ = std::make_unique<exec::cuda::AsyncCopy>();
    if (device_peers) connect_device_peers();
  }
}

namespace {
/// What a rank tells each peer to decide on copies device to device: where it runs.
struct Whereabouts {
  char host[64] = {};
  std::int64_t pid = 0;
  std::int32_t device = -1, pad = 0;
};
/// Its answer: whether it will take part, and the handle of its inbox for that peer.
struct Invitation {
  std::int32_t accepts = 0, pad = 0;
  exec::cuda::IpcHandle inbox;
};
}  // namespace

template <class T>
std::vector<T> HaloExchange::trade_with_peers(std::vector<T>& mine) {
  std::vector<T> theirs(peers_.size());
  std::vector<comm::Message> sends, receives;
  for (std::size_t k = 0; k < peers_.size(); ++k) {
    sends.push_back({peers_[k].rank, 0, {reinterpret_cast<unsigned char*>(&mine[k]), sizeof(T)}});
    receives.push_back({peers_[k].rank, 0, {reinterpret_cast<unsigned char*>(&theirs[k]), sizeof(T)}});
  }
  comm_.start_exchange(sends, receives);
  comm_.finish_exchange();
  return theirs;
}

void HaloExchange::connect_device_peers() {
  // Three blocking rounds with every peer. A pair copies device to device only where both
  // run in different processes of one host, each device reaches the other's and each
  // could map the other's inbox; an inbox is allocated only for a peer that may accept.
  Whereabouts here;
  gethostname(here.host, sizeof(here.host) - 1);
  here.pid = std::int64_t(getpid());
  here.device = exec::cuda::current_device();
  std::vector<Whereabouts> mine(peers_.size(), here);
  const std::vector<Whereabouts> theirs = trade_with_peers(mine);
  std::vector<Invitation> offers(peers_.size());
  for (std::size_t k = 0; k < peers_.size(); ++k) {
    Peer& p = peers_[k];
    const Whereabouts& w = theirs[k];
    const bool same_host = std::strncmp(w.host, here.host, sizeof(here.host)) == 0;
    if (p.rank == comm_.rank() || !same_host || w.pid == here.pid || !exec::cuda::can_access_peer(w.device)) continue;
    // Room for any field of up to 19 components of 8 bytes at the larger of the two node
    // lists (forward or reverse); both sides compute the same number.
    p.capacity = std::size_t(std::max(p.sends, p.receives)) * phys::d3q19::Q * sizeof(double);
    p.inbox = static_cast<unsigned char*>(exec::cuda::allocate(2 * p.capacity));
    offers[k].accepts = 1;
    offers[k].inbox = exec::cuda::ipc_handle(p.inbox);
  }
  const std::vector<Invitation> answers = trade_with_peers(offers);
  // Where both accepted, each maps the other's inbox and says whether the driver let it
  // (a container without CUDA IPC refuses); a pair where either failed falls back to the
  // host instead of failing the run.
  std::vector<std::int32_t> opened(peers_.size(), 0);
  for (std::size_t k = 0; k < peers_.size(); ++k) {
    if (!(offers[k].accepts && answers[k].accepts)) continue;
    try {
      peers_[k].outbox = static_cast<unsigned char*>(exec::cuda::open_ipc_handle(answers[k].inbox));
      opened[k] = 1;
    } catch (const std::exception& e) {
      log::warn(str("halo: rank ", comm_.rank(), " could not map rank ", peers_[k].rank,
                    "'s buffer (", e.what(), "); their halos go through the host"));
    }
  }
  const std::vector<std::int32_t> peer_opened = trade_with_peers(opened);
  for (std::size_t k = 0; k < peers_.size(); ++k) {
    Peer& p = peers_[k];
    if (opened[k] && peer_opened[k]) {
      p.device_peer = true;
      continue;
    }
    if (p.outbox) exec::cuda::close_ipc_handle(p.outbox);
    p.outbox = nullptr;
    // An inbox the peer never mapped can go; one it mapped stays to the end of the
    // process (freeing it before the peer closes it is undefined).
    if (p.inbox && !peer_opened[k]) exec::cuda::release(p.inbox);
    p.inbox = nullptr;
    p.capacity = 0;
  }
}

int HaloExchange::device_peer_count() const {
  int n = 0;
  for (const Peer& p : peers_) n += p.device_peer ? 1 : 0;
  return n;
}

HaloExchange::~HaloExchange() {
  if (posted_) {
    try {
      comm_.finish_exchange();
    } catch (...) {
    }
  }
  copies_.reset();
  // The peers' inboxes are closed; this rank's own are left to the end of the process:
  // freeing one while a peer still has it open is undefined (cuda_runtime.hpp), and a
  // destructor must not wait for the peers (it also runs when this rank fails alone).
  for (Peer& p : peers_)
    if (p.outbox) exec::cuda::close_ipc_handle(p.outbox);
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
  const std::size_t parity = exchanges_++ & 1u;
  if (copies_) copies_->after_compute();  // a token below also means: this packing (and so the last scatter) is done
  for (Peer& p : peers_) {
    const std::size_t out = reverse_ ? p.receives : p.sends, in = reverse_ ? p.sends : p.receives;
    const std::size_t out_bytes = std::size_t(p.send_rows.count) * out * sizeof(T);
    const std::size_t in_bytes = std::size_t(p.receive_rows.count) * in * sizeof(T);
    // Device to device where the field fits the inboxes (both sides decide alike: the
    // peer's in_bytes are these out_bytes, its capacity this one).
    p.direct = p.device_peer && out_bytes <= p.capacity && in_bytes <= p.capacity;
    if (p.direct) {
      if (out_bytes) copies_->copy(p.outbox + parity * p.capacity, send_device_.data() + p.send_offset, out_bytes);
      sends_.push_back({p.rank, 0, {&p.token_out, 1}});
      receives_.push_back({p.rank, 0, {&p.token_in, 1}});
      continue;
    }
    // On a copy stream, after the packing kernel; the caller goes on queueing the interior.
    if (space_ == exec::Space::cuda && out_bytes) copies_->copy(send_host_.data() + p.send_offset, send_device_.data() + p.send_offset, out_bytes);
    sends_.push_back({p.rank, 0, {send_host_.bytes() + p.send_offset, out_bytes}});
    receives_.push_back({p.rank, 0, {receive_host_.bytes() + p.receive_offset, in_bytes}});
  }
  in_flight_ = true;
  if (space_ != exec::Space::cuda) post();
}

template <class T>
void HaloExchange::finish(Field<T>& field) {
  if (!active()) return;
  if (!in_flight_) throw std::logic_error("halo exchange: finish() without start()");
  in_flight_ = false;
  if (space_ == exec::Space::cuda) {
    copies_->wait();  // the edge values are on the host or in the peers' inboxes (the interior kernel still runs)
    post();
    // Drive the messages while the GPU works; what remains once it is idle is exposed.
    // With every peer device to device, the host goes on queueing once the tokens are in
    // (the placement below and the next step run after the interior on the compute
    // stream) instead of waiting for an idle GPU, which it would leave idle while it
    // queued the next kernels. Values staged through the host are uploaded by copies that
    // wait for the interior anyway: there the host waits for the GPU here, so that the
    // upload's time below is the upload's.
    bool staged = false;
    for (const Peer& p : peers_) staged = staged || !p.direct;
    bool gpu_done = false, messages_done = false;
    clock::time_point idle_since{};
    while (!messages_done || (staged && !gpu_done)) {
      if (!messages_done) messages_done = comm_.test_exchange();
      if (!gpu_done && exec::cuda::compute_idle()) {
        gpu_done = true;
        idle_since = clock::now();
      }
    }
    comm_.finish_exchange();
    posted_ = false;
    if (gpu_done) wait_seconds_ += since(idle_since);
  } else {
    const auto t0 = clock::now();
    comm_.finish_exchange();
    posted_ = false;
    wait_seconds_ += since(t0);
  }
  // The halo nodes of one peer are contiguous on the node list (each row is one copy);
  // with bricks they are scattered over the halo bricks' slots.
  const auto t0 = clock::now();
  const std::size_t parity = (exchanges_ - 1) & 1u;
  for (const Peer& p : peers_) {
    // Values from a device peer are in this rank's inbox already (device memory).
    const T* in = p.direct ? reinterpret_cast<const T*>(p.inbox + parity * p.capacity)
                           : reinterpret_cast<const T*>(receive_host_.bytes() + p.receive_offset);
    if (p.scattered || reverse_) {
      const std::uint32_t count = reverse_ ? p.sends : p.receives;
      const std::size_t bytes = std::size_t(p.receive_rows.count) * count * sizeof(T);
      if (space_ == exec::Space::cuda && !p.direct) {
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
      if (p.direct) exec::cuda::copy_on_device(dst, src, p.receives * sizeof(T));  // queued after the interior
      else if (space_ == exec::Space::cuda) exec::cuda::copy_to_device(dst, src, p.receives * sizeof(T));
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
