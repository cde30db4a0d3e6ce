#include "core/geometry/stl.hpp"
#include "core/geometry/surface.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "core/common/error.hpp"
#include "core/common/text.hpp"
#include "core/io/json.hpp"

namespace hemo::geometry {

std::array<Point, 2> TriangleMesh::bounds() const {
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::array<Point, 2> b{Point{inf, inf, inf}, Point{-inf, -inf, -inf}};
  for (const Point& p : vertices)
    for (int a = 0; a < 3; ++a) {
      b[0][a] = std::min(b[0][a], p[a]);
      b[1][a] = std::max(b[1][a], p[a]);
    }
  return b;
}

double metres_per_unit(LengthUnit unit) {
  switch (unit) {
    case LengthUnit::m: return 1.0;
    case LengthUnit::mm: return 1e-3;
    case LengthUnit::um: return 1e-6;
  }
  return 1.0;
}

std::string to_string(LengthUnit unit) {
  switch (unit) {
    case LengthUnit::m: return "m";
    case LengthUnit::mm: return "mm";
    case LengthUnit::um: return "um";
  }
  return "?";
}

LengthUnit length_unit_from_string(const std::string& text) {
  if (text == "m") return LengthUnit::m;
  if (text == "mm") return LengthUnit::mm;
  if (text == "um") return LengthUnit::um;
  throw InputError(str("unknown length unit '", text, "': expected \"m\", \"mm\" or \"um\""));
}

namespace {

constexpr std::uint64_t binary_header_bytes = 84;  // 80-byte header + uint32 triangle count
constexpr std::uint64_t binary_facet_bytes = 50;   // normal, 3 corners (12 floats), 2 attribute bytes
constexpr std::size_t max_token_chars = 256;       // no STL number or keyword is longer

/// The triangles of a file as they are read: corners merged through a hash table keyed
/// on the bit patterns of the scaled coordinates, degenerate triangles counted and dropped.
class MeshBuilder {
 public:
  explicit MeshBuilder(double scale) : scale_(scale), slots_(16, empty) {}  // grows by doubling

  /// Adds one triangle (corners in file units). Returns false if a corner is not finite.
  bool add(const double (&corner)[3][3]) {
    std::array<std::uint32_t, 3> t{};
    for (int c = 0; c < 3; ++c) {
      // "+ 0.0" turns -0.0 into +0.0: the same point must not get two vertices.
      const Point p{corner[c][0] * scale_ + 0.0, corner[c][1] * scale_ + 0.0, corner[c][2] * scale_ + 0.0};
      if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) return false;
      t[c] = index_of(p);
    }
    if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) ++degenerate_;
    else mesh_.triangles.push_back(t);
    return true;
  }

  void reserve(std::size_t triangles) { mesh_.triangles.reserve(triangles); }
  std::int64_t degenerate() const { return degenerate_; }

  /// The mesh, without the vertices that only dropped triangles used.
  TriangleMesh finish() {
    if (degenerate_ > 0) drop_unused_vertices();
    return std::move(mesh_);
  }

 private:
  static constexpr std::uint32_t empty = std::numeric_limits<std::uint32_t>::max();

  static std::uint64_t hash(const Point& p) {
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    for (double x : p) {
      // Mixing step of a 64-bit finaliser: every input bit reaches every output bit.
      h ^= std::bit_cast<std::uint64_t>(x) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h ^= h >> 33;
      h *= 0xff51afd7ed558ccdull;
      h ^= h >> 29;
    }
    return h;
  }

  std::uint32_t index_of(const Point& p) {
    // Finite and -0 canonicalised, so == on the doubles is bitwise equality.
    std::size_t mask = slots_.size() - 1;
    for (std::size_t s = hash(p) & mask;; s = (s + 1) & mask) {
      const std::uint32_t v = slots_[s];
      if (v == empty) break;
      if (mesh_.vertices[v] == p) return v;
    }
    if (mesh_.vertices.size() >= empty - 1) throw std::length_error("STL: more than 2^32 - 2 distinct vertices");
    const auto v = static_cast<std::uint32_t>(mesh_.vertices.size());
    mesh_.vertices.push_back(p);
    // Keep the table at most half full so that probe chains stay short.
    if (2 * mesh_.vertices.size() > slots_.size()) {
      slots_.assign(slots_.size() * 2, empty);
      mask = slots_.size() - 1;
      for (std::uint32_t i = 0; i < mesh_.vertices.size(); ++i) place(i, mask);
    } else {
      place(v, mask);
    }
    return v;
  }

  void place(std::uint32_t v, std::size_t mask) {
    std::size_t s = hash(mesh_.vertices[v]) & mask;
    while (slots_[s] != empty) s = (s + 1) & mask;
    slots_[s] = v;
  }

