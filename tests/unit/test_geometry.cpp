// Analytic geometries: voxel counts against the exact volumes, symmetry, bad input.
#include <doctest/doctest.h>

#include <cmath>

#include "core/common/error.hpp"
#include "core/config/config.hpp"
#include "core/geometry/shapes.hpp"

using namespace hemo;

namespace {
geometry::VoxelGrid voxelize(const std::string& toml, double dx) {
  config::Schema schema;
  geometry::declare_schema(schema);
  const config::Config cfg = config::Document::parse(toml, "test.toml").validate(schema);
  return geometry::build(cfg.section("geometry"), dx, std::int64_t(1) << 30);
}
}  // namespace

TEST_CASE("box: whole number of voxels, all fluid") {
  const auto v = voxelize("[geometry]\nshape = \"box\"\nsize = [0.004, 0.002, 0.001]\n", 1e-4);
  CHECK(v.dims == std::array<int, 3>{40, 20, 10});
  CHECK(v.fluid_count() == 8000);
  CHECK(v.characteristic_length == doctest::Approx(0.001));
}

TEST_CASE("axis-aligned pipe: cross-section area within a few percent of pi R^2, symmetric") {
  const double R = 16.0;
  const auto v = voxelize("[geometry]\nshape = \"pipe\"\nradius = 16.0\nlength = 4.0\naxis = [0, 0, 1]\n", 1.0);
  CHECK(v.dims == std::array<int, 3>{32, 32, 4});
  const double area = double(v.fluid_count()) / 4.0;
  CHECK(area == doctest::Approx(M_PI * R * R).epsilon(0.02));
  for (int j = 0; j < 32; ++j)
    for (int i = 0; i < 32; ++i) {
      CHECK(v.is_fluid(i, j, 0) == v.is_fluid(31 - i, j, 0));
      CHECK(v.is_fluid(i, j, 0) == v.is_fluid(j, i, 0));
    }
}

TEST_CASE("tilted pipe: volume within 2% of pi R^2 L") {
  const auto v = voxelize("[geometry]\nshape = \"pipe\"\nradius = 6.0\nlength = 40.0\naxis = [1, 0.3, 0.2]\n", 1.0);
  CHECK(double(v.fluid_count()) == doctest::Approx(M_PI * 36.0 * 40.0).epsilon(0.02));
}

TEST_CASE("sphere obstacle removes about 4/3 pi r^3") {
  const auto v = voxelize(
      "[geometry]\nshape = \"box\"\nsize = [30, 30, 30]\n[[geometry.obstacle]]\ncenter = [15, 15, 15]\nradius = 8\n", 1.0);
  CHECK(double(27000 - v.fluid_count()) == doctest::Approx(4.0 / 3.0 * M_PI * 512.0).epsilon(0.02));
}

TEST_CASE("geometry input errors name the key") {
  CHECK_THROWS_WITH_AS(voxelize("[geometry]\nshape = \"box\"\nsize = [1, 1, 1]\n", 0.8), doctest::Contains("at least 2"),
                       InputError);
  CHECK_THROWS_WITH_AS(voxelize("[geometry]\nshape = \"pipe\"\nlength = 1.0\n", 0.1),
                       doctest::Contains("geometry.radius"), InputError);
  CHECK_THROWS_WITH_AS(voxelize("[geometry]\nshape = \"box\"\nsize = [1, 1, 1]\nradius = 2.0\n", 0.1),
                       doctest::Contains("does not apply"), InputError);
  CHECK_THROWS_WITH_AS(
      voxelize("[geometry]\nshape = \"box\"\nsize = [1, 1, 1]\n[[geometry.obstacle]]\ncenter = [5, 5, 5]\nradius = 0.1\n",
               0.1),
      doctest::Contains("covers no fluid"), InputError);
  CHECK_THROWS_WITH_AS(voxelize("[geometry]\nshape = \"box\"\nsize = [1000, 1000, 1000]\n", 0.1),
                       doctest::Contains("more than the limit"), InputError);
}
