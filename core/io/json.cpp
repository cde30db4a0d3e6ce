#include "core/io/json.hpp"

#include "core/common/text.hpp"
#include "core/io/write_failure.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace hemo::io {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += ch;  // UTF-8 passes through unchanged, as RFC 8259 allows
        }
    }
  }
  out += '"';
  return out;
}

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) {
    if (!out_.empty()) throw std::logic_error("JsonWriter: a second top-level value");
    return;
  }
  if (object_.back()) throw std::logic_error("JsonWriter: a value in an object needs a key");
  if (!first_.back()) out_ += ',';
  first_.back() = false;
  newline();
}

JsonWriter& JsonWriter::key(std::string_view k) {
  if (first_.empty() || !object_.back())
    throw std::logic_error("JsonWriter: key \"" + std::string(k) + "\" outside an object");
  if (after_key_)
    throw std::logic_error("JsonWriter: key \"" + std::string(k) + "\" follows a key");
  if (!first_.back()) out_ += ',';
  first_.back() = false;
  newline();
  out_ += json_quote(k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
  object_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
  object_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  if (first_.empty() || !object_.back())
    throw std::logic_error("JsonWriter: end_object without a matching begin_object");
  if (after_key_) throw std::logic_error("JsonWriter: end_object after a key with no value");
  const bool empty = first_.back();
  first_.pop_back();
  object_.pop_back();
  if (!empty) newline();
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  if (first_.empty() || object_.back())
    throw std::logic_error("JsonWriter: end_array without a matching begin_array");
  const bool empty = first_.back();
  first_.pop_back();
  object_.pop_back();
  if (!empty) newline();
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ += json_quote(s);
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  if (!std::isfinite(d)) return null();
  before_value();
  out_ += fmt_round_trip(d);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t i) {
  before_value();
  out_ += std::to_string(i);
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t i) {
  before_value();
  out_ += std::to_string(i);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

void write_file_atomic(const std::string& path, const std::string& text) {
  // Failures name the final path (the temporary one is removed) and the bytes, and leave
  // a file of that name written before as it was (WriteError).
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) write_failed(path, "create " + tmp, text.size(), errno);
  auto fail = [&](const std::string& doing) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    write_failed(path, doing, text.size(), err);
  };
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(str("write it under the temporary name ", tmp, " (removed) after ", text.size() - left, " bytes"));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  // Without fsync a power loss after the rename can leave an empty file under the
  // final name (the rename reaches the disk before the data).
  if (::fsync(fd) != 0) fail("sync " + tmp);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    write_failed(path, "close " + tmp, text.size(), err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    write_failed(path, "rename " + tmp + " into place", text.size(), err);
  }
}

}  // namespace hemo::io