  void drop_unused_vertices() {
    std::vector<std::uint32_t> remap(mesh_.vertices.size(), empty);
    for (const auto& t : mesh_.triangles)
      for (std::uint32_t v : t) remap[v] = 0;
    std::uint32_t next = 0;
    for (std::size_t v = 0; v < remap.size(); ++v)
      if (remap[v] != empty) {
        mesh_.vertices[next] = mesh_.vertices[v];
        remap[v] = next++;
      }
    mesh_.vertices.resize(next);
    for (auto& t : mesh_.triangles)
      for (std::uint32_t& v : t) v = remap[v];
  }

  double scale_;
  std::vector<std::uint32_t> slots_;
  TriangleMesh mesh_;
  std::int64_t degenerate_ = 0;
};

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw InputError(path + ": " + what); }

std::uint32_t load_le_u32(const unsigned char* b) {
  return std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24;
}
float load_le_float(const unsigned char* b) { return std::bit_cast<float>(load_le_u32(b)); }
void store_le_float(unsigned char* b, float f) {
  const auto u = std::bit_cast<std::uint32_t>(f);
  for (int i = 0; i < 4; ++i) b[i] = static_cast<unsigned char>(u >> (8 * i));
}

bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

bool equals_keyword(const std::string& token, std::string_view keyword) {
  // Some exporters write keywords in capitals ("FACET NORMAL").
  return token.size() == keyword.size() &&
         std::equal(token.begin(), token.end(), keyword.begin(),
                    [](char a, char b) { return (a >= 'A' && a <= 'Z' ? char(a - 'A' + 'a') : a) == b; });
}

