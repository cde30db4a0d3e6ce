#include "core/sim/summary.hpp"

#include <filesystem>

#include "core/common/version.hpp"
#include "core/io/json.hpp"
#include "core/io/write_failure.hpp"

namespace hemo {
namespace {
void write_device_timeline(io::JsonWriter& j, const std::vector<RunSummary::DeviceTime>& timeline) {
  j.key("device_timeline").begin_object();
  for (const auto& t : timeline) {
    j.key(t.action).begin_object();
    j.key("span").value(t.span);
    j.key("gap").value(t.gap);
    j.end_object();
  }
  j.end_object();
}
}  // namespace

std::string RunSummary::to_json() const {
  io::JsonWriter j;
  j.begin_object();
  j.key("status").value(status);
  j.key("exit_code").value(exit_code);
  j.key("hemoflow_version").value(version());
  j.key("hemoflow_commit").value(commit());
  j.key("case").value(case_file);
  j.key("output_dir").value(output_dir);
  j.key("steps").value(steps);
  j.key("steps_requested").value(steps_requested);
  if (!stopped_early.empty()) j.key("stopped_early").value(stopped_early);
  if (!interrupted_by.empty()) j.key("interrupted_by").value(interrupted_by);
  if (!restarted_from.empty()) {
    j.key("restarted_from").value(restarted_from);
    j.key("first_step").value(first_step);
  }
  if (!checkpoint.empty()) {
    j.key("checkpoint").value(checkpoint);
    j.key("checkpoint_step").value(checkpoint_step);
  }
  j.key("fluid_nodes").value(fluid_nodes);
  j.key("voxels").value(voxels);
  j.key("ranks").value(ranks);
  j.key("backend").value(backend);
  j.key("device").value(device);
  j.key("precision").value(precision);
  if (!population_storage.empty()) j.key("population_storage").value(population_storage);
  j.key("ordering").value(ordering);
  j.key("layout").value(layout);
  if (layout == "bricks") j.key("brick_slots").value(brick_slots);
  j.key("plugins").begin_array();
  for (const auto& p : plugins) j.value(p);
  j.end_array();
  j.key("wall_seconds").value(wall_seconds);
  j.key("steps_seconds").value(steps_seconds);
  j.key("steady_seconds").value(steady_seconds);
  j.key("steady_steps").value(steady_steps);
  j.key("step_seconds").begin_object();
  j.key("median").value(step_median);
  j.key("p90").value(step_p90);
  j.key("p99").value(step_p99);
  j.key("max").value(step_max);
  j.end_object();
  j.key("setup_seconds").value(setup_seconds);
  j.key("mlups").value(mlups);
  j.key("halo_links").value(halo_links);
  j.key("halo_device_links").value(halo_device_links);
  j.key("mass_relative_drift").value(mass_relative_drift);
  j.key("largest_density_variation").value(largest_density_variation);
  j.key("largest_density_variation_step").value(largest_density_variation_step);
  j.key("density_range").begin_array();
  j.value(density_least <= density_largest ? density_least : 0.0);
  j.value(density_least <= density_largest ? density_largest : 0.0);
  j.end_array();
  j.key("dx").value(dx);
  j.key("dt").value(dt);
  j.key("tau").value(tau);
  j.key("mach").value(mach);
  j.key("reynolds").value(reynolds);
  j.key("mesh_bytes").value(mesh_bytes);
  j.key("field_bytes").value(field_bytes);
  j.key("device_memory_bytes").value(device_memory_bytes);
  j.key("cpu_threads").value(cpu_threads);
  j.key("population_checksum").value(population_checksum);
  if (failed_step >= 0) j.key("failed_step").value(failed_step);
  if (failed_node >= 0) j.key("failed_node").value(failed_node);
  if (!divergence_report.empty()) j.key("divergence_report").value(divergence_report);
  j.key("links").begin_object();
  for (const auto& [name, n] : links) j.key(name).value(n);
  j.end_object();
  j.key("phase_seconds").begin_object();
  for (const auto& [phase, s] : phase_seconds) j.key(phase).value(s);
  j.end_object();
  j.key("action_seconds").begin_object();
  for (const auto& [action, s] : action_seconds) j.key(action).value(s);
  j.end_object();
  if (!device_timeline.empty()) write_device_timeline(j, device_timeline);
  if (!rank_reports.empty()) {
    j.key("partition_seconds").value(partition_seconds);
    j.key("imbalance").value(imbalance);
    j.key("rank_reports").begin_array();
    for (const Rank& r : rank_reports) {
      j.begin_object();
      j.key("nodes").value(r.nodes);
      j.key("edge_nodes").value(r.edge_nodes);
      j.key("halo_nodes").value(r.halo_nodes);
      j.key("neighbours").value(r.neighbours);
      j.key("halo_bytes_per_step").value(r.halo_bytes_per_step);
      j.key("halo_wait_seconds").value(r.halo_wait_seconds);
      j.key("voxels_held").value(r.voxels_held);
      j.key("message_bytes_per_step").value(r.message_bytes_per_step);
      j.key("phase_seconds").begin_object();
      for (const auto& [phase, sec] : r.phase_seconds) j.key(phase).value(sec);
      j.end_object();
      j.key("action_seconds").begin_object();
      for (const auto& [action, sec] : r.action_seconds) j.key(action).value(sec);
      j.end_object();
      if (!r.device_timeline.empty()) write_device_timeline(j, r.device_timeline);
      j.end_object();
    }
    j.end_array();
  }
  j.key("outputs").begin_array();
  for (const auto& o : outputs) j.value(o);
  j.end_array();
  j.end_object();
  return j.str() + "\n";
}

void write_summary(const RunSummary& summary, const std::string& output_dir) {
  io::make_folder(output_dir);
  io::write_file_atomic((std::filesystem::path(output_dir) / "summary.json").string(), summary.to_json());
}

}  // namespace hemo
