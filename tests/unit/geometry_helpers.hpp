#pragma once
// The [geometry] section of a case given as TOML text, validated by the geometry's schema,
// for the unit tests that build voxel grids.
#include <string>
#include <vector>

#include "core/config/config.hpp"
#include "core/config/schema.hpp"
#include "core/geometry/shapes.hpp"

namespace hemo::test {

inline config::Config geometry_section(const std::string& toml) {
  config::Schema schema;
  geometry::declare_schema(schema);
  static std::vector<config::Config> keep;  // the views share their document
  keep.push_back(config::Document::parse(toml, "test.toml").validate(schema));
  return keep.back().section("geometry");
}

}  // namespace hemo::test
