#pragma once
// Iolets at run time: which links and nodes each owns, the per-link profile shapes, the
// kernels that refresh link_value every step (begin_step), and the monitor that writes
// each iolet's flow rate and mean pressure to <output>/iolets.csv.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/exec/device_array.hpp"
#include "core/plugin/plugin_api.hpp"
#include "plugins/boundaries/iolet_spec.hpp"
#include "plugins/boundaries/monitor.hpp"

namespace hemo::boundaries {

template <class Real>
class IoletRuntime {
 public:
  explicit IoletRuntime(std::vector<IoletSpec> specs) : specs_(std::move(specs)) {}

  const std::vector<IoletSpec>& specs() const { return specs_; }
  std::vector<IoletSpec>& specs() { return specs_; }

  /// Builds the per-iolet link and node lists and shapes, and registers the actions.
  void setup(SetupStage& st);

 private:
  struct Device {  // one iolet's arrays on the run's backend
    std::uint32_t links = 0, nodes = 0, zou_he_nodes = 0, rule_links = 0;
    bool ladd_written = false;  // a constant Ladd profile is written once
    exec::DeviceArray<std::uint32_t> link, node, zh_unknown, zh_sources, rule_link;
    exec::DeviceArray<Real> shape, zh_shape, rule_shape, scratch;
  };
  void build(SetupStage& st, const IoletSpec& s, Device& d);
  void refresh(const IoletSpec& s, Device& d, FieldRegistry& fields, std::int64_t step, double time);
  /// The same with the populations `f` as stored (Store: Real or a 16-bit format).
  template <class Store>
  void refresh(const IoletSpec& s, Device& d, FieldRegistry& fields, const Store* f, std::int64_t step, double time);
  void monitor(StepContext& ctx);
  /// The (up to three) time coefficients of a velocity iolet's shapes at time t.
  void coefficients(const IoletSpec& s, double t, Real (&coef)[3]) const;

  std::vector<IoletSpec> specs_;
  std::vector<Device> device_;
  RunContext run_;
  io::SeriesCsv csv_;
};

}  // namespace hemo::boundaries
