// Writes the HDF5 file of a fuzz input: the grammar is in h5_recipe.hpp.
#include "tests/fuzz/h5_recipe.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

#include "core/io/hdf5_file.hpp"
#include "tests/fuzz/fuzz_common.hpp"

namespace hemo::fuzz {

namespace {

using io::hdf5::Handle;

constexpr std::size_t max_attribute_values = 4096;
constexpr std::uint64_t max_written_elements = 65536;
constexpr std::size_t max_string_length = 256;
constexpr int max_rank = 8;

enum class Kind { signed_int, unsigned_int, real, vstring, fstring };

struct ElementType {
  Kind kind = Kind::real;
  hid_t file_type = H5I_INVALID_HID;  // predefined: never closed
};

std::optional<ElementType> element_type(std::string_view name) {
  const bool be = name.size() > 2 && name.substr(name.size() - 2) == "be";
  const std::string_view base = be ? name.substr(0, name.size() - 2) : name;
  struct Row {
    const char* name;
    Kind kind;
    hid_t le, be;
  };
  const Row rows[] = {
      {"i8", Kind::signed_int, H5T_STD_I8LE, H5T_STD_I8BE},      {"u8", Kind::unsigned_int, H5T_STD_U8LE, H5T_STD_U8BE},
      {"i16", Kind::signed_int, H5T_STD_I16LE, H5T_STD_I16BE},   {"u16", Kind::unsigned_int, H5T_STD_U16LE, H5T_STD_U16BE},
      {"i32", Kind::signed_int, H5T_STD_I32LE, H5T_STD_I32BE},   {"u32", Kind::unsigned_int, H5T_STD_U32LE, H5T_STD_U32BE},
      {"i64", Kind::signed_int, H5T_STD_I64LE, H5T_STD_I64BE},   {"u64", Kind::unsigned_int, H5T_STD_U64LE, H5T_STD_U64BE},
      {"f32", Kind::real, H5T_IEEE_F32LE, H5T_IEEE_F32BE},       {"f64", Kind::real, H5T_IEEE_F64LE, H5T_IEEE_F64BE},
  };
  for (const Row& r : rows)
    if (base == r.name) return ElementType{r.kind, be ? r.be : r.le};
  if (!be && name == "str") return ElementType{Kind::vstring, H5I_INVALID_HID};
  if (!be && name == "fstr") return ElementType{Kind::fstring, H5I_INVALID_HID};
  return std::nullopt;
}

/// "f32[2x3]" -> type "f32", dims {2, 3}; "f32" -> scalar (nullopt dims); "f32[]" -> {}
/// with `from_values` set.
struct TypeAndShape {
  ElementType type;
  std::optional<std::vector<hsize_t>> dims;  // nullopt: scalar
  bool from_values = false;
};

std::optional<std::uint64_t> parse_count(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + std::uint64_t(c - '0');
  }
  if (v > (std::uint64_t(1) << 62)) return std::nullopt;
  return v;
}

std::optional<TypeAndShape> type_and_shape(std::string_view token) {
  TypeAndShape out;
  const auto open = token.find('[');
  const auto type = element_type(token.substr(0, open));
  if (!type) return std::nullopt;
  out.type = *type;
  if (open == std::string_view::npos) return out;
  if (token.back() != ']') return std::nullopt;
  const std::string_view inside = token.substr(open + 1, token.size() - open - 2);
  out.dims.emplace();
  if (inside.empty()) {
    out.from_values = true;
    return out;
  }
  std::size_t at = 0;
  while (true) {
    const auto sep = inside.find_first_of("x,", at);
    const auto n = parse_count(inside.substr(at, sep == std::string_view::npos ? sep : sep - at));
    if (!n || out.dims->size() == max_rank) return std::nullopt;
    out.dims->push_back(*n);
    if (sep == std::string_view::npos) break;
    at = sep + 1;
  }
  return out;
}

/// Elements of a shape, saturating at 2^63.
std::uint64_t element_count(const std::optional<std::vector<hsize_t>>& dims) {
  if (!dims) return 1;
  unsigned __int128 n = 1;
  for (const hsize_t d : *dims) n = std::min<unsigned __int128>(n * d, (unsigned __int128)1 << 63);
  return std::uint64_t(n);
}

std::string unescape(std::string_view token) {
  std::string s;
  for (std::size_t i = 0; i < token.size() && s.size() < max_string_length; ++i) {
    if (token[i] != '\\' || i + 1 == token.size()) {
      s += token[i];
      continue;
    }
    switch (token[++i]) {
      case 's': s += ' '; break;
      case 'n': s += '\n'; break;
      case 't': s += '\t'; break;
      default: s += token[i];
    }
  }
  return s;
}

/// The values of an attribute or dataset in memory: native int64, uint64, double, or
/// strings; `count` elements, the given values repeated.
struct Buffer {
  std::vector<std::int64_t> ints;
  std::vector<std::uint64_t> uints;
  std::vector<double> reals;
  std::vector<std::string> strings;
  std::vector<const char*> pointers;  // variable-length strings
  std::vector<char> fixed;            // fixed-length strings
  std::size_t fixed_size = 1;
  hid_t memory_type = H5I_INVALID_HID;
  const void* data = nullptr;
};

/// Fills `b`, and returns the file type to use (owned by `owned` when it had to be made).
hid_t fill(Buffer& b, const ElementType& t, const std::vector<std::string_view>& values, std::uint64_t count,
           std::optional<Handle>& owned) {
  const std::size_t n = std::size_t(count);
  const std::size_t given = values.size();
  switch (t.kind) {
    case Kind::signed_int:
      b.ints.resize(n);
      for (std::size_t i = 0; i < n && given; ++i) b.ints[i] = std::strtoll(std::string(values[i % given]).c_str(), nullptr, 0);
      b.memory_type = H5T_NATIVE_INT64;
      b.data = b.ints.data();
      return t.file_type;
    case Kind::unsigned_int:
      b.uints.resize(n);
      for (std::size_t i = 0; i < n && given; ++i)
        b.uints[i] = std::strtoull(std::string(values[i % given]).c_str(), nullptr, 0);
      b.memory_type = H5T_NATIVE_UINT64;
      b.data = b.uints.data();
      return t.file_type;
    case Kind::real:
      b.reals.resize(n);
      for (std::size_t i = 0; i < n && given; ++i) b.reals[i] = std::strtod(std::string(values[i % given]).c_str(), nullptr);
      b.memory_type = H5T_NATIVE_DOUBLE;
      b.data = b.reals.data();
      return t.file_type;
    case Kind::vstring:
    case Kind::fstring: {
      b.strings.resize(n);
      for (std::size_t i = 0; i < n && given; ++i) b.strings[i] = unescape(values[i % given]);
      owned.emplace(H5Tcopy(H5T_C_S1), H5Tclose);
      if (!owned->ok()) return H5I_INVALID_HID;
      if (t.kind == Kind::vstring) {
        for (const auto& s : b.strings) b.pointers.push_back(s.c_str());
        if (H5Tset_size(owned->get(), H5T_VARIABLE) < 0 || H5Tset_cset(owned->get(), H5T_CSET_UTF8) < 0)
          return H5I_INVALID_HID;
        b.data = b.pointers.data();
      } else {
        for (const auto& s : b.strings) b.fixed_size = std::max(b.fixed_size, s.size());
        b.fixed.assign(n * b.fixed_size, '\0');
        for (std::size_t i = 0; i < n; ++i) std::memcpy(&b.fixed[i * b.fixed_size], b.strings[i].data(), b.strings[i].size());
        if (H5Tset_size(owned->get(), b.fixed_size) < 0) return H5I_INVALID_HID;
        b.data = b.fixed.data();
      }
      b.memory_type = owned->get();
      return owned->get();
    }
  }
  return H5I_INVALID_HID;
}

hid_t make_space(const std::optional<std::vector<hsize_t>>& dims) {
  if (!dims) return H5Screate(H5S_SCALAR);
  if (dims->empty()) return H5Screate(H5S_NULL);
  return H5Screate_simple(int(dims->size()), dims->data(), nullptr);
}

std::string object_path(std::string_view p) {
  if (p.empty() || p == "/") return "/";
  return p.front() == '/' ? std::string(p) : "/" + std::string(p);
}

class RecipeWriter {
 public:
  explicit RecipeWriter(hid_t file) : file_(file), lcpl_(H5Pcreate(H5P_LINK_CREATE), H5Pclose) {
    if (lcpl_.ok()) H5Pset_create_intermediate_group(lcpl_.get(), 1);
  }

