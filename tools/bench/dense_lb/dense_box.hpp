#pragma once
// The DENSE reference set up on a voxel grid (host side): the box padded by one solid voxel
// on every side (so n - offset[q] never leaves the array), its fluid flags, two population
// arrays and the moments, stepped A-B by DenseCollideStream (kernels.hpp). hemo_dense_lb
// times it; hemo_brick_lb compares the brick layout with it, bitwise.
#include <cstdint>
#include <vector>

#include "core/common/error.hpp"
#include "core/exec/device_array.hpp"
#include "core/exec/for_each.hpp"
#include "core/geometry/shapes.hpp"
#include "tools/bench/dense_lb/kernels.hpp"

namespace hemo::bench {

template <class Real>
struct DenseBox {
  exec::Space space;
  std::int64_t px, py, pz;
  std::uint32_t stride = 0;
  std::int64_t fluid_nodes = 0;
  exec::DeviceArray<Real> a, b, rho, vel;
  exec::DeviceArray<std::uint8_t> flags;
  DenseCollideStream<Real> kernel{};

  DenseBox(exec::Space s, const geometry::VoxelGrid& vox, const phys::Vec3<Real>& acceleration, Real omega)
      : space(s), px(vox.dims[0] + 2), py(vox.dims[1] + 2), pz(vox.dims[2] + 2) {
    const std::int64_t total = px * py * pz;
    if (total >= (std::int64_t(1) << 32)) throw InputError("box too large for 32-bit node indices");
    stride = static_cast<std::uint32_t>((total + 31) / 32 * 32);
    std::vector<std::uint8_t> fluid(stride, 0);
    for (int k = 0; k < vox.dims[2]; ++k)
      for (int j = 0; j < vox.dims[1]; ++j)
        for (int i = 0; i < vox.dims[0]; ++i)
          if (vox.is_fluid(i, j, k)) {
            fluid[index(i, j, k)] = 1;
            ++fluid_nodes;
          }
    a = exec::DeviceArray<Real>(space, std::size_t(19) * stride);
    b = exec::DeviceArray<Real>(space, std::size_t(19) * stride);
    rho = exec::DeviceArray<Real>(space, stride);
    vel = exec::DeviceArray<Real>(space, std::size_t(3) * stride);
    flags = exec::DeviceArray<std::uint8_t>(space, stride);
    flags.upload(fluid);
    exec::for_each(space, {0, stride}, DenseInit<Real>{a.data(), stride}, "dense_init");
    exec::for_each(space, {0, stride}, DenseInit<Real>{b.data(), stride}, "dense_init");
    kernel.fluid = flags.data();
    kernel.density = rho.data();
    kernel.velocity = vel.data();
    kernel.acceleration = acceleration;
    kernel.collision.omega = omega;
    kernel.stride = stride;
    for (int q = 0; q < 19; ++q) kernel.offset[q] = phys::d3q19::cx(q) + px * (phys::d3q19::cy(q) + py * phys::d3q19::cz(q));
    kernel.write_moments = false;
  }

  /// The entry of voxel (i, j, k) of the unpadded grid.
  std::size_t index(int i, int j, int k) const { return std::size_t((i + 1) + px * ((j + 1) + py * (k + 1))); }
  std::size_t array_bytes() const { return a.bytes() + b.bytes() + rho.bytes() + vel.bytes() + flags.bytes(); }

  /// Step s (from 0): A to B on even steps, B to A on odd ones.
  void step(std::int64_t s, int block_size = exec::default_block_size) {
    kernel.f_in = (s % 2 == 0) ? a.data() : b.data();
    kernel.f_out = (s % 2 == 0) ? b.data() : a.data();
    exec::for_each(space, {0, stride}, kernel, "dense_collide_stream", block_size);
  }
  /// The populations after `steps` steps.
  const exec::DeviceArray<Real>& state(std::int64_t steps) const { return steps % 2 == 0 ? a : b; }
};

}  // namespace hemo::bench