/// Tokens for messages: hostile files put control bytes in them.
std::string printable(const std::string& token) {
  std::string out;
  for (unsigned char c : token.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? char(c) : '?';
  if (token.size() > 40) out += "...";
  return out;
}

/// Whitespace-separated tokens of an ASCII STL with the line each starts on, read through
/// a fixed buffer so that no input (one endless line, say) makes it allocate much.
class TokenReader {
 public:
  TokenReader(std::istream& in, const std::string& path) : in_(in), path_(path), buf_(1 << 16) {}

  /// The next token into `token`; false at the end of the file.
  bool next(std::string& token) {
    int c = peek();
    while (c >= 0 && is_space(c)) {
      get();
      c = peek();
    }
    token.clear();
    token_line_ = line_;
    while (c >= 0 && !is_space(c)) {
      if (token.size() == max_token_chars)
        fail(str(path_, ":", line_), str("ASCII STL: a token of more than ", max_token_chars, " characters at line ",
                                         line_, " ('", printable(token), "')"));
      token += char(get());
      c = peek();
    }
    return !token.empty();
  }

  /// Skips the rest of the current line (the free-form name after 'solid'/'endsolid').
  void skip_line() {
    for (int c = get(); c >= 0 && c != '\n'; c = get()) {
    }
  }

  std::int64_t token_line() const { return token_line_; }

 private:
  int peek() {
    if (pos_ == end_) {
      in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
      end_ = static_cast<std::size_t>(in_.gcount());
      pos_ = 0;
      if (end_ == 0) return -1;
    }
    return static_cast<unsigned char>(buf_[pos_]);
  }
  int get() {
    const int c = peek();
    if (c >= 0) {
      ++pos_;
      if (c == '\n') ++line_;
    }
    return c;
  }

  std::istream& in_;
  const std::string& path_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  std::int64_t line_ = 1, token_line_ = 1;
};

/// Parses solid/facet/outer loop/vertex x3/endloop/endfacet/endsolid, possibly several
/// solids in one file.
void parse_ascii(std::istream& in, const std::string& path, std::int64_t max_triangles, MeshBuilder& out,
                 std::int64_t& triangles_read) {
  TokenReader tokens(in, path);
  std::string tok;
  auto where = [&] { return str(path, ":", tokens.token_line()); };
  auto found = [&](bool got) { return got ? str("'", printable(tok), "'") : std::string("end of file"); };
  auto expect = [&](std::string_view keyword) {
    const bool got = tokens.next(tok);
    if (!got || !equals_keyword(tok, keyword))
      fail(where(), str("ASCII STL: expected '", keyword, "' at line ", tokens.token_line(), ", found ", found(got)));
  };
  // Normals may be "nan" (exporters write that for slivers): they are read and ignored.
  auto number = [&](bool must_be_finite, std::int64_t triangle) {
    const bool got = tokens.next(tok);
    const char* first = tok.data();
    const char* last = tok.data() + tok.size();
    if (got && *first == '+') ++first;  // from_chars takes no '+'
    double value = 0.0;
    const auto [ptr, ec] = std::from_chars(first, last, value);
    if (!got || first == last || ptr != last || (ec != std::errc() && ec != std::errc::result_out_of_range))
      fail(where(), str("ASCII STL: expected a number at line ", tokens.token_line(), ", found ", found(got)));
    // Out of range is overflow (inf) or underflow (fine: about zero); strtod tells which.
    if (ec == std::errc::result_out_of_range) value = std::strtod(first, nullptr);
    if (must_be_finite && !std::isfinite(value))
      fail(where(), str("ASCII STL: triangle ", triangle, " has a non-finite coordinate '", printable(tok),
                        "' at line ", tokens.token_line()));
    return value;
  };

  expect("solid");
  tokens.skip_line();
  for (;;) {
    const bool got = tokens.next(tok);
    if (got && equals_keyword(tok, "endsolid")) {
      tokens.skip_line();
      if (!tokens.next(tok)) return;
      if (!equals_keyword(tok, "solid"))
        fail(where(), str("ASCII STL: expected 'solid' or the end of the file after 'endsolid', at line ",
                          tokens.token_line(), ", found ", found(true)));
      tokens.skip_line();
      continue;
    }
    if (!got || !equals_keyword(tok, "facet"))
      fail(where(), str("ASCII STL: expected 'facet' or 'endsolid' at line ", tokens.token_line(), ", found ", found(got)));
    if (triangles_read >= max_triangles)
      fail(where(), str("more than ", max_triangles, " triangles (the limit) at line ", tokens.token_line()));
    expect("normal");
    for (int a = 0; a < 3; ++a) number(false, triangles_read);
    expect("outer");
    expect("loop");
    double corner[3][3];
    for (auto& c : corner) {
      expect("vertex");
      for (double& x : c) x = number(true, triangles_read);
    }
    expect("endloop");
    expect("endfacet");
    out.add(corner);  // finite: checked per number
    ++triangles_read;
  }
}

void read_binary(std::istream& in, const std::string& path, std::uint32_t count, MeshBuilder& out) {
  in.seekg(static_cast<std::streamoff>(binary_header_bytes));
  constexpr std::size_t chunk = 4096;  // facets per read
  std::vector<unsigned char> buf(chunk * binary_facet_bytes);
  out.reserve(count);
  for (std::uint32_t done = 0; done < count;) {
    const std::size_t n = std::min<std::size_t>(chunk, count - done);
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(n * binary_facet_bytes));
    if (static_cast<std::size_t>(in.gcount()) != n * binary_facet_bytes)
      fail(path, str("truncated binary STL: read stopped in triangle ", done + in.gcount() / binary_facet_bytes,
                     " of ", count, " (did the file change while it was read?)"));
    for (std::size_t i = 0; i < n; ++i, ++done) {
      const unsigned char* f = buf.data() + i * binary_facet_bytes + 12;  // skip the stored normal
      double corner[3][3];
      for (int c = 0; c < 3; ++c)
        for (int a = 0; a < 3; ++a) corner[c][a] = load_le_float(f + 4 * (3 * c + a));
      if (!out.add(corner)) fail(path, str("binary STL: triangle ", done, " has a non-finite coordinate (NaN or inf)"));
    }
  }
}

bool binary_bytes_in(const std::string& prefix) {
  return std::any_of(prefix.begin(), prefix.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c < 0x20 && !is_space(c);
  });
}

}  // namespace

