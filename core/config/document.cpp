// Reading a case file and applying --set overrides: everything that happens before the
// schema is consulted.

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/config/config.hpp"
#include "core/config/toml_detail.hpp"

namespace hemo::config {

struct DocumentData {
  toml::table root;
  std::string source;
  // Where each value was written, by display path ("lattice.tau", "output.probe[1].x").
  // Kept beside the tree because copying a toml::node drops its source region, and a
  // validated Config holds a copy.
  std::map<std::string, std::pair<std::int64_t, std::int64_t>, std::less<>> locations;
  // Dotted key path -> (the assignment as typed, order applied).
  std::map<std::string, std::pair<std::string, std::int64_t>, std::less<>> overrides;
};

namespace detail {

bool is_array_of_tables(const toml::node& n) {
  const auto* a = n.as_array();
  if (!a || a->empty()) return false;
  for (const auto& e : *a)
    if (!e.is_table()) return false;
  return true;
}

const std::string& document_source(const DocumentData& d) { return d.source; }

std::string document_to_toml(const DocumentData& d) {
  std::ostringstream os;
  os << toml::toml_formatter(d.root);
  return os.str() + "\n";
}

const toml::table& document_root(const DocumentData& d) { return d.root; }

std::shared_ptr<const DocumentData> document_snapshot(const DocumentData& d) {
  return std::make_shared<const DocumentData>(d);
}

/// "a string", "an integer", ...: what the user wrote, for "expected X, got Y".
std::string kind_of(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a real number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

/// Where the value at `path` came from, for the front of an error message. `order`, when
/// given, receives a sort key: {0, line, column} for the file, {1, n, 0} for the n-th
/// override, {2, 0, 0} when the value was not given at all.
std::string document_where(const DocumentData& d, std::string_view path, std::array<std::int64_t, 3>* order) {
  std::array<std::int64_t, 3> dummy{};
  std::array<std::int64_t, 3>& o = order ? *order : dummy;
  // An override of a key, or of a table above it, is where the value came from.
  for (std::size_t end = 0; end != std::string_view::npos;) {
    end = path.find('.', end + 1);
    const auto it = d.overrides.find(path.substr(0, end));
    if (it != d.overrides.end()) {
      o = {1, it->second.second, 0};
      return "--set " + it->second.first;
    }
  }
  if (const auto it = d.locations.find(path); it != d.locations.end()) {
    o = {0, it->second.first, it->second.second};
    return str(d.source, ":", it->second.first, ":", it->second.second);
  }
  // A table that only exists because an override created it.
  const std::string prefix = std::string(path) + ".";
  if (const auto it = d.overrides.lower_bound(prefix);
      !path.empty() && it != d.overrides.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
    o = {1, it->second.second, 0};
    return "--set " + it->second.first;
  }
  o = {2, 0, 0};
  return d.source;
}

}  // namespace detail

namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

[[noreturn]] void override_error(const std::string& assignment, const std::string& why) {
  throw InputError(str("--set ", assignment, ": ", why));
}

void record_locations(const toml::node& n, const std::string& path, DocumentData& d) {
  const auto& begin = n.source().begin;
  if (!path.empty() && begin.line > 0) d.locations[path] = {begin.line, begin.column};
  if (const auto* t = n.as_table()) {
    for (const auto& [k, v] : *t) record_locations(v, path.empty() ? std::string(k.str()) : path + "." + std::string(k.str()), d);
  } else if (const auto* a = n.as_array()) {
    for (std::size_t i = 0; i < a->size(); ++i) record_locations(*a->get(i), str(path, "[", i, "]"), d);
  }
}

}  // namespace

Document::Document(std::unique_ptr<DocumentData> d) : data_(std::move(d)) {}
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;
Document::~Document() = default;

const std::string& Document::source_name() const { return data_->source; }

Document Document::load(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(str("cannot open case file '", path, "': ", std::strerror(errno)));
  std::string text;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  // fopen succeeds on a directory; the read is what fails (EISDIR).
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) throw InputError(str("cannot open case file '", path, "': ", std::strerror(err)));
  return parse(text, path);
}

Document Document::parse(std::string_view text, const std::string& source_name) {
  auto d = std::make_unique<DocumentData>();
  d->source = source_name;
  try {
    d->root = toml::parse(text, std::string_view(source_name));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    const std::string where = b.line > 0 ? str(source_name, ":", b.line, ":", b.column) : source_name;
    throw InputError(str(where, ": TOML syntax error: ", e.description()));
  }
  record_locations(d->root, "", *d);
  return Document(std::move(d));
}

