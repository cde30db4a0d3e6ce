// Typed access to a validated document. Input problems were all caught by validate();
// anything that goes wrong here is a mismatch between the code and its own schema, hence
// std::logic_error rather than InputError.
#include "core/config/config.hpp"

#include <array>
#include <filesystem>
#include <stdexcept>

#include "core/common/error.hpp"
#include "core/config/toml_detail.hpp"
#include "core/common/text.hpp"

namespace hemo::config {

// Defined in document.cpp and validate.cpp; declared here because no header may include
// TOML++ (see document.cpp).
// A copy of the schema rather than a pointer: a Config may outlive the Schema it was
// validated against (plugins are unloaded, the app's schema goes out of scope).
struct Config::Shared {
  std::shared_ptr<const DocumentData> doc;
  Schema schema;
};

Config Document::validate(const Schema& schema) const {
  const auto problems = detail::find_problems(*data_, schema);
  if (!problems.empty()) throw InputError(join(problems, "\n"));
  auto shared = std::make_shared<const Config::Shared>(Config::Shared{detail::document_snapshot(*data_), schema});
  const toml::table* root = &detail::document_root(*shared->doc);
  return Config(std::move(shared), "", root, "");
}

std::string Config::file_path(std::string_view path) const {
  const std::filesystem::path value(string(path));
  if (value.is_absolute()) return value.string();
  const std::filesystem::path source(detail::document_source(*shared_->doc));
  return (source.parent_path() / value).lexically_normal().string();
}

std::string Config::to_toml() const { return detail::document_to_toml(*shared_->doc); }

Config::Config(std::shared_ptr<const Shared> shared, std::string prefix, const void* table, std::string schema_path)
    : shared_(std::move(shared)), prefix_(std::move(prefix)), table_(table), schema_path_(std::move(schema_path)) {}

namespace {

std::string join_path(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  return std::string(a) + "." + std::string(b);
}

std::vector<std::string> segments_of(std::string_view path) {
  auto segs = split(path, '.');
  for (const auto& s : segs)
    if (s.empty()) throw std::logic_error(str("config: malformed key path '", path, "'"));
  return segs;
}

const toml::node* child(const toml::table* t, const std::string& name) { return t ? t->get(name) : nullptr; }

struct Lookup {
  const Key* key;
  const toml::node* node;  // null when absent
  std::string full;        // "lattice.tau", for messages
};

}  // namespace

// Finds the declared key and the stored value for a getter, insisting on the getter's type.
// `schema` is null for a default-constructed Config.
static Lookup lookup(const Schema* schema, const std::string& prefix, const void* table, const std::string& schema_path,
                     std::string_view path, Type wanted) {
  const std::string full = join_path(prefix, path);
  if (!schema) throw std::logic_error(str("config: reading '", full, "' from an empty Config"));
  const auto segs = segments_of(path);
  const auto* t = static_cast<const toml::table*>(table);
  std::string section = schema_path;
  for (std::size_t i = 0; i + 1 < segs.size(); ++i) {
    section = join_path(section, segs[i]);
    if (const Section* s = schema->find(section); s && s->is_array())
      throw std::logic_error(str("config: '", full, "' is inside the array of tables [[", section, "]]; use tables()"));
    const toml::node* n = child(t, segs[i]);
    t = n ? n->as_table() : nullptr;
  }
  const Section* sec = schema->find(section);
  const Key* key = sec ? sec->find(segs.back()) : nullptr;
  if (!key) throw std::logic_error(str("config: key '", full, "' is not declared in the schema"));
  if (key->type != wanted)
    throw std::logic_error(str("config: '", full, "' is declared as ", to_string(key->type), ", not read as ", to_string(wanted)));
  return {key, child(t, segs.back()), full};
}

namespace {

// The value when absent: the default, which a validated required key never needs.
template <class T>
T fallback(const Lookup& l) {
  if (!l.key->default_value)
    throw std::logic_error(str("config: '", l.full, "' has no value and no default (was the Config validated?)"));
  return std::get<T>(*l.key->default_value);
}

[[noreturn]] void bad_type(const Lookup& l) {
  throw std::logic_error(str("config: '", l.full, "' does not hold a ", to_string(l.key->type), " (was the Config validated?)"));
}

template <class T>
T scalar(const Lookup& l) {
  if (!l.node) return fallback<T>(l);
  if (const auto v = l.node->value_exact<T>()) return *v;
  bad_type(l);
}

}  // namespace

bool Config::boolean(std::string_view path) const {
  return scalar<bool>(lookup(shared_ ? &shared_->schema : nullptr, prefix_, table_, schema_path_, path, Type::boolean));
}

std::int64_t Config::integer(std::string_view path) const {
  return scalar<std::int64_t>(lookup(shared_ ? &shared_->schema : nullptr, prefix_, table_, schema_path_, path, Type::integer));
}

double Config::real(std::string_view path) const {
  const Lookup l = lookup(shared_ ? &shared_->schema : nullptr, prefix_, table_, schema_path_, path, Type::real);
  if (!l.node) return fallback<double>(l);
  if (const auto i = l.node->value_exact<std::int64_t>()) return static_cast<double>(*i);
  return scalar<double>(l);
}

std::string Config::string(std::string_view path) const {
  return scalar<std::string>(lookup(shared_ ? &shared_->schema : nullptr, prefix_, table_, schema_path_, path, Type::string));
}

std::vector<double> Config::reals(std::string_view path) const {
  const Lookup l = lookup(shared_ ? &shared_->schema : nullptr, prefix_, table_, schema_path_, path, Type::real_array);
  if (!l.node) return fallback<std::vector<double>>(l);
  const auto* a = l.node->as_array();
  if (!a) bad_type(l);
  std::vector<double> out;
  for (const auto& e : *a) {
    if (const auto i = e.value_exact<std::int64_t>()) out.push_back(static_cast<double>(*i));
    else if (const auto d = e.value_exact<double>()) out.push_back(*d);
    else bad_type(l);
  }
  return out;
}

std::array<double, 3> Config::vec3(std::string_view path) const {
  const auto v = reals(path);
  if (v.size() != 3)
    throw std::logic_error(str("config: '", join_path(prefix_, path), "' holds ", v.size(),
                               " values, not 3 (declare it with reals(..., 3) so validation checks the length)"));
  return {v[0], v[1], v[2]};
}

std::vector<std::string> Config::strings(std::string_view path) const {
  const Lookup l = lookup(shared_ ? &shared_->schema : nullptr, prefix_, table_, schema_path_, path, Type::string_array);
  if (!l.node) return fallback<std::vector<std::string>>(l);
  const auto* a = l.node->as_array();
  if (!a) bad_type(l);
  std::vector<std::string> out;
  for (const auto& e : *a) {
    const auto s = e.value_exact<std::string>();
    if (!s) bad_type(l);
    out.push_back(*s);
  }
  return out;
}

namespace {
const toml::node* find_node(const void* table, std::string_view path) {
  const auto* t = static_cast<const toml::table*>(table);
  const toml::node* n = nullptr;
  for (const auto& seg : segments_of(path)) {
    n = child(t, seg);
    if (!n) return nullptr;
    t = n->as_table();
  }
  return n;
}
}  // namespace

bool Config::has(std::string_view path) const { return find_node(table_, path) != nullptr; }

Config Config::section(std::string_view path) const {
  const std::string schema_path = join_path(schema_path_, path);
  if (!shared_) throw std::logic_error(str("config: section '", schema_path, "' of an empty Config"));
  const Section* sec = shared_->schema.find(schema_path);
  if (!sec && shared_->schema.children_of(schema_path).empty())
    throw std::logic_error(str("config: section [", schema_path, "] is not declared in the schema"));
  if (sec && sec->is_array())
    throw std::logic_error(str("config: [[", schema_path, "]] is an array of tables; use tables()"));
  const toml::node* n = find_node(table_, path);
  return Config(shared_, join_path(prefix_, path), n ? n->as_table() : nullptr, schema_path);
}

std::vector<Config> Config::tables(std::string_view path) const {
  const std::string schema_path = join_path(schema_path_, path);
  if (!shared_) throw std::logic_error(str("config: tables '", schema_path, "' of an empty Config"));
  const Section* sec = shared_->schema.find(schema_path);
  if (!sec || !sec->is_array())
    throw std::logic_error(str("config: [[", schema_path, "]] is not declared as an array of tables"));
  std::vector<Config> out;
  const toml::node* n = find_node(table_, path);
  if (const auto* a = n ? n->as_array() : nullptr) {
    const std::string prefix = join_path(prefix_, path);
    for (std::size_t i = 0; i < a->size(); ++i)
      out.push_back(Config(shared_, str(prefix, "[", i, "]"), a->get(i)->as_table(), schema_path));
  }
  return out;
}

std::string Config::where(std::string_view path) const {
  if (!shared_) return join_path(prefix_, path);
  return detail::document_where(*shared_->doc, join_path(prefix_, path), nullptr);
}

void Config::fail(std::string_view path, const std::string& message) const {
  throw InputError(where(path) + ": " + join_path(prefix_, path) + ": " + message);
}

}  // namespace hemo::config
