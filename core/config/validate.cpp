// Checking a document against the schema. Every problem is collected so that a user
// fixing a case file sees all of them at once rather than one per run.

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "core/common/text.hpp"
#include "core/config/config.hpp"
#include "core/config/toml_detail.hpp"

namespace hemo::config {

// Defined in document.cpp and schema.cpp; declared here because no header may include
// TOML++ (see document.cpp).
namespace {

std::string join_path(const std::string& a, std::string_view b) {
  return a.empty() ? std::string(b) : a + "." + std::string(b);
}

std::string unit_suffix(const Key& k) {
  return k.unit.empty() || k.unit == "1" ? "" : " (" + k.unit + ")";
}

std::string plural(std::size_t n, const char* word) { return str(n, " ", word, n == 1 ? "" : "s"); }

std::string expected_text(const Key& k) {
  switch (k.type) {
    case Type::boolean: return "true or false";
    case Type::integer: return "an integer" + unit_suffix(k);
    case Type::real: return "a number" + unit_suffix(k);
    case Type::string: return "a string";
    case Type::real_array:
      return (k.length > 0 ? "an array of " + plural(k.length, "number") : "an array of numbers") + unit_suffix(k);
    case Type::string_array: return k.length > 0 ? "an array of " + plural(k.length, "string") : "an array of strings";
  }
  return "?";
}

// An "x.0" spelling is the usual reason a whole number is refused for an integer key.
std::string got_text(const toml::node& n) {
  if (const auto d = n.value_exact<double>()) {
    std::string shown = to_string(Value(*d));
    // Shown as the user most likely wrote it: "1.0", not "1", or the complaint looks absurd.
    if (shown.find_first_of(".eEni") == std::string::npos) shown += ".0";
    return "a real number (" + shown + ")";
  }
  return detail::kind_of(n);
}

/// A number as the value of a real key or real-array element, or nothing if not a number.
std::optional<double> as_real(const toml::node& n) {
  if (const auto i = n.value_exact<std::int64_t>()) return static_cast<double>(*i);
  return n.value_exact<double>();
}

// (display path, message) pairs; the caller adds the location.
using Issues = std::vector<std::pair<std::string, std::string>>;

void check_range(const Key& k, double v, const std::string& path, Issues& out) {
  const bool low = k.min && (k.min->inclusive ? v < k.min->value : v <= k.min->value);
  const bool high = k.max && (k.max->inclusive ? v > k.max->value : v >= k.max->value);
  if (!low && !high) return;
  const std::string shown = k.type == Type::integer ? to_string(Value(static_cast<std::int64_t>(v))) : to_string(Value(v));
  out.emplace_back(path, str(path, " = ", shown, " is out of range: must be ", range_text(k, " and "),
                             k.note.empty() ? "" : " (" + k.note + ")"));
}

void check_choice(const Key& k, const std::string& v, const std::string& path, Issues& out) {
  if (k.choices.empty() || std::find(k.choices.begin(), k.choices.end(), v) != k.choices.end()) return;
  const std::string hint = closest_match(v, k.choices);
  out.emplace_back(path, str(path, " = ", to_string(Value(v)), " is not allowed: expected one of ", join(k.choices, ", "),
                             hint.empty() ? "" : " (did you mean " + to_string(Value(hint)) + "?)"));
}

void check_length(const Key& k, std::size_t n, const std::string& path, Issues& out) {
  const char* what = k.type == Type::real_array ? "number" : "string";
  if (k.length > 0 && n != static_cast<std::size_t>(k.length))
    out.emplace_back(path, str(path, ": expected ", plural(k.length, what), ", got ", n));
  else if (n < static_cast<std::size_t>(k.min_length))
    out.emplace_back(path, str(path, ": expected at least ", plural(k.min_length, what), ", got ", n));
}

/// Checks a typed value against the key's range, length and choices. Shared by the case
/// file check and the schema's own defaults.
void check_constraints(const Key& k, const Value& v, const std::string& path, Issues& out) {
  switch (k.type) {
    case Type::integer: check_range(k, static_cast<double>(std::get<std::int64_t>(v)), path, out); break;
    case Type::real: check_range(k, std::get<double>(v), path, out); break;
    case Type::string: check_choice(k, std::get<std::string>(v), path, out); break;
    case Type::real_array: {
      const auto& a = std::get<std::vector<double>>(v);
      check_length(k, a.size(), path, out);
      for (std::size_t i = 0; i < a.size(); ++i) check_range(k, a[i], str(path, "[", i, "]"), out);
      break;
    }
    case Type::string_array: {
      const auto& a = std::get<std::vector<std::string>>(v);
      check_length(k, a.size(), path, out);
      for (std::size_t i = 0; i < a.size(); ++i) check_choice(k, a[i], str(path, "[", i, "]"), out);
      break;
    }
    case Type::boolean: break;
  }
}

/// Converts a TOML value to the key's type, or reports why it cannot be.
std::optional<Value> typed(const Key& k, const toml::node& n, const std::string& path, Issues& out) {
  auto wrong = [&](const toml::node& bad, const std::string& bad_path, const std::string& expected) {
    out.emplace_back(bad_path, str(bad_path, ": expected ", expected, ", got ", got_text(bad)));
    return std::nullopt;
  };
  auto finite = [&](double d, const std::string& p) {
    if (std::isfinite(d)) return true;
    out.emplace_back(p, str(p, " = ", to_string(Value(d)), " is not a finite number"));
    return false;
  };
  switch (k.type) {
    case Type::boolean:
      if (const auto b = n.value_exact<bool>()) return Value(*b);
      return wrong(n, path, expected_text(k));
    case Type::integer:
      if (const auto i = n.value_exact<std::int64_t>()) return Value(*i);
      return wrong(n, path, expected_text(k));
    case Type::real:
      if (const auto d = as_real(n)) return finite(*d, path) ? std::optional<Value>(Value(*d)) : std::nullopt;
      return wrong(n, path, expected_text(k));
    case Type::string:
      if (const auto s = n.value_exact<std::string>()) return Value(*s);
      return wrong(n, path, expected_text(k));
    case Type::real_array: {
      const auto* a = n.as_array();
      if (!a) return wrong(n, path, expected_text(k));
      std::vector<double> v;
      bool ok = true;
      for (std::size_t i = 0; i < a->size(); ++i) {
        const std::string p = str(path, "[", i, "]");
        const auto d = as_real(*a->get(i));
        if (!d) wrong(*a->get(i), p, "a number" + unit_suffix(k));
        ok = ok && d && finite(*d, p);
        if (d) v.push_back(*d);
      }
      return ok ? std::optional<Value>(Value(std::move(v))) : std::nullopt;
    }
    case Type::string_array: {
      const auto* a = n.as_array();
      if (!a) return wrong(n, path, expected_text(k));
      std::vector<std::string> v;
      bool ok = true;
      for (std::size_t i = 0; i < a->size(); ++i) {
        const auto s = a->get(i)->value_exact<std::string>();
        if (!s) wrong(*a->get(i), str(path, "[", i, "]"), "a string");
        ok = ok && s;
        if (s) v.push_back(*s);
      }
      return ok ? std::optional<Value>(Value(std::move(v))) : std::nullopt;
    }
  }
  return std::nullopt;
}

std::string header(const std::string& schema_path, bool array) {
  return array ? "[[" + schema_path + "]]" : "[" + schema_path + "]";
}

class Checker {
 public:
  Checker(const DocumentData& doc, const Schema& schema) : doc_(doc), schema_(schema) {}

