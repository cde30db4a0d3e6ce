#pragma once
// Particles that change rank (MUPHY, seeds/004 sec. 3.5 "migration"): each particle's new
// owner is given, the leaving ones travel with their restart-state columns
// (ParticleTable::pack) to their new owners, and nothing is lost on the way: the
// arrivals are appended after the particles that stayed, and the counts are returned so
// that a caller can check the totals (docs/rbc_ranks.md).
#include <cstddef>
#include <span>

#include "core/comm/communicator.hpp"
#include "core/fields/particle_table.hpp"

namespace hemo {

struct Migration {
  std::size_t sent = 0, received = 0;
};

/// destination[i] (host memory, one per particle of `table`) is the rank that owns
/// particle i from now on; this rank's own number keeps it. The particles leaving are
/// packed per destination and exchanged with `peers` (comm::exchange_variable: the list
/// must be symmetric over the ranks and name every destination; tags `tag`, `tag + 1`);
/// then the table holds the particles that stayed, in their order, followed by the
/// arrivals in `peers` order, each sender's in its row order. Blocking: every rank of the
/// peer list calls it, also with nothing to send. A destination outside the peers is a
/// std::logic_error naming the particle's row and the destination.
Migration migrate(comm::Communicator& comm, ParticleTable& table, std::span<const int> destination,
                  std::span<const int> peers, int tag);

}  // namespace hemo
