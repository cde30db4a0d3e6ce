#pragma once
// Gathering rows of chosen entries: node values packed for a halo exchange (rows are
// populations or components, packed into one contiguous buffer), and particle columns
// permuted into a new order (ParticleTable::permute, rows of the table's capacity). A
// functor for exec::for_each like any kernel, so the one definition runs on both
// backends (gather.cpp and gather.cu instantiate it).
#include <cstddef>
#include <cstdint>

#include "physics/hd.hpp"

namespace hemo::exec {

/// Which rows of a field (components, or D3Q19 directions) to pack; passed by value.
struct RowList {
  int count = 0;
  std::uint8_t row[32] = {};
  void add(int r) { row[count++] = static_cast<std::uint8_t>(r); }
};

/// For t = r * count + i (r < rows.count, i < count):
///   out[r * out_stride + i] = src[rows.row[r] * stride + index[i]]   (out_stride 0: count,
/// the rows packed back to back). Run over [0, rows.count * count). `src`, `index` and
/// `out` live in the run's memory; `out` must not overlap `src`.
template <class T>
struct GatherRows {
  const T* src;
  std::size_t stride;
  RowList rows;
  const std::uint32_t* index;
  std::uint32_t count;
  T* out;
  std::size_t out_stride = 0;
  HEMO_HD void operator()(std::uint32_t t) const {
    const std::uint32_t r = t / count, i = t % count;
    out[std::size_t(r) * (out_stride ? out_stride : count) + i] = src[std::size_t(rows.row[r]) * stride + index[i]];
  }
};

/// The inverse of GatherRows, for t = r * count + i:
///   dst[rows.row[r] * stride + index[i]] = in[r * count + i]   (where keep[t] != 0, or
/// everywhere without `keep`; without `index`, at first + i: a block of entries, as
/// particles appended to a table's columns).
/// Halo values that arrive packed, placed at halo nodes that are not contiguous (bricks),
/// or sent back to their owner, which keeps only the entries the sender wrote.
template <class T>
struct ScatterRows {
  T* dst;
  std::size_t stride;
  RowList rows;
  const std::uint32_t* index;
  std::uint32_t count;
  const T* in;
  const std::uint8_t* keep = nullptr;
  std::size_t first = 0;
  HEMO_HD void operator()(std::uint32_t t) const {
    if (keep && !keep[t]) return;
    const std::uint32_t r = t / count, i = t % count;
    dst[std::size_t(rows.row[r]) * stride + (index ? std::size_t(index[i]) : first + i)] = in[std::size_t(r) * count + i];
  }
};

}  // namespace hemo::exec