  /// `schema_path` names the section ("output.probe"); `path` names this very table in
  /// messages ("output.probe[1]"). Both are "" at the top level.
  void table(const toml::table& t, const std::string& schema_path, const std::string& path) {
    const Section* sec = schema_.find(schema_path);
    for (const auto& [name_key, node] : t) {
      const std::string name(name_key.str());
      const std::string sub_schema = join_path(schema_path, name), sub_path = join_path(path, name);
      if (const Key* key = sec ? sec->find(name) : nullptr) {
        value(*key, node, sub_path);
      } else if (const Section* sub = schema_.find(sub_schema); sub || !schema_.children_of(sub_schema).empty()) {
        subsection(sub, node, sub_schema, sub_path);
      } else {
        unknown(name, node, sec, schema_path, sub_path);
      }
    }
    if (sec) {
      for (const Key& k : sec->keys())
        if (k.required && !t.contains(k.name)) missing(k, join_path(path, k.name));
    }
    for (const auto& child : schema_.children_of(schema_path))
      if (!t.contains(child)) absent(join_path(schema_path, child), join_path(path, child));
  }

  std::vector<std::string> sorted() {
    std::stable_sort(problems_.begin(), problems_.end(),
                     [](const Problem& a, const Problem& b) { return a.order < b.order; });
    std::vector<std::string> out;
    for (auto& p : problems_) out.push_back(std::move(p.text));
    return out;
  }

 private:
  struct Problem {
    std::array<std::int64_t, 3> order;  // file order, then --set order, then absent keys
    std::string text;
  };

