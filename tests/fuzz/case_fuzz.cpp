// libFuzzer target for the case-file reader: what `hemoflow check` and `hemoflow run` do
// with a case file before any geometry exists (Simulation::read_case,
// core/sim/simulation.cpp): parse the TOML text (config::Document::parse, core/config),
// apply --set overrides, peek at run.plugins, validate against the schema
// (Document::validate with declare_core_schema, core/sim/case_schema.cpp), read every
// declared key through the typed getters, and derive the lattice units (derive_units,
// core/sim/units.cpp).
//
// The input is the case file's text. Its lines that start with "#set " (TOML comments,
// so the parse does not see them) are also applied as --set overrides, in order.
//
// A finding is:
//   - a crash, a hang, or a report from AddressSanitizer or UndefinedBehaviorSanitizer;
//   - any exception other than hemo::InputError (bad input must end in that; a
//     std::logic_error from a getter after validation means validation let through what
//     the getters cannot read);
//   - a validated case whose DIR/case.toml (Config::to_toml, what a run writes as the
//     record of what ran) does not parse and validate again, or reads back other values;
//   - lattice units that are not usable numbers (tau <= 1/2, dt not positive and finite).
//
// The schema is core's only: plugins are shared libraries loaded at run time, so their
// sections ([boundaries], [lb_bgk], ...) are unknown sections here. Validation of those
// sections is the same code (validate.cpp) with other declarations.
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/config/config.hpp"
#include "core/sim/case_schema.hpp"
#include "core/sim/units.hpp"
#include "tests/fuzz/fuzz_common.hpp"

namespace {

using hemo::config::Config;
using hemo::config::Document;
using hemo::config::Key;
using hemo::config::Schema;
using hemo::config::Section;
using hemo::config::Type;
using hemo::config::Value;

[[noreturn]] void finding(const std::string& what) { hemo::fuzz::finding("case_fuzz", what); }

const Schema& core_schema() {
  static const Schema schema = [] {
    Schema s;
    hemo::declare_core_schema(s);
    return s;
  }();
  return schema;
}

/// Every declared key of a table read through its getter, by display path -> value.
void read_keys(const Config& c, const Section& s, std::map<std::string, std::string>& out) {
  for (const Key& k : s.keys()) {
    const std::string path = c.path().empty() ? k.name : c.path() + "." + k.name;
    (void)c.where(k.name);
    if (!c.has(k.name) && !k.default_value) {
      if (k.required) finding("required key " + path + " absent after validation");
      continue;
    }
    Value v;
    switch (k.type) {
      case Type::boolean: v = c.boolean(k.name); break;
      case Type::integer: v = c.integer(k.name); break;
      case Type::real: v = c.real(k.name); break;
      case Type::string:
        v = c.string(k.name);
        (void)c.file_path(k.name);
        break;
      case Type::real_array:
        v = c.reals(k.name);
        if (k.length == 3) (void)c.vec3(k.name);
        break;
      case Type::string_array: v = c.strings(k.name); break;
    }
    out[path] = hemo::config::to_string(v);
  }
}

/// Reads every declared key of a validated case (sections through section(), arrays of
/// tables through tables()), as the plugins and core do.
std::map<std::string, std::string> read_all(const Config& cfg) {
  std::map<std::string, std::string> values;
  for (const Section& s : core_schema().sections()) {
    if (s.is_array()) {
      for (const Config& t : cfg.tables(s.path())) read_keys(t, s, values);
    } else {
      read_keys(cfg.section(s.path()), s, values);
    }
  }
  return values;
}

/// The lines "#set section.key=value" of the input.
std::vector<std::string> overrides(std::string_view text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = text.find('\n', at);
    const std::string_view line = text.substr(at, end == std::string_view::npos ? end : end - at);
    if (line.rfind("#set ", 0) == 0) out.emplace_back(line.substr(5));
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    Document doc = Document::parse(text, "fuzz/case.toml");
    for (const std::string& o : overrides(text)) doc.apply_override(o);
    (void)doc.top_level_sections();
    (void)doc.peek_strings("run.plugins", hemo::default_plugins());
    const Config cfg = doc.validate(core_schema());
    const std::map<std::string, std::string> values = read_all(cfg);

    // DIR/case.toml: the record of what ran must be a case that reads back the same.
    const std::string written = cfg.to_toml();
    std::map<std::string, std::string> again;
    try {
      again = read_all(Document::parse(written, "fuzz/out/case.toml").validate(core_schema()));
    } catch (const hemo::InputError& e) {
      finding(std::string("the validated case, written back as TOML, is refused: ") + e.what() + "\n--- written:\n" +
              written);
    }
    if (again != values) {
      for (const auto& [k, v] : values) {
        const auto it = again.find(k);
        if (it == again.end() || it->second != v)
          finding("written back as TOML, " + k + " = " + v + " reads back as " +
                  (it == again.end() ? std::string("nothing") : it->second) + "\n--- written:\n" + written);
      }
      finding("written back as TOML, the case reads back other keys\n--- written:\n" + written);
    }

    const hemo::LatticeUnits u = hemo::derive_units(cfg);
    if (!(u.tau > 0.5) || !std::isfinite(u.tau)) finding(hemo::str("derive_units gave tau = ", u.tau));
    if (!(u.dt > 0.0) || !std::isfinite(u.dt)) finding(hemo::str("derive_units gave dt = ", u.dt));
  } catch (const hemo::InputError& e) {
    // The expected outcome for bad input, except where the input is known to be valid.
    if (hemo::fuzz::expect_valid()) finding(std::string("a valid seed was refused: ") + e.what());
  } catch (const std::exception& e) {
    finding(std::string("exception other than InputError: ") + e.what());
  }
  return 0;
}
