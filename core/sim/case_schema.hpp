#pragma once
#include "core/config/schema.hpp"

namespace hemo {

/// Declares every section core owns: [run], [fluid], [lattice], [geometry],
/// [[geometry.obstacle]], [forcing], [initial], [flow], [output], [[output.probe]].
void declare_core_schema(config::Schema& schema);

/// Plugins a run loads when run.plugins is not given.
inline const std::vector<std::string>& default_plugins() {
  static const std::vector<std::string> names{"lb_bgk", "boundaries"};
  return names;
}

}  // namespace hemo
