// The schema as reference documentation (`hemoflow info --keys`, docs/). Both forms follow
// declaration order so that the output is stable from run to run and diffs stay readable.
#include <algorithm>

#include "core/common/text.hpp"
#include "core/config/schema.hpp"

namespace hemo::config {

namespace {

std::string header(const Section& s) {
  return s.is_array() ? "[[" + s.path() + "]]" : "[" + s.path() + "]";
}

std::string length_text(const Key& k) {
  if (k.length > 0) return str("length ", k.length);
  if (k.min_length > 0) return str("at least ", k.min_length, k.min_length == 1 ? " value" : " values");
  return "";
}

std::string description(const Key& k) { return k.note.empty() ? k.help : k.help + " (" + k.note + ")"; }

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string rtrim(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Table cells must not contain a bare '|' or a newline, or the row falls apart.
std::string cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

std::string Schema::describe_text() const {
  std::string out;
  for (const auto& s : sections_) {
    if (!out.empty()) out += '\n';
    out += rtrim(header(s) + "  (" + s.owner() + ") " + s.help()) + '\n';

    // Columns are aligned within a section only: sections differ too much for one width.
    std::vector<std::string> attrs;
    std::size_t wn = 0, wt = 0, wa = 0;
    for (const auto& k : s.keys()) {
      std::vector<std::string> parts;
      if (k.required) parts.push_back("required");
      else if (k.default_value) parts.push_back("default " + to_string(*k.default_value));
      if (!k.unit.empty()) parts.push_back("unit " + k.unit);
      if (k.min || k.max) parts.push_back("range " + range_text(k, ", "));
      if (!length_text(k).empty()) parts.push_back(length_text(k));
      if (!k.choices.empty()) parts.push_back("one of " + join(k.choices, ", "));
      attrs.push_back(join(parts, "  "));
      wn = std::max(wn, k.name.size());
      wt = std::max(wt, std::string(to_string(k.type)).size());
      wa = std::max(wa, attrs.back().size());
    }
    for (std::size_t i = 0; i < s.keys().size(); ++i) {
      const Key& k = s.keys()[i];
      out += rtrim("  " + pad(k.name, wn) + "  " + pad(to_string(k.type), wt) + "  " + pad(attrs[i], wa) + "   " +
                   description(k)) +
             '\n';
    }
  }
  return out;
}

std::string Schema::describe_markdown() const {
  std::string out;
  for (const auto& s : sections_) {
    if (!out.empty()) out += '\n';
    out += "### " + header(s) + "\n\n";
    out += "Owner: `" + s.owner() + "`." + (s.help().empty() ? "" : " " + s.help()) + "\n\n";
    if (s.keys().empty()) {
      out += "No keys of its own.\n";
      continue;
    }
    out += "| key | type | default | unit | allowed | description |\n";
    out += "|---|---|---|---|---|---|\n";
    for (const auto& k : s.keys()) {
      std::string def;
      if (k.required) def = "**required**";
      else if (k.default_value) def = "`" + to_string(*k.default_value) + "`";
      std::vector<std::string> allowed;
      if (k.min || k.max) allowed.push_back(range_text(k, ", "));
      if (!length_text(k).empty()) allowed.push_back(length_text(k));
      if (!k.choices.empty()) {
        std::vector<std::string> quoted;
        for (const auto& c : k.choices) quoted.push_back("`" + c + "`");
        allowed.push_back("one of " + join(quoted, ", "));
      }
      out += "| `" + cell(k.name) + "` | " + to_string(k.type) + " | " + cell(def) + " | " + cell(k.unit) + " | " +
             cell(join(allowed, "; ")) + " | " + cell(description(k)) + " |\n";
    }
  }
  return out;
}

}  // namespace hemo::config