  void report(const std::string& path, const std::string& message) {
    Problem p;
    p.text = detail::document_where(doc_, path, &p.order) + ": " + message;
    problems_.push_back(std::move(p));
  }

  void value(const Key& key, const toml::node& node, const std::string& path) {
    Issues issues;
    if (const auto v = typed(key, node, path, issues)) check_constraints(key, *v, path, issues);
    for (const auto& [p, msg] : issues) report(p, msg);
  }

  void subsection(const Section* sub, const toml::node& node, const std::string& sub_schema, const std::string& path) {
    const bool want_array = sub && sub->is_array();
    if (want_array && node.is_array() && (detail::is_array_of_tables(node) || node.as_array()->empty())) {
      const auto& a = *node.as_array();
      for (std::size_t i = 0; i < a.size(); ++i) table(*a.get(i)->as_table(), sub_schema, str(path, "[", i, "]"));
    } else if (!want_array && node.is_table()) {
      table(*node.as_table(), sub_schema, path);
    } else if (want_array && node.is_table()) {
      report(path, str(header(sub_schema, false), " must be an array of tables: write ", header(sub_schema, true),
                       " for each element"));
    } else if (!want_array && detail::is_array_of_tables(node)) {
      report(path, str(header(sub_schema, true), " is a single table, not an array of tables: write ",
                       header(sub_schema, false)));
    } else {
      report(path, str(path, ": expected ", want_array ? "an array of tables " : "a table ", header(sub_schema, want_array),
                       ", got ", got_text(node)));
    }
  }

  void unknown(const std::string& name, const toml::node& node, const Section* sec, const std::string& schema_path,
               const std::string& path) {
    const std::string sub_schema = join_path(schema_path, name);
    const auto siblings = schema_.children_of(schema_path);
    const std::string near_section = closest_match(name, siblings);
    const std::string section_hint =
        near_section.empty() ? "" : " (did you mean [" + join_path(schema_path, near_section) + "]?)";
    if (node.is_table() || detail::is_array_of_tables(node)) {
      report(path, "unknown section " + header(sub_schema, !node.is_table()) + section_hint);
      return;
    }
    if (schema_path.empty()) {
      // A key above every section header is usually one that belongs in a section.
      std::string home;
      for (const auto& s : schema_.sections())
        if (s.find(name) && home.empty()) home = header(s.path(), s.is_array());
      report(path, "unknown top-level key '" + name + "': keys belong in a section" +
                       (home.empty() ? "" : " (did you mean to put it in " + home + "?)"));
      return;
    }
    std::vector<std::string> names;
    if (sec)
      for (const auto& k : sec->keys()) names.push_back(k.name);
    const std::string near_key = closest_match(name, names);
    const std::string hint = !near_key.empty() ? " (did you mean '" + near_key + "'?)" : section_hint;
    report(path, "unknown key '" + name + "' in " + header(schema_path, sec && sec->is_array()) + hint);
  }

  void missing(const Key& k, const std::string& path) {
    Problem p;
    p.order = {3, 0, 0};
    p.text = str(detail::document_where(doc_, "", nullptr), ": ", path, " is required",
                 k.help.empty() ? "" : " (" + k.help + ")", " but was not given");
    problems_.push_back(std::move(p));
  }

  /// A declared table that the document does not have: its defaults apply, but its
  /// required keys are still missing. An absent array of tables just has no elements.
  void absent(const std::string& schema_path, const std::string& path) {
    const Section* sec = schema_.find(schema_path);
    if (sec && sec->is_array()) return;
    if (sec)
      for (const Key& k : sec->keys())
        if (k.required) missing(k, join_path(path, k.name));
    for (const auto& child : schema_.children_of(schema_path))
      absent(join_path(schema_path, child), join_path(path, child));
  }

  const DocumentData& doc_;
  const Schema& schema_;
  std::vector<Problem> problems_;
};

}  // namespace

namespace detail {

/// Every problem of the document, one message each, in file order, then overrides, then
/// keys that are required but missing.
std::vector<std::string> find_problems(const DocumentData& doc, const Schema& schema) {
  // A default that breaks its own key's rules is a bug in the declaring code, whatever
  // the case file says.
  for (const auto& s : schema.sections()) {
    for (const auto& k : s.keys()) {
      if (!k.default_value) continue;
      Issues issues;
      check_constraints(k, *k.default_value, s.path() + "." + k.name, issues);
      if (!issues.empty()) throw std::logic_error("schema: default value breaks its own rule: " + issues[0].second);
    }
  }
  Checker checker(doc, schema);
  checker.table(document_root(doc), "", "");
  return checker.sorted();
}

}  // namespace detail

}  // namespace hemo::config
