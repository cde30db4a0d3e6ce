#pragma once
// Declared configuration keys. Every key a case file may contain is declared by its owner
// (core or a plugin) with its type, default, unit, range and help text. The validator
// refuses anything undeclared (with a "did you mean" hint) and anything of the wrong type
// or out of range (with file:line:column), and `hemoflow info --keys` prints the schema as
// the reference documentation.
//
// Declaration reads like the documentation it produces:
//   schema.section("lattice", "core", "Lattice spacing and relaxation")
//       .real("dx", "m", "Lattice spacing").greater_than(0.0).required()
//       .real("tau", "1", "BGK relaxation time").greater_than(0.5).default_value(0.8);
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hemo::config {

enum class Type {
  boolean,
  integer,
  real,          // accepts TOML integers too
  string,
  real_array,    // [1.0, 2, 3]; fixed length when `length` is set
  string_array,  // ["a", "b"]
};

const char* to_string(Type t);

/// A default value, also the typed value of a key after validation.
using Value = std::variant<bool, std::int64_t, double, std::string, std::vector<double>, std::vector<std::string>>;

std::string to_string(const Value& v);

struct Bound {
  double value = 0.0;
  bool inclusive = true;
};

struct Key {
  std::string name;
  Type type = Type::real;
  std::string unit;  // "m", "s", "m/s", "kg/m^3", "m^2/s", "1" for dimensionless, "" for none
  std::string help;
  std::optional<Value> default_value;
  bool required = false;  // no default and must be given
  std::optional<Bound> min, max;   // for numbers and each element of real arrays
  int length = -1;                 // arrays: exact element count (-1 = any, >= 1)
  int min_length = 0;              // arrays: at least this many elements
  std::vector<std::string> choices;  // strings and string arrays: allowed values (empty = any)
  std::string note;                  // extra line shown with range errors (why the range)
};

/// A TOML table [path] (or an array of tables [[path]]) and the keys it may hold.
class Section {
 public:
  Section(std::string path, std::string owner, std::string help, bool is_array);

  const std::string& path() const { return path_; }
  const std::string& owner() const { return owner_; }
  const std::string& help() const { return help_; }
  bool is_array() const { return is_array_; }
  const std::vector<Key>& keys() const { return keys_; }
  const Key* find(std::string_view name) const;

  // Declaration: each starts a key; the modifiers below apply to the last key started.
  Section& boolean(std::string name, std::string help);
  Section& integer(std::string name, std::string unit, std::string help);
  Section& real(std::string name, std::string unit, std::string help);
  Section& string(std::string name, std::string help);
  Section& reals(std::string name, std::string unit, std::string help, int length = -1);
  Section& strings(std::string name, std::string help);

  Section& default_value(Value v);
  Section& required();
  Section& at_least(double v);      // >= v
  Section& greater_than(double v);  // >  v
  Section& at_most(double v);       // <= v
  Section& less_than(double v);     // <  v
  Section& choices(std::vector<std::string> allowed);
  Section& min_length(int n);
  Section& note(std::string why);

 private:
  Key& last();
  std::string path_, owner_, help_;
  bool is_array_;
  std::vector<Key> keys_;
};

/// "> 0.5", ">= 0 and <= 1": a key's range in the words both the reference
/// documentation and the validator's messages use.
std::string range_text(const Key& key, std::string_view separator);

class Schema {
 public:
  /// Declares the table [path]; declaring it again returns the same section if the
  /// owner matches (an error otherwise: two owners for one section).
  Section& section(const std::string& path, const std::string& owner, const std::string& help);
  /// Declares an array of tables [[path]].
  Section& table_array(const std::string& path, const std::string& owner, const std::string& help);

  const Section* find(std::string_view path) const;
  const std::deque<Section>& sections() const { return sections_; }

  /// Top-level section names, for "did you mean" hints.
  std::vector<std::string> top_level_names() const;
  /// Names of the sub-sections directly below `path` ("" for top level).
  std::vector<std::string> children_of(std::string_view path) const;

  /// Reference documentation: one block per section, one row per key.
  std::string describe_text() const;
  std::string describe_markdown() const;

 private:
  Section& add(const std::string& path, const std::string& owner, const std::string& help, bool is_array);
  // A deque, not a vector: declaring a section must not invalidate the Section& that an
  // earlier section() call handed out and that its owner may still be filling in.
  std::deque<Section> sections_;
};

}  // namespace hemo::config