  void line(const std::vector<std::string_view>& t) {
    if (t.empty()) return;
    if (t[0] == "group" && t.size() == 2) {
      Handle g(H5Gcreate2(file_, object_path(t[1]).c_str(), lcpl_.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    } else if (t[0] == "link" && t.size() == 3) {
      H5Lcreate_soft(std::string(t[2]).c_str(), file_, object_path(t[1]).c_str(), lcpl_.get(), H5P_DEFAULT);
    } else if (t[0] == "attr" && t.size() >= 4) {
      attribute(object_path(t[1]), std::string(t[2]), t[3], {t.begin() + 4, t.end()});
    } else if (t[0] == "data" && t.size() >= 3) {
      dataset(object_path(t[1]), t[2], {t.begin() + 3, t.end()});
    }
  }

 private:
  void attribute(const std::string& object, const std::string& name, std::string_view type,
                 const std::vector<std::string_view>& values) {
    auto ts = type_and_shape(type);
    if (!ts) return;
    if (ts->from_values) ts->dims = std::vector<hsize_t>{hsize_t(values.size())};
    const std::uint64_t count = element_count(ts->dims);
    if (count > max_attribute_values) return;
    Handle obj(H5Oopen(file_, object.c_str(), H5P_DEFAULT), H5Oclose);
    Handle space(make_space(ts->dims), H5Sclose);
    Buffer b;
    std::optional<Handle> owned;
    const hid_t file_type = fill(b, ts->type, values, count, owned);
    if (!obj.ok() || !space.ok() || file_type < 0) return;
    Handle attr(H5Acreate2(obj.get(), name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (attr.ok() && count > 0) H5Awrite(attr.get(), b.memory_type, b.data);
  }

  void dataset(const std::string& path, std::string_view type, std::vector<std::string_view> values) {
    auto ts = type_and_shape(type);
    if (!ts) return;
    Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (!dcpl.ok()) return;
    // Options before the values.
    while (!values.empty()) {
      const std::string_view v = values.front();
      if (v.rfind("chunk=", 0) == 0) {
        const auto chunk = type_and_shape("f32[" + std::string(v.substr(6)) + "]");
        if (chunk && chunk->dims && !chunk->dims->empty())
          H5Pset_chunk(dcpl.get(), int(chunk->dims->size()), chunk->dims->data());
      } else if (v.rfind("gzip=", 0) == 0) {
        H5Pset_deflate(dcpl.get(), unsigned(std::strtoul(std::string(v.substr(5)).c_str(), nullptr, 10) % 10));
      } else {
        break;
      }
      values.erase(values.begin());
    }
    if (ts->from_values) ts->dims = std::vector<hsize_t>{hsize_t(values.size())};
    const std::uint64_t count = element_count(ts->dims);
    const bool write = !values.empty() && count > 0 && count <= max_written_elements;
    Handle space(make_space(ts->dims), H5Sclose);
    Buffer b;
    std::optional<Handle> owned;
    const hid_t file_type = fill(b, ts->type, values, write ? count : 0, owned);
    if (!space.ok() || file_type < 0) return;
    Handle dset(H5Dcreate2(file_, path.c_str(), file_type, space.get(), lcpl_.get(), dcpl.get(), H5P_DEFAULT),
                H5Dclose);
    if (dset.ok() && write) H5Dwrite(dset.get(), b.memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, b.data);
  }

  hid_t file_;
  Handle lcpl_;
};

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t at = 0;
  while (true) {
    at = line.find_first_not_of(" \t\r", at);
    if (at == std::string_view::npos) break;
    const auto end = line.find_first_of(" \t\r", at);
    out.push_back(line.substr(at, end == std::string_view::npos ? end : end - at));
    if (end == std::string_view::npos) break;
    at = end;
  }
  return out;
}

}  // namespace

void write_h5_input(const std::string& path, const std::uint8_t* data, std::size_t size) {
  static const char signature[] = "\x89HDF\r\n\x1a\n";
  if (size >= 8 && std::memcmp(data, signature, 8) == 0) {
    write_bytes(path, data, size);
    return;
  }
  const io::hdf5::Quiet quiet;
  // Removed first: HDF5 refuses to truncate a file that is not HDF5 (a raw input's).
  std::remove(path.c_str());
  Handle fapl(io::hdf5::file_access(), H5Pclose);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  if (file < 0) finding("h5_recipe", "cannot create the scratch file " + path + io::hdf5::reason());
  {
    RecipeWriter w(file);
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::size_t at = 0;
    while (at <= text.size()) {
      const auto end = text.find('\n', at);
      const std::string_view line = text.substr(at, end == std::string_view::npos ? end : end - at);
      if (!line.empty() && line.front() != '#') w.line(tokens(line));
      if (end == std::string_view::npos) break;
      at = end + 1;
    }
  }
  if (H5Fclose(file) < 0) finding("h5_recipe", "cannot close the scratch file " + path + io::hdf5::reason());
  // HEMO_FUZZ_KEEP_H5=FILE keeps a copy of the file made (a recipe's real HDF5 file: the
  // seeds of raw mode are made so).
  if (const char* keep = std::getenv("HEMO_FUZZ_KEEP_H5")) {
    std::error_code ec;
    std::filesystem::copy_file(path, keep, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) finding("h5_recipe", std::string("cannot copy the file to ") + keep + ": " + ec.message());
  }
}

}  // namespace hemo::fuzz
