// Unit tests for core/io: JSON writer, atomic file writes, HDF5/XDMF field output and
// CSV probes.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/unit/temp_dir.hpp"
#include "core/common/error.hpp"
#include "core/io/field_writer.hpp"
#include "core/io/hdf5_file.hpp"
#include "core/io/json.hpp"
#include "core/io/particle_writer.hpp"
#include "core/io/probes.hpp"
#include "core/io/series_csv.hpp"

namespace fs = std::filesystem;
using namespace hemo::io;

namespace {

struct TempDir : hemo::test::TempDir {
  TempDir() : hemo::test::TempDir("io") {}
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool has_tmp_file(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().extension() == ".tmp") return true;
  return false;
}

// Minimal HDF5 reading for the checks below.
struct H5Read {
  hid_t file;
  explicit H5Read(const fs::path& p) : file(H5Fopen(p.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT)) {
    REQUIRE(file >= 0);
  }
  ~H5Read() { H5Fclose(file); }
  H5Read(const H5Read&) = delete;
  H5Read& operator=(const H5Read&) = delete;

  std::vector<hsize_t> shape(const char* name) const {
    const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    REQUIRE(d >= 0);
    const hid_t s = H5Dget_space(d);
    std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(s)));
    H5Sget_simple_extent_dims(s, dims.data(), nullptr);
    H5Sclose(s);
    H5Dclose(d);
    return dims;
  }
  // Stored element class and size: (H5T_FLOAT, 4) for float32.
  std::pair<H5T_class_t, std::size_t> type(const char* name) const {
    const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    REQUIRE(d >= 0);
    const hid_t t = H5Dget_type(d);
    const auto result = std::make_pair(H5Tget_class(t), H5Tget_size(t));
    H5Tclose(t);
    H5Dclose(d);
    return result;
  }
  template <class T>
  std::vector<T> read(const char* name, hid_t mem_type, std::size_t count) const {
    std::vector<T> v(count);
    const hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    REQUIRE(d >= 0);
    CHECK(H5Dread(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
    H5Dclose(d);
    return v;
  }
  std::string string_attr(const char* object, const char* name) const {
    const hid_t a = H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(a >= 0);
    const hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    char* p = nullptr;
    CHECK(H5Aread(a, t, &p) >= 0);
    std::string s = p ? p : "";
    H5free_memory(p);
    H5Tclose(t);
    H5Aclose(a);
    return s;
  }
  template <class T>
  T scalar_attr(const char* name, hid_t mem_type) const {
    T v{};
    const hid_t a = H5Aopen_by_name(file, "/", name, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(a >= 0);
    CHECK(H5Aread(a, mem_type, &v) >= 0);
    H5Aclose(a);
    return v;
  }
};

}  // namespace

TEST_CASE("JsonWriter: nested objects and arrays, pretty-printed") {
  JsonWriter j;
  j.begin_object();
  j.key("name").value("run");
  j.key("steps").value(100);
  j.key("big").value(std::uint64_t{18446744073709551615ULL});
  j.key("neg").value(std::int64_t{-5});
  j.key("ok").value(true);
  j.key("none").null();
  j.key("list").begin_array().value(1).value(2.5).begin_object().key("a").value(false);
  j.end_object().end_array();
  j.key("empty_obj").begin_object().end_object();
  j.key("empty_arr").begin_array().end_array();
  j.end_object();
  const std::string expected =
      "{\n"
      "  \"name\": \"run\",\n"
      "  \"steps\": 100,\n"
      "  \"big\": 18446744073709551615,\n"
      "  \"neg\": -5,\n"
      "  \"ok\": true,\n"
      "  \"none\": null,\n"
      "  \"list\": [\n"
      "    1,\n"
      "    2.5,\n"
      "    {\n"
      "      \"a\": false\n"
      "    }\n"
      "  ],\n"
      "  \"empty_obj\": {},\n"
      "  \"empty_arr\": []\n"
      "}";
  CHECK(j.str() == expected);
}

TEST_CASE("JsonWriter: doubles round-trip, non-finite values become null") {
  JsonWriter j;
  j.begin_array();
  j.value(0.1).value(1.0 / 3.0).value(3.0).value(-2.5e-300).value(1e300);
  j.value(std::nan("")).value(std::numeric_limits<double>::infinity());
  j.value(-std::numeric_limits<double>::infinity());
  j.end_array();
  CHECK(j.str() ==
        "[\n  0.1,\n  0.3333333333333333,\n  3.0,\n  -2.5e-300,\n  1e+300,\n  null,\n  null,\n"
        "  null\n]");
}

TEST_CASE("json_quote escapes per RFC 8259") {
  CHECK(json_quote("plain") == "\"plain\"");
  CHECK(json_quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_quote("\n\t\r\b\f") == "\"\\n\\t\\r\\b\\f\"");
  CHECK(json_quote(std::string_view("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(json_quote(std::string_view("nul\0x", 5)) == "\"nul\\u0000x\"");
  CHECK(json_quote("µm/s") == "\"µm/s\"");  // UTF-8 left alone
  JsonWriter j;
  j.begin_object().key("k\"ey").value("v\nal").end_object();
  CHECK(j.str() == "{\n  \"k\\\"ey\": \"v\\nal\"\n}");
}

TEST_CASE("JsonWriter: misuse is a logic_error") {
  JsonWriter in_object;
  in_object.begin_object();
  CHECK_THROWS_AS(in_object.value(1), std::logic_error);  // value without a key
  CHECK_THROWS_AS(in_object.end_array(), std::logic_error);
  in_object.key("a");
  CHECK_THROWS_AS(in_object.key("b"), std::logic_error);
  CHECK_THROWS_AS(in_object.end_object(), std::logic_error);  // key without a value

  JsonWriter in_array;
  in_array.begin_array();
  CHECK_THROWS_AS(in_array.key("a"), std::logic_error);
  CHECK_THROWS_AS(in_array.end_object(), std::logic_error);

  JsonWriter top;
  CHECK_THROWS_AS(top.key("a"), std::logic_error);
  CHECK_THROWS_AS(top.end_object(), std::logic_error);
  CHECK_THROWS_AS(top.end_array(), std::logic_error);
  top.begin_object().end_object();
  CHECK_THROWS_AS(top.value(1), std::logic_error);  // a second top-level value
}

TEST_CASE("write_file_atomic writes the text and leaves no temporary file") {
  TempDir dir;
  const fs::path p = dir.path / "summary.json";
  write_file_atomic(p.string(), "first");
  write_file_atomic(p.string(), "{\"x\": 1}\n");
  CHECK(slurp(p) == "{\"x\": 1}\n");
  CHECK_FALSE(fs::exists(p.string() + ".tmp"));
  CHECK_FALSE(has_tmp_file(dir.path));

  try {
    write_file_atomic((dir.path / "missing" / "x.json").string(), "x");
    FAIL("expected a WriteError");
  } catch (const hemo::WriteError& e) {
    CHECK(contains(e.what(), "missing"));
    CHECK(contains(e.what(), "a folder of the path does not exist (errno ENOENT)"));
  }
}

TEST_CASE("FieldWriter writes HDF5 + XDMF for each step and a temporal collection") {
  TempDir dir;
  const std::vector<std::array<double, 3>> pos = {{0.0, 0.0, 0.0}, {1e-3, 0.0, 0.0},
                                                  {0.0, 1e-3, 0.5e-3}};
  const std::vector<std::array<std::int32_t, 3>> vox = {{0, 0, 0}, {1, 0, 0}, {0, 1, 1}};

  SUBCASE("float32 output, two steps") {
    FieldWriter w(dir.path.string(), pos, vox, FloatFormat::float32);
    CHECK(w.node_count() == 3);
    REQUIRE(fs::exists(dir.path / "fields" / "mesh.h5"));
    {
      H5Read mesh(dir.path / "fields" / "mesh.h5");
      CHECK(mesh.shape("coordinates") == std::vector<hsize_t>{3, 3});
      CHECK(mesh.type("coordinates") == std::make_pair(H5T_FLOAT, std::size_t{8}));
      CHECK(mesh.read<double>("coordinates", H5T_NATIVE_DOUBLE, 9)[7] == 1e-3);
      CHECK(mesh.string_attr("coordinates", "unit") == "m");
      CHECK(mesh.shape("voxel") == std::vector<hsize_t>{3, 3});
      CHECK(mesh.type("voxel") == std::make_pair(H5T_INTEGER, std::size_t{4}));
      CHECK(mesh.read<std::int32_t>("voxel", H5T_NATIVE_INT32, 9) ==
            std::vector<std::int32_t>{0, 0, 0, 1, 0, 0, 0, 1, 1});
      CHECK(mesh.read<std::int32_t>("connectivity", H5T_NATIVE_INT32, 3) ==
            std::vector<std::int32_t>{0, 1, 2});
    }

    const std::vector<HostField> f1 = {
        {"pressure", "Pa", 1, {1.5, -2.0, 0.1}},
        {"velocity", "m/s", 3, {1, 2, 3, 4, 5, 6, 7, 8, 9}},
    };
    const std::string h5 = w.write(100, 0.25, f1);
    CHECK(fs::path(h5) == dir.path / "fields" / "step_00000100.h5");
    auto f2 = f1;
    f2[0].values = {3.0, 4.0, 5.0};
    w.write(200, 0.5, f2);

    {
      H5Read s(dir.path / "fields" / "step_00000100.h5");
      CHECK(s.shape("pressure") == std::vector<hsize_t>{3});
      CHECK(s.shape("velocity") == std::vector<hsize_t>{3, 3});
      CHECK(s.type("pressure") == std::make_pair(H5T_FLOAT, std::size_t{4}));
      CHECK(s.type("velocity") == std::make_pair(H5T_FLOAT, std::size_t{4}));
      const auto p = s.read<float>("pressure", H5T_NATIVE_FLOAT, 3);
      CHECK(p == std::vector<float>{1.5f, -2.0f, 0.1f});
      CHECK(s.read<double>("velocity", H5T_NATIVE_DOUBLE, 9)[5] == 6.0);
      CHECK(s.string_attr("pressure", "unit") == "Pa");
      CHECK(s.string_attr("velocity", "unit") == "m/s");
      CHECK(s.scalar_attr<long long>("step", H5T_NATIVE_LLONG) == 100);
      CHECK(s.scalar_attr<double>("time", H5T_NATIVE_DOUBLE) == 0.25);
    }
    {
      H5Read s(dir.path / "fields" / "step_00000200.h5");
      CHECK(s.read<float>("pressure", H5T_NATIVE_FLOAT, 3)[2] == 5.0f);
      CHECK(s.scalar_attr<long long>("step", H5T_NATIVE_LLONG) == 200);
    }

    const std::string x1 = slurp(dir.path / "fields" / "step_00000100.xmf");
    CHECK(contains(x1, "<Xdmf Version=\"3.0\">"));
    CHECK(contains(x1, "TopologyType=\"Polyvertex\" NumberOfElements=\"3\""));
    CHECK(contains(x1, "GeometryType=\"XYZ\""));
    CHECK(contains(x1, ">mesh.h5:/coordinates</DataItem>"));
    CHECK(contains(x1, "Dimensions=\"3 3\" NumberType=\"Float\" Precision=\"8\""));
    CHECK(contains(x1, "<Time Value=\"0.25\"/>"));
    CHECK(contains(x1, "Name=\"pressure\" AttributeType=\"Scalar\" Center=\"Node\""));
    CHECK(contains(x1, "Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\""));
    CHECK(contains(x1, "Precision=\"4\" Format=\"HDF\">step_00000100.h5:/pressure<"));
    CHECK(contains(x1, "Dimensions=\"3 3\" NumberType=\"Float\" Precision=\"4\" "
                       "Format=\"HDF\">step_00000100.h5:/velocity<"));
    CHECK(contains(slurp(dir.path / "fields" / "step_00000200.xmf"), "<Time Value=\"0.5\"/>"));

    const std::string all = slurp(dir.path / "fields.xmf");
    CHECK(contains(all, "GridType=\"Collection\" CollectionType=\"Temporal\""));
    CHECK(contains(all, ">fields/step_00000100.h5:/velocity<"));
    CHECK(contains(all, ">fields/step_00000200.h5:/pressure<"));
    CHECK(contains(all, ">fields/mesh.h5:/coordinates<"));
    CHECK(contains(all, "<Time Value=\"0.25\"/>"));
    CHECK(contains(all, "<Time Value=\"0.5\"/>"));
    CHECK(all.find("step_00000100") < all.find("step_00000200"));

    // Rewriting a step replaces it in the collection rather than listing it twice.
    w.write(100, 0.25, f1);
    const std::string again = slurp(dir.path / "fields.xmf");
    CHECK(again.find("Name=\"step_00000100\"") == again.rfind("Name=\"step_00000100\""));
    CHECK_FALSE(has_tmp_file(dir.path));
  }

  SUBCASE("float64 output") {
    FieldWriter w(dir.path.string(), pos, vox, FloatFormat::float64);
    w.write(0, 0.0, {{"density", "kg/m^3", 1, {1000.1, 1000.2, 1000.3}}});
    H5Read s(dir.path / "fields" / "step_00000000.h5");
    CHECK(s.type("density") == std::make_pair(H5T_FLOAT, std::size_t{8}));
    CHECK(s.read<double>("density", H5T_NATIVE_DOUBLE, 3)[1] == 1000.2);
    CHECK(s.string_attr("density", "unit") == "kg/m^3");
    const std::string x = slurp(dir.path / "fields" / "step_00000000.xmf");
    CHECK(contains(x, "Precision=\"8\" Format=\"HDF\">step_00000000.h5:/density<"));
  }

  SUBCASE("invalid input is rejected before anything is written") {
    FieldWriter w(dir.path.string(), pos, vox, FloatFormat::float32);
    CHECK_THROWS_AS(w.write(1, 0.0, {{"p", "Pa", 1, {1.0, 2.0}}}), std::invalid_argument);
    CHECK_THROWS_AS(w.write(1, 0.0, {{"u", "m/s", 2, {1, 2, 3, 4, 5, 6}}}),
                    std::invalid_argument);
    CHECK_THROWS_AS(w.write(1, 0.0, {{"p", "Pa", 1, {1, 2, 3}}, {"p", "Pa", 1, {1, 2, 3}}}),
                    std::invalid_argument);
    CHECK_THROWS_AS(w.write(1, 0.0, {{"a/b", "Pa", 1, {1, 2, 3}}}), std::invalid_argument);
    CHECK_FALSE(fs::exists(dir.path / "fields" / "step_00000001.h5"));
    CHECK_FALSE(fs::exists(dir.path / "fields.xmf"));
    CHECK_THROWS_AS(FieldWriter(dir.path.string(), pos, {{0, 0, 0}}, FloatFormat::float32),
                    std::invalid_argument);
  }
}

TEST_CASE("FieldWriter reports HDF5 failures as runtime_error naming the file") {
  TempDir dir;
  const std::vector<std::array<double, 3>> pos = {{0, 0, 0}};
  const std::vector<std::array<std::int32_t, 3>> vox = {{0, 0, 0}};
  FieldWriter w(dir.path.string(), pos, vox, FloatFormat::float32);
  // A directory at the temporary name makes the HDF5 create fail.
  fs::create_directories(dir.path / "fields" / "step_00000007.h5.tmp");
  try {
    w.write(7, 0.0, {{"p", "Pa", 1, {1.0}}});
    FAIL("expected a runtime_error");
  } catch (const std::runtime_error& e) {
    CHECK(contains(e.what(), "step_00000007.h5"));
  }
  // A directory at the final name makes the rename fail; the temporary file goes.
  fs::create_directories(dir.path / "fields" / "step_00000008.h5" / "x");
  try {
    w.write(8, 0.0, {{"p", "Pa", 1, {1.0}}});
    FAIL("expected a runtime_error");
  } catch (const std::runtime_error& e) {
    CHECK(contains(e.what(), "step_00000008.h5"));
  }
  CHECK_FALSE(fs::exists(dir.path / "fields" / "step_00000008.h5.tmp"));
  CHECK_FALSE(fs::exists(dir.path / "fields.xmf"));
}

TEST_CASE("Probe writes CSV for point and line probes") {
  TempDir dir;
  SUBCASE("point") {
    ProbeSpec spec;
    spec.name = "inlet";
    spec.start = {0.001, 0.002, 0.003};
    Probe p(dir.path.string(), spec, {{7, {0.001, 0.002, 0.0025}, 0.0}});
    CHECK(p.path() == (dir.path / "inlet.csv").string());
    CHECK(p.due(0));
    p.record(10, 0.5, {{1000.0}, {12.5}, {{0.1, -0.2, 1.0 / 3.0}}});
    // Rows are on disk as soon as record returns.
    const auto lines = lines_of(slurp(dir.path / "inlet.csv"));
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "step,time_s,x_m,y_m,z_m,density_kg_m3,pressure_Pa,ux_m_per_s,uy_m_per_s,uz_m_per_s");
    CHECK(lines[1] == "10,0.5,0.001,0.002,0.0025,1000,12.5,0.1,-0.2,0.3333333333");
    p.record(20, 1.0, {{999.5}, {-1e-12}, {{0, 0, 0}}});
    CHECK(lines_of(slurp(dir.path / "inlet.csv")).back() ==
          "20,1,0.001,0.002,0.0025,999.5,-1e-12,0,0,0");

    CHECK_THROWS_AS(p.record(30, 1.5, {{1.0, 2.0}, {1.0}, {{0, 0, 0}}}), std::invalid_argument);
    CHECK_THROWS_AS(p.record(30, 1.5, {{1.0}, {1.0}, {}}), std::invalid_argument);
  }
  SUBCASE("line") {
    ProbeSpec spec;
    spec.name = "axis";
    spec.kind = ProbeSpec::Kind::line;
    spec.points = 2;
    spec.every = 5;
    Probe p(dir.path.string(), spec, {{0, {0, 0, 0}, 0.0}, {1, {0, 0, 0.01}, 0.0099}});
    CHECK(p.due(10));
    CHECK_FALSE(p.due(11));
    p.record(5, 0.125, {{1.0, 2.0}, {3.0, 4.0}, {{1, 2, 3}, {4, 5, 6}}});
    const auto lines = lines_of(slurp(dir.path / "axis.csv"));
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == "step,time_s,s_m,x_m,y_m,z_m,density_kg_m3,pressure_Pa,ux_m_per_s,uy_m_per_s,uz_m_per_s");
    CHECK(lines[1] == "5,0.125,0,0,0,0,1,3,1,2,3");
    CHECK(lines[2] == "5,0.125,0.0099,0,0,0.01,2,4,4,5,6");
  }
  SUBCASE("file errors name the file") {
    ProbeSpec spec;
    spec.name = "blocked";
    fs::create_directories(dir.path / "blocked.csv");  // a directory cannot be opened as a file
    try {
      Probe p(dir.path.string(), spec, {{0, {0, 0, 0}, 0.0}});
      FAIL("expected a runtime_error");
    } catch (const std::runtime_error& e) {
      CHECK(contains(e.what(), "blocked.csv"));
    }
  }
}

TEST_CASE("open_series_csv: a fresh run truncates; a restart keeps the rows up to its step") {
  const auto dir = std::filesystem::temp_directory_path() / "hemo_series_csv_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "iolets.csv").string();
  auto read = [&] {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  {
    auto out = hemo::io::open_series_csv(path, "step,time,flow", 0);
    *out << "10,0.1,1\n20,0.2,2\n30,0.3,3\n40,0.4,4";  // the last row cut short by a kill
  }
  SUBCASE("restart after step 20: later rows dropped, new rows appended") {
    auto out = hemo::io::open_series_csv(path, "step,time,flow", 20);
    *out << "30,0.3,3.5\n" << std::flush;
    CHECK(read() == "step,time,flow\n10,0.1,1\n20,0.2,2\n30,0.3,3.5\n");
  }
  SUBCASE("restart after step 40: a cut-short last row is dropped") {
    hemo::io::open_series_csv(path, "step,time,flow", 40);
    CHECK(read() == "step,time,flow\n10,0.1,1\n20,0.2,2\n30,0.3,3\n");
  }
  SUBCASE("another header (other iolets): the series starts afresh") {
    hemo::io::open_series_csv(path, "step,time,flow,pressure", 20);
    CHECK(read() == "step,time,flow,pressure\n");
  }
  SUBCASE("a fresh run truncates") {
    hemo::io::open_series_csv(path, "step,time,flow", 0);
    CHECK(read() == "step,time,flow\n");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("ParticleWriter: a restart continues the collection, forgetting the steps after its checkpoint") {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "hemo_particle_writer_test";
  fs::remove_all(dir);
  auto read = [&](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto write = [&](hemo::io::ParticleWriter& w, std::int64_t step, std::size_t n) {
    const std::vector<std::array<double, 3>> x(n, {1e-6, 2e-6, 3e-6});
    w.write(step, 0.1 * double(step), x,
            {{"id", "1", 1, std::vector<double>(n, 7.0)}, {"q", "1", 4, std::vector<double>(4 * n, 0.5)}});
  };
  std::string uninterrupted;
  {
    hemo::io::ParticleWriter w(dir.string(), "cells");
    for (std::int64_t s : {10, 20, 30}) write(w, s, std::size_t(s / 10));  // a count per step
    uninterrupted = read(dir / "cells.xmf");
  }
  SUBCASE("restart after step 20: step 30 removed, then written again") {
    hemo::io::ParticleWriter w(dir.string(), "cells", 20);
    CHECK_FALSE(fs::exists(dir / "particles" / "cells_00000030.h5"));
    const std::string listed = read(dir / "cells.xmf");
    CHECK(listed.find("cells_00000020") != std::string::npos);
    CHECK(listed.find("cells_00000030") == std::string::npos);
    write(w, 30, 3);
    CHECK(read(dir / "cells.xmf") == uninterrupted);
  }
  SUBCASE("a restart that writes no snapshot: continue_series forgets the later steps") {
    hemo::io::ParticleWriter::continue_series(dir.string(), "cells", 10);
    CHECK(fs::exists(dir / "particles" / "cells_00000010.h5"));
    CHECK_FALSE(fs::exists(dir / "particles" / "cells_00000020.h5"));
    const std::string listed = read(dir / "cells.xmf");
    CHECK(listed.find("cells_00000010") != std::string::npos);
    CHECK(listed.find("cells_00000020") == std::string::npos);
  }
  SUBCASE("a fresh run starts an empty collection") {
    hemo::io::ParticleWriter w(dir.string(), "cells");
    write(w, 40, 1);
    CHECK(read(dir / "cells.xmf").find("cells_00000010") == std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("hdf5: a sealed file is refused once a byte after its seal changes, a plain one is read as before") {
  const fs::path dir = fs::temp_directory_path() / "hemo_unit_sealed";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "sealed.h5").string();
  std::vector<double> values(1000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = double(i);
  {
    hdf5::Output out(path, 0, true);
    const hsize_t n = values.size();
    out.dataset("values", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &n, values.data());
    out.commit();
  }
  CHECK_NOTHROW(hdf5::Input(path, "a test file"));
  const auto size = fs::file_size(path);
  for (const std::uintmax_t at : {std::uintmax_t(600), size - 8, std::uintmax_t(80)}) {  // data, the end, the seal itself
    std::string bytes;
    {
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x5a);
    {
      std::ofstream o(path, std::ios::binary | std::ios::trunc);
      o << damaged;
    }
    std::string message;
    try {
      hdf5::Input in(path, "a test file");
    } catch (const hemo::InputError& e) {
      message = e.what();
    }
    CHECK(message.find("damaged") != std::string::npos);
    std::ofstream o(path, std::ios::binary | std::ios::trunc);
    o << bytes;
  }
  // Cut short: refused too.
  fs::resize_file(path, size - 100);
  CHECK_THROWS_AS(hdf5::Input(path, "a test file"), hemo::InputError);
  fs::remove_all(dir);
}
