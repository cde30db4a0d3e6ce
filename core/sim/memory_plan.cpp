#include "core/sim/memory_plan.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "core/common/error.hpp"
#include "core/common/text.hpp"

namespace hemo {

void MemoryPlan::node_field(const std::string& owner, const std::string& name, int components, std::size_t element_bytes) {
  items_.push_back({name, owner, std::uint64_t(components) * stride_ * element_bytes, false});
}

void MemoryPlan::array(const std::string& owner, const std::string& name, std::uint64_t count, std::size_t element_bytes) {
  items_.push_back({name, owner, count * element_bytes, false});
}

void MemoryPlan::host(const std::string& owner, const std::string& name, std::uint64_t bytes) {
  items_.push_back({name, owner, bytes, true});
}

void MemoryPlan::advise(const std::string& setting, std::uint64_t saves, const std::string& note) {
  if (saves > 0) advice_.push_back({setting, saves, note});
}

std::uint64_t MemoryPlan::run_bytes() const {
  std::uint64_t b = 0;
  for (const MemoryItem& i : items_)
    if (!i.host) b += i.bytes;
  return b;
}

std::uint64_t MemoryPlan::host_only_bytes() const {
  std::uint64_t b = 0;
  for (const MemoryItem& i : items_)
    if (i.host) b += i.bytes;
  return b;
}

std::vector<MemoryItem> MemoryPlan::largest() const {
  std::map<std::string, MemoryItem> merged;
  for (const MemoryItem& i : items_) {
    if (i.host) continue;
    auto [it, fresh] = merged.try_emplace(i.name, i);
    if (!fresh) it->second.bytes += i.bytes;
  }
  std::vector<MemoryItem> out;
  for (auto& [n, i] : merged) out.push_back(i);
  std::stable_sort(out.begin(), out.end(), [](const MemoryItem& a, const MemoryItem& b) { return a.bytes > b.bytes; });
  return out;
}

std::string MemoryPlan::describe_largest(std::size_t n) const {
  const std::vector<MemoryItem> all = largest();
  std::vector<std::string> parts;
  std::uint64_t rest = 0;
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (k < n) parts.push_back(str(all[k].name, " ", fmt_bytes(double(all[k].bytes))));
    else rest += all[k].bytes;
  }
  if (all.size() > n) parts.push_back(str(all.size() - n, " more ", fmt_bytes(double(rest))));
  return join(parts, ", ");
}

std::uint64_t memory_limit_from_environment() {
  const char* env = std::getenv("HEMO_MEMORY_LIMIT_BYTES");
  if (!env || !*env) return 0;
  const std::string text = env;
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string suffix = text.substr(used);
  while (!suffix.empty() && std::isspace(static_cast<unsigned char>(suffix.back()))) suffix.pop_back();
  double scale = 1.0;
  if (suffix.size() == 1) {
    const char s = char(std::toupper(static_cast<unsigned char>(suffix[0])));
    scale = s == 'K' ? 1024.0 : s == 'M' ? 1024.0 * 1024 : s == 'G' ? 1024.0 * 1024 * 1024 : s == 'T' ? 1024.0 * 1024 * 1024 * 1024 : 0.0;
  } else if (!suffix.empty()) {
    scale = 0.0;
  }
  if (used == 0 || scale == 0.0 || !(value > 0.0) || !std::isfinite(value))
    throw InputError(str("HEMO_MEMORY_LIMIT_BYTES = '", text, "': expected a positive number of bytes, optionally with "
                         "K, M, G or T (powers of 1024), e.g. 12G"));
  return std::uint64_t(value * scale);
}

std::uint64_t parse_meminfo_available(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    double value = 0.0;
    std::string unit;
    fields >> value >> unit;
    return std::uint64_t(value * (unit == "kB" ? 1024.0 : 1.0));
  }
  return 0;
}

