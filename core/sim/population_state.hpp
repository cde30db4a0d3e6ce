#pragma once
// The populations as checkpoints and checksums see them, whatever lb_bgk's streaming
// scheme: per direction q, f*_q of each owned node after the last step (the A set of the
// two-array scheme). A field streamed in place (FieldBase::in_place, the AA pattern of
// core/mesh/population_slots.hpp) is rearranged on the host, so a checkpoint written
// with one scheme restarts with the other and both give one population checksum.
#include <cstdint>
#include <vector>

#include "core/fields/field_registry.hpp"
#include "core/mesh/sparse_mesh.hpp"

namespace hemo {

/// f*_q of the owned nodes (num_nodes entries as stored) after step `after_step`.
std::vector<unsigned char> post_collision_row(const mesh::SparseMesh& mesh, const FieldBase& f, int q,
                                              std::int64_t after_step);

/// For a field streamed in place whose every row holds f*_q (post_collision_row's values,
/// halo nodes included: exchange the halo first), the in-place layout after `after_step`.
void post_collision_to_in_place(const mesh::SparseMesh& mesh, FieldBase& f, std::int64_t after_step);

}  // namespace hemo