void Document::apply_override(std::string_view assignment) {
  const std::string text = trim(assignment);
  auto fail = [&](const std::string& why) { override_error(text, why); };
  const auto eq = text.find('=');
  if (eq == std::string::npos) fail("expected section.key=value");

  std::vector<std::string> segments = split(std::string_view(text).substr(0, eq), '.');
  for (auto& s : segments) s = trim(s);
  const std::string key_path = join(segments, ".");
  if (segments.size() == 1 && segments[0].empty()) fail("no key before '='");
  for (const auto& s : segments)
    if (s.empty()) fail(str("empty name in key path '", key_path, "'"));

  toml::table* table = &data_->root;
  std::string walked;   // display path: "boundaries.iolet[0]"
  for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
    walked += (i ? "." : "") + segments[i];
    toml::node* next = table->get(segments[i]);
    if (!next) next = table->insert(segments[i], toml::table{}).first->second.as_table();
    if (detail::is_array_of_tables(*next)) {
      // An element of [[name]] by its index: --set boundaries.iolet.0.pressure=80.
      const std::string& index = segments[++i];
      toml::array& elements = *next->as_array();
      char* end = nullptr;
      const unsigned long e = std::strtoul(index.c_str(), &end, 10);
      if (index.empty() || *end != '\0' || e >= elements.size())
        fail(str("'", walked, "' is an array of ", elements.size(), " tables [[", walked, "]]; name an element by ",
                 "its index, 0 to ", elements.size() - 1, " (got '", index, "')"));
      if (i + 1 >= segments.size()) fail(str("name a key inside ", walked, "[", e, "]"));
      walked += str("[", e, "]");
      table = elements.get(e)->as_table();
      if (i + 1 == segments.size() - 1) break;
      continue;
    }
    if (!next->is_table()) fail(str("'", walked, "' is ", detail::kind_of(*next), ", not a table"));
    table = next->as_table();
  }
  const std::string& last = segments.back();
  const std::string display_path = walked.empty() ? last : walked + "." + last;
  if (const toml::node* old = table->get(last); old && old->is_table())
    // Replacing a whole table would silently drop every key in it.
    fail(str("'", key_path, "' is a table; set its keys one by one (--set ", key_path, ".<key>=...)"));

  // TOML first, so numbers, booleans, arrays and quoted strings keep their type; a bare
  // word such as `pipe` is not TOML, and is meant as a string.
  const std::string raw = trim(text.substr(eq + 1));
  bool typed = false;
  try {
    toml::table parsed = toml::parse(std::string_view("v = " + raw), std::string_view("--set"));
    // More than one entry means the text smuggled in a second key; take it literally.
    if (parsed.size() == 1 && parsed.contains("v")) {
      table->insert_or_assign(last, std::move(*parsed.get("v")));
      typed = true;
    }
  } catch (const toml::parse_error&) {
  }
  if (!typed) table->insert_or_assign(last, raw);

  const auto seq = static_cast<std::int64_t>(data_->overrides.size());
  // Keep the first sequence number of a key set twice: the message shows the latest text.
  auto [it, inserted] = data_->overrides.try_emplace(display_path, text, seq);
  if (!inserted) it->second.first = text;
}

std::vector<std::string> Document::peek_strings(std::string_view path, const std::vector<std::string>& fallback) const {
  const toml::node* node = &data_->root;
  for (const auto& seg : split(path, '.')) {
    const auto* t = node->as_table();
    node = t ? t->get(seg) : nullptr;
    // Absent, or behind something that is not a table: validation will report the latter.
    if (!node) return fallback;
  }
  std::vector<std::string> out;
  const auto* a = node->as_array();
  std::string got = detail::kind_of(*node);
  if (a) {
    for (const auto& e : *a) {
      if (!e.is_string()) {
        got = "an array holding " + detail::kind_of(e);
        a = nullptr;
        break;
      }
      out.push_back(*e.value<std::string>());
    }
  }
  if (!a) {
    throw InputError(str(detail::document_where(*data_, path, nullptr), ": ", path,
                         ": expected an array of strings, got ", got));
  }
  return out;
}

std::vector<std::string> Document::top_level_sections() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : data_->root)
    if (v.is_table() || detail::is_array_of_tables(v)) out.emplace_back(k.str());
  return out;
}

}  // namespace hemo::config
