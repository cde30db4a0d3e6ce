#pragma once
// A small JSON writer for summary.json and benchmark records (no dependency).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hemo::io {

/// Builds JSON text incrementally with correct commas, escaping and indentation:
///   JsonWriter j; j.begin_object(); j.key("steps").value(100); j.end_object();
class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(double d);  // NaN and infinities are written as null
  JsonWriter& value(std::int64_t i);
  JsonWriter& value(int i) { return value(static_cast<std::int64_t>(i)); }
  JsonWriter& value(std::uint64_t i);
  JsonWriter& value(std::uint32_t i) { return value(static_cast<std::uint64_t>(i)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  const std::string& str() const { return out_; }

 private:
  void before_value();
  void newline();
  std::string out_;
  std::vector<bool> first_;   // per open container: no element written yet
  std::vector<bool> object_;  // per open container: an object (else an array)
  bool after_key_ = false;
};

/// Escapes a string for JSON (quotes included).
std::string json_quote(std::string_view s);

/// Writes `text` to `path` atomically: to path + ".tmp", flushed, then renamed, so a
/// crash never leaves a half-written file. Throws std::runtime_error on I/O failure.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace hemo::io