TriangleMesh read_stl(const std::string& path, LengthUnit unit, std::int64_t max_triangles) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, not an STL file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) fail(path, "cannot open STL file: " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open STL file");
  if (size == 0) fail(path, "empty file (0 bytes), expected an STL surface");

  // Enough to see the binary header and any whitespace before an ASCII 'solid'.
  std::string prefix(static_cast<std::size_t>(std::min<std::uintmax_t>(size, 512)), '\0');
  in.read(prefix.data(), static_cast<std::streamsize>(prefix.size()));
  if (static_cast<std::size_t>(in.gcount()) != prefix.size()) fail(path, "cannot read the start of the file");
  const std::size_t first = prefix.find_first_not_of(" \t\r\n\v\f");
  const bool starts_solid = first != std::string::npos && prefix.size() - first >= 5 &&
                            equals_keyword(prefix.substr(first, 5), "solid");

  std::uint32_t count = 0;
  std::uint64_t expected = 0;
  if (size >= binary_header_bytes) {
    count = load_le_u32(reinterpret_cast<const unsigned char*>(prefix.data()) + 80);
    expected = binary_header_bytes + binary_facet_bytes * std::uint64_t(count);
  }
  const auto sizes = [&] {
    return str("header says ", count, " triangles = ", expected, " bytes, file has ", size, " bytes");
  };
  // Binary files from many exporters also begin with "solid", so the exact size decides.
  const bool binary = size >= binary_header_bytes && expected == size;
  if (!binary && !starts_solid) {
    if (size < binary_header_bytes)
      fail(path, str("file of ", size, " bytes is neither binary STL (at least ", binary_header_bytes,
                     " bytes) nor ASCII STL (starts with 'solid')"));
    if (size < expected) fail(path, "truncated binary STL: " + sizes());
    fail(path, "binary STL triangle count disagrees with the file size: " + sizes() +
                   " (and it is not ASCII STL: it does not start with 'solid')");
  }

  const std::string name = std::filesystem::path(path).filename().string();
  MeshBuilder builder(metres_per_unit(unit));
  std::int64_t triangles_read = 0;
  if (binary) {
    if (count == 0) fail(path, "binary STL with no triangles");
    if (std::int64_t(count) > max_triangles)
      fail(path, str("binary STL with ", count, " triangles, more than the limit of ", max_triangles));
    read_binary(in, path, count, builder);
    triangles_read = count;
  } else {
    in.clear();
    in.seekg(0);
    try {
      parse_ascii(in, path, max_triangles, builder, triangles_read);
    } catch (const InputError& e) {
      // A binary file with a wrong count that happens to start with "solid".
      if (size >= binary_header_bytes && binary_bytes_in(prefix))
        throw InputError(str(e.what(), " (the file starts with 'solid' but holds binary data; as binary STL its ",
                             sizes(), ")"));
      throw;
    }
    if (triangles_read == 0) fail(path, "ASCII STL with no triangles (no 'facet')");
  }

  const std::int64_t degenerate = builder.degenerate();
  TriangleMesh mesh = builder.finish();
  if (mesh.triangles.empty())
    fail(path, str("all ", triangles_read, " triangles are degenerate (fewer than 3 distinct corners)"));
  // Seams whose vertices differ in their last bits would leave the surface open: welded
  // (rims only; a closed surface is untouched).
  const std::size_t welded = weld_rims(mesh, weld_tolerance(mesh));
  if (mesh.triangles.empty())
    fail(path, str("all ", triangles_read, " triangles collapse when the vertices of their open edges closer than a "
                   "millionth of the surface's size are welded"));
  mesh.description = str(name, " (", binary ? "binary" : "ASCII", ", ", mesh.triangles.size(), " triangles, ",
                         degenerate > 0 ? str(degenerate, " degenerate dropped, ") : std::string(),
                         welded > 0 ? str(welded, " rim vertices welded within ", fmt_g(weld_tolerance(mesh), 3), " m, ")
                                    : std::string(),
                         to_string(unit), ")");
  return mesh;
}

void write_stl_binary(const std::string& path, const TriangleMesh& mesh, LengthUnit unit) {
  const std::size_t n = mesh.triangles.size();
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error(str(path, ": ", n, " triangles do not fit a binary STL (at most 2^32 - 1)"));
  std::string data(binary_header_bytes + binary_facet_bytes * n, '\0');
  auto* bytes = reinterpret_cast<unsigned char*>(data.data());
  // The header must not begin with "solid", or naive readers take the file for ASCII.
  const std::string header = "binary STL from hemoflow, unit " + to_string(unit);
  std::memcpy(bytes, header.data(), std::min<std::size_t>(header.size(), 80));
  const auto count = static_cast<std::uint32_t>(n);
  for (int i = 0; i < 4; ++i) bytes[80 + i] = static_cast<unsigned char>(count >> (8 * i));

  const double inv_scale = 1.0 / metres_per_unit(unit);
  for (std::size_t t = 0; t < n; ++t) {
    Point p[3];
    for (int c = 0; c < 3; ++c) {
      const std::uint32_t v = mesh.triangles[t][c];
      if (v >= mesh.vertices.size())
        throw std::out_of_range(str(path, ": triangle ", t, " refers to vertex ", v, " of ", mesh.vertices.size()));
      p[c] = mesh.vertices[v];
    }
    const Point e1{p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
    const Point e2{p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
    Point nrm{e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const double len = std::sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    for (double& x : nrm) x = len > 0 ? x / len : 0.0;
    unsigned char* f = bytes + binary_header_bytes + binary_facet_bytes * t;
    for (int a = 0; a < 3; ++a) store_le_float(f + 4 * a, static_cast<float>(nrm[a]));
    for (int c = 0; c < 3; ++c)
      for (int a = 0; a < 3; ++a) store_le_float(f + 12 + 4 * (3 * c + a), static_cast<float>(p[c][a] * inv_scale));
  }
  io::write_file_atomic(path, data);
}

}  // namespace hemo::geometry