std::uint64_t parse_cgroup_limit(const std::string& text) {
  std::string t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  if (t.empty() || t == "max") return 0;
  try {
    const double v = std::stod(t);
    // cgroup v1 writes "no limit" as a huge number (2^63 rounded to pages).
    if (!(v > 0.0) || v >= 9.0e18) return 0;
    return std::uint64_t(v);
  } catch (const std::exception&) {
    return 0;
  }
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A value of a cgroup's memory.stat ("inactive_file 1234"), 0 when absent.
std::uint64_t stat_value(const std::string& stat, const std::string& key) {
  std::istringstream in(stat);
  std::string k;
  double v = 0.0;
  while (in >> k >> v)
    if (k == key) return std::uint64_t(v);
  return 0;
}

/// The cgroup limit less its use (reclaimable file pages not counted as used), and the
/// file it came from; {0, ""} without a limit.
std::pair<std::uint64_t, std::string> cgroup_room() {
  // The process's own cgroup (v2: "0::/path"; v1: "N:memory:/path"), then the root of the
  // mount (inside a container that is the container's cgroup).
  std::vector<std::string> v2_dirs, v1_dirs;
  std::istringstream self(read_text("/proc/self/cgroup"));
  std::string line;
  while (std::getline(self, line)) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty()) v2_dirs.push_back("/sys/fs/cgroup" + path);
    else if (("," + controllers + ",").find(",memory,") != std::string::npos) v1_dirs.push_back("/sys/fs/cgroup/memory" + path);
  }
  v2_dirs.push_back("/sys/fs/cgroup");
  v1_dirs.push_back("/sys/fs/cgroup/memory");
  // The same question in each version's file names: the limit, the use, the reclaimable
  // page cache within it.
  struct Files {
    const std::vector<std::string>& dirs;
    const char *limit, *usage, *reclaimable;
  };
  for (const Files& v : {Files{v2_dirs, "/memory.max", "/memory.current", "inactive_file"},
                         Files{v1_dirs, "/memory.limit_in_bytes", "/memory.usage_in_bytes", "total_inactive_file"}})
    for (const std::string& d : v.dirs) {
      const std::uint64_t limit = parse_cgroup_limit(read_text(d + v.limit));
      if (!limit) continue;
      const std::uint64_t current = parse_cgroup_limit(read_text(d + v.usage));
      const std::uint64_t reclaimable = stat_value(read_text(d + "/memory.stat"), v.reclaimable);
      const std::uint64_t used = current > reclaimable ? current - reclaimable : 0;
      return {limit > used ? limit - used : 0, d + v.limit};
    }
  return {0, ""};
}

}  // namespace

MemoryAvailable host_memory_available() {
  if (const std::uint64_t user = memory_limit_from_environment())
    return {user, "HEMO_MEMORY_LIMIT_BYTES", true};
  MemoryAvailable a;
  if (const std::uint64_t m = parse_meminfo_available(read_text("/proc/meminfo"))) a = {m, "MemAvailable in /proc/meminfo", false};
  const auto [room, file] = cgroup_room();
  if (!file.empty() && (a.bytes == 0 || room < a.bytes)) a = {room, str("the cgroup limit ", file, " less its use"), false};
  return a;
}

std::uint64_t usable_bytes(const MemoryContext& c) {
  return std::uint64_t(double(c.available.bytes) / double(std::max(c.sharing, 1)) * (1.0 - memory_margin));
}

std::string memory_refusal(const MemoryPlan& plan, const MemoryContext& c) {
  const std::uint64_t need = plan.run_bytes();
  if (c.available.bytes == 0) return "";  // unknown: nothing to refuse on
  const std::uint64_t usable = usable_bytes(c);
  if (need <= usable) return "";
  const double ratio = double(need) / double(std::max<std::uint64_t>(usable, 1));
  std::vector<std::string> changes;
  if (c.dx > 0.0) {
    // Nodes fall as dx^3 (fewer in a thin vessel, where the walls do not thin out).
    const double k = std::cbrt(ratio) * 1.02;
    changes.push_back(str("lattice.dx = ", fmt_g(c.dx, 4), " -> ", fmt_g(c.dx * k, 2 + (k < 1.1)), " m or coarser (x",
                          fmt_g(k, 3), ": about ", fmt_g(k * k * k, 3), " times fewer nodes)"));
  }
  const int ranks = int(std::ceil(double(c.ranks) * ratio * 1.1));
  changes.push_back(str("run on ", ranks, " ranks or more (now ", c.ranks, "), spread over enough ",
                        c.memory.rfind("host", 0) == 0 ? "nodes" : "GPUs", ": ranks on one machine share its memory"));
  for (const MemoryAdvice& a : plan.advice())
    changes.push_back(str(a.setting, " (saves ", fmt_bytes(double(a.saves)), a.note.empty() ? "" : ": " + a.note, ")"));
  const std::string share = c.sharing > 1 ? str(" shared by ", c.sharing, " ranks") : "";
  return str("not enough memory for this run: rank ", c.rank, c.ranks > 1 ? str(" of ", c.ranks) : "", " needs about ",
             fmt_bytes(double(need)), " of ", c.memory, " (estimated before allocating: ", plan.describe_largest(4),
             "), but only ", fmt_bytes(double(usable)), " can be used (", fmt_bytes(double(c.available.bytes)), share,
             ", from ", c.available.source, ", less a ", int(memory_margin * 100 + 0.5), "% margin). To fit, change any of: ",
             join(changes, "; "), ". HEMO_MEMORY_LIMIT_BYTES sets the memory one rank may use (docs/cluster.md, \"Memory\")");
}

}  // namespace hemo
