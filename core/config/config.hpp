#pragma once
// A parsed case file: TOML text, plus --set overrides, validated against a Schema.
// Typed access by dotted path ("lattice.tau"); absent keys give their declared default.
// TOML++ stays behind this header (pimpl) so that no other file depends on it.
//
// Life of a case file:
//   Document doc = Document::load("case.toml");          // InputError on I/O or syntax
//   doc.apply_override("lattice.tau=0.9");                // from --set
//   Config cfg = doc.validate(schema);                     // InputError listing every problem
//   double tau = cfg.real("lattice.tau");
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/schema.hpp"

namespace hemo::config {

struct DocumentData;  // holds the toml::table and where each value came from

/// The raw document: parsed but not yet checked against a schema.
class Document {
 public:
  /// Reads and parses a TOML file. InputError: "cannot open case file '...': reason" or
  /// "case.toml:12:7: syntax error: ...".
  static Document load(const std::string& path);
  /// Parses TOML text; `source_name` appears in error messages instead of a file name.
  static Document parse(std::string_view text, const std::string& source_name);

  /// Applies "section.key=value". The value is read as a TOML value (number, boolean,
  /// "string", [array]); a bare word that is not valid TOML is taken as a string, so
  /// --set geometry.shape=pipe works. Intermediate tables are created as needed.
  /// InputError if the text has no '=' or the path is empty or crosses a non-table.
  void apply_override(std::string_view assignment);

  /// Reads a value before full validation (to learn which plugins to load). Checks only
  /// the type of this one key; returns the default when absent.
  std::vector<std::string> peek_strings(std::string_view path, const std::vector<std::string>& fallback) const;

  /// Top-level table names present in the document (to decide which plugins own them).
  std::vector<std::string> top_level_sections() const;

  /// Checks every key against the schema. Collects all problems and throws one
  /// InputError listing each, one per line, most relevant first.
  class Config validate(const Schema& schema) const;

  const std::string& source_name() const;

  Document(Document&&) noexcept;
  Document& operator=(Document&&) noexcept;
  ~Document();

 private:
  explicit Document(std::unique_ptr<DocumentData> d);
  std::unique_ptr<DocumentData> data_;
};

/// A validated configuration, or a view of one table inside it (a [section] or one
/// element of an array of tables). Copies share the same document.
class Config {
 public:
  Config() = default;

  // Typed getters. `path` is relative to this view ("tau" in a view of "lattice", or
  // "lattice.tau" at the top). Absent keys give the declared default; a required key
  // cannot be absent after validation. Asking for an undeclared key or the wrong type is
  // a programming error (std::logic_error), not an input error.
  bool boolean(std::string_view path) const;
  std::int64_t integer(std::string_view path) const;
  double real(std::string_view path) const;
  std::string string(std::string_view path) const;
  std::vector<double> reals(std::string_view path) const;
  std::array<double, 3> vec3(std::string_view path) const;
  std::vector<std::string> strings(std::string_view path) const;

  /// A string key naming a file, resolved against the case file's folder (absolute
  /// paths are returned unchanged), so cases can ship their own data files.
  std::string file_path(std::string_view path) const;

  /// True if the key (or table) was given in the case file or by --set.
  bool has(std::string_view path) const;

  /// A view of the table [path] (which may be absent: then every key has its default).
  Config section(std::string_view path) const;
  /// Views of each element of an array of tables [[path]], in file order.
  std::vector<Config> tables(std::string_view path) const;

  /// "case.toml:12:7" for a key that was given, "--set lattice.tau=0.4" for an override,
  /// or "case.toml" with the full key path when it was not given. For error messages.
  std::string where(std::string_view path) const;
  /// Throws InputError("<where>: <section.key>: <message>").
  [[noreturn]] void fail(std::string_view path, const std::string& message) const;

  /// The whole validated document (every --set applied) as TOML text: what ran, for
  /// DIR/case.toml. Keys left at their defaults are not written.
  std::string to_toml() const;

  /// Dotted path of this view ("" at the top, "output.probe[2]" for an array element).
  const std::string& path() const { return prefix_; }

 private:
  friend class Document;
  struct Shared;
  Config(std::shared_ptr<const Shared> shared, std::string prefix, const void* table, std::string schema_path);
  std::shared_ptr<const Shared> shared_;
  std::string prefix_;        // for messages: "output.probe[2]"
  const void* table_ = nullptr;  // the toml::table of this view, or null when absent
  std::string schema_path_;   // for schema lookups: "output.probe"
};

}  // namespace hemo::config
