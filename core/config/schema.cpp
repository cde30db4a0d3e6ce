#include "core/config/schema.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "core/common/text.hpp"

namespace hemo::config {

const char* to_string(Type t) {
  switch (t) {
    case Type::boolean: return "boolean";
    case Type::integer: return "integer";
    case Type::real: return "real";
    case Type::string: return "string";
    case Type::real_array: return "real array";
    case Type::string_array: return "string array";
  }
  return "?";
}

namespace {

// Shortest text that reads back to the same double, so a default of 0.1 prints as 0.1
// and not as 0.10000000000000001.
std::string format_real(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

const char* value_kind(const Value& v) {
  static const char* const names[] = {"a boolean", "an integer", "a real", "a string", "a real array",
                                      "a string array"};
  return names[v.index()];
}

bool is_number(Type t) { return t == Type::integer || t == Type::real || t == Type::real_array; }
bool is_array_type(Type t) { return t == Type::real_array || t == Type::string_array; }

}  // namespace

std::string to_string(const Value& v) {
  struct Render {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return format_real(d); }
    std::string operator()(const std::string& s) const { return quote(s); }
    std::string operator()(const std::vector<double>& a) const {
      std::vector<std::string> parts;
      for (const double d : a) parts.push_back(format_real(d));
      return "[" + join(parts, ", ") + "]";
    }
    std::string operator()(const std::vector<std::string>& a) const {
      std::vector<std::string> parts;
      for (const auto& s : a) parts.push_back(quote(s));
      return "[" + join(parts, ", ") + "]";
    }
  };
  return std::visit(Render{}, v);
}

std::string range_text(const Key& key, std::string_view separator) {
  std::vector<std::string> parts;
  if (key.min) parts.push_back((key.min->inclusive ? ">= " : "> ") + fmt_g(key.min->value));
  if (key.max) parts.push_back((key.max->inclusive ? "<= " : "< ") + fmt_g(key.max->value));
  return join(parts, separator);
}

// ---------------------------------------------------------------------------------------
// Section

Section::Section(std::string path, std::string owner, std::string help, bool is_array)
    : path_(std::move(path)), owner_(std::move(owner)), help_(std::move(help)), is_array_(is_array) {}

const Key* Section::find(std::string_view name) const {
  for (const auto& k : keys_)
    if (k.name == name) return &k;
  return nullptr;
}

namespace {
Section& add_key(Section& s, std::vector<Key>& keys, std::string name, Type type, std::string unit,
                 std::string help) {
  if (name.empty() || name.find('.') != std::string::npos)
    throw std::logic_error(str("schema: invalid key name '", name, "' in [", s.path(), "]"));
  if (s.find(name))
    throw std::logic_error(str("schema: key '", name, "' declared twice in [", s.path(), "]"));
  Key k;
  k.name = std::move(name);
  k.type = type;
  k.unit = std::move(unit);
  k.help = std::move(help);
  keys.push_back(std::move(k));
  return s;
}
}  // namespace

Section& Section::boolean(std::string name, std::string help) {
  return add_key(*this, keys_, std::move(name), Type::boolean, "", std::move(help));
}
Section& Section::integer(std::string name, std::string unit, std::string help) {
  return add_key(*this, keys_, std::move(name), Type::integer, std::move(unit), std::move(help));
}
Section& Section::real(std::string name, std::string unit, std::string help) {
  return add_key(*this, keys_, std::move(name), Type::real, std::move(unit), std::move(help));
}
Section& Section::string(std::string name, std::string help) {
  return add_key(*this, keys_, std::move(name), Type::string, "", std::move(help));
}
Section& Section::reals(std::string name, std::string unit, std::string help, int length) {
  if (length == 0 || length < -1)
    throw std::logic_error(str("schema: ", path_, ".", name, ": length must be -1 (any) or >= 1"));
  add_key(*this, keys_, std::move(name), Type::real_array, std::move(unit), std::move(help));
  keys_.back().length = length;
  return *this;
}
Section& Section::strings(std::string name, std::string help) {
  return add_key(*this, keys_, std::move(name), Type::string_array, "", std::move(help));
}

Key& Section::last() {
  if (keys_.empty())
    throw std::logic_error(str("schema: a modifier on [", path_, "] comes before any key was declared"));
  return keys_.back();
}

Section& Section::default_value(Value v) {
  Key& k = last();
  const std::string where = path_ + "." + k.name;
  if (k.required) throw std::logic_error(str("schema: ", where, " is required and cannot have a default"));
  // A real key may be given an integer default (default_value(1)); store it as the double
  // the getters will return.
  if (k.type == Type::real && std::holds_alternative<std::int64_t>(v))
    v = static_cast<double>(std::get<std::int64_t>(v));
  static const Type expected_for_index[] = {Type::boolean, Type::integer,    Type::real,
                                            Type::string,  Type::real_array, Type::string_array};
  if (expected_for_index[v.index()] != k.type)
    throw std::logic_error(str("schema: default of ", where, " (", to_string(k.type), ") is ", value_kind(v)));
  k.default_value = std::move(v);
  return *this;
}

Section& Section::required() {
  Key& k = last();
  if (k.default_value)
    throw std::logic_error(str("schema: ", path_, ".", k.name, " has a default and cannot be required"));
  k.required = true;
  return *this;
}

namespace {
void set_bound(Key& k, const std::string& section, std::optional<Bound>& slot, double v, bool inclusive) {
  if (!is_number(k.type))
    throw std::logic_error(str("schema: ", section, ".", k.name, " is a ", to_string(k.type), " and cannot have a range"));
  slot = Bound{v, inclusive};
}
}  // namespace

Section& Section::at_least(double v) {
  Key& k = last();
  set_bound(k, path_, k.min, v, true);
  return *this;
}
Section& Section::greater_than(double v) {
  Key& k = last();
  set_bound(k, path_, k.min, v, false);
  return *this;
}
Section& Section::at_most(double v) {
  Key& k = last();
  set_bound(k, path_, k.max, v, true);
  return *this;
}
Section& Section::less_than(double v) {
  Key& k = last();
  set_bound(k, path_, k.max, v, false);
  return *this;
}

Section& Section::choices(std::vector<std::string> allowed) {
  Key& k = last();
  if (k.type != Type::string && k.type != Type::string_array)
    throw std::logic_error(str("schema: ", path_, ".", k.name, " is a ", to_string(k.type), " and cannot have choices"));
  k.choices = std::move(allowed);
  return *this;
}

Section& Section::min_length(int n) {
  Key& k = last();
  if (!is_array_type(k.type) || n < 0)
    throw std::logic_error(str("schema: min_length(", n, ") does not apply to ", path_, ".", k.name));
  k.min_length = n;
  return *this;
}

Section& Section::note(std::string why) {
  last().note = std::move(why);
  return *this;
}

// ---------------------------------------------------------------------------------------
// Schema

Section& Schema::section(const std::string& path, const std::string& owner, const std::string& help) {
  return add(path, owner, help, false);
}

Section& Schema::table_array(const std::string& path, const std::string& owner, const std::string& help) {
  return add(path, owner, help, true);
}

Section& Schema::add(const std::string& path, const std::string& owner, const std::string& help, bool is_array) {
  for (const auto& seg : split(path, '.'))
    if (seg.empty()) throw std::logic_error(str("schema: invalid section path '", path, "'"));
  for (auto& s : sections_) {
    if (s.path() != path) continue;
    // Two plugins claiming one table would silently share keys; refuse it at start-up.
    if (s.owner() != owner)
      throw std::logic_error(str("schema: section [", path, "] declared by both '", s.owner(), "' and '", owner, "'"));
    if (s.is_array() != is_array)
      throw std::logic_error(str("schema: section [", path, "] declared both as a table and as an array of tables"));
    return s;
  }
  return sections_.emplace_back(path, owner, help, is_array);
}

const Section* Schema::find(std::string_view path) const {
  for (const auto& s : sections_)
    if (s.path() == path) return &s;
  return nullptr;
}

std::vector<std::string> Schema::children_of(std::string_view path) const {
  // Intermediate tables count too: declaring only [boundaries.inlet] makes "boundaries" a
  // valid top-level name.
  std::vector<std::string> out;
  for (const auto& s : sections_) {
    std::string_view p = s.path();
    if (!path.empty()) {
      if (p.size() <= path.size() + 1 || p.substr(0, path.size()) != path || p[path.size()] != '.') continue;
      p.remove_prefix(path.size() + 1);
    }
    const std::string name(p.substr(0, p.find('.')));
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

std::vector<std::string> Schema::top_level_names() const { return children_of(""); }

}  // namespace hemo::config
