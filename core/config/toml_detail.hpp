#pragma once
// Private to core/config: the functions its .cpp files share over the TOML++ tree.
// This header includes TOML++, so nothing outside core/config/*.cpp may include it
// (TOML++ does not compile under nvcc; see DESIGN.md, "Rules of the house").
#include <toml++/toml.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/config/schema.hpp"

namespace hemo::config {

struct DocumentData;

namespace detail {
const toml::table& document_root(const DocumentData& d);
std::shared_ptr<const DocumentData> document_snapshot(const DocumentData& d);
/// Where the value at `path` came from, for the front of an error message. `order`, when
/// given, receives a sort key: {0, line, column} for the file, {1, n, 0} for the n-th
/// override, {2, 0, 0} when the value was not given at all.
std::string document_where(const DocumentData& d, std::string_view path, std::array<std::int64_t, 3>* order);
/// The case file's path (or the source name given to Document::parse).
const std::string& document_source(const DocumentData& d);
/// The document as TOML text (overrides applied).
std::string document_to_toml(const DocumentData& d);
/// A non-empty array whose elements are all tables: TOML's [[name]].
bool is_array_of_tables(const toml::node& n);
/// "a string", "an integer", ...: what the user wrote, for "expected X, got Y".
std::string kind_of(const toml::node& n);
/// Every problem of the document, one message each, in file order, then overrides, then
/// keys that are required but missing.
std::vector<std::string> find_problems(const DocumentData& doc, const Schema& schema);
}  // namespace detail

}  // namespace hemo::config
