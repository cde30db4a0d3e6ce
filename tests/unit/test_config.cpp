// Case-file parsing, --set overrides, validation messages and typed access. The messages
// are what a user sees when a case is wrong, so their exact wording and locations are
// asserted, not just that something was thrown.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/common/error.hpp"
#include "core/config/config.hpp"
#include "core/config/schema.hpp"

using hemo::InputError;
using namespace hemo::config;

namespace {

Schema make_schema() {
  Schema s;
  s.section("lattice", "core", "Lattice spacing and relaxation")
      .real("dx", "m", "Lattice spacing").greater_than(0.0).required()
      .real("tau", "1", "BGK relaxation time").greater_than(0.5).default_value(0.8).note("tau <= 0.5 is unstable");
  s.section("run", "core", "Run control")
      .integer("steps", "", "Time steps").at_least(1).default_value(std::int64_t{100})
      .string("backend", "Execution backend").choices({"cpu", "cuda"}).default_value(std::string("cpu"))
      .boolean("verbose", "Chatty log").default_value(false)
      .strings("plugins", "Plugins to load").choices({"lb_bgk", "boundaries"})
      .default_value(std::vector<std::string>{"lb_bgk"});
  s.section("initial", "core", "Initial state")
      .reals("velocity", "m/s", "Initial velocity", 3).default_value(std::vector<double>{0.0, 0.0, 0.0})
      .reals("profile", "1", "Profile weights").min_length(2).at_least(0.0).default_value(std::vector<double>{0.0, 1.0});
  // Only a sub-table is declared: [boundaries] itself is an implicit container.
  s.section("boundaries.inlet", "boundaries", "Inlet").real("speed", "m/s", "Inlet speed").default_value(std::int64_t{1});
  s.table_array("output.probe", "core", "Point probes")
      .string("name", "Probe name").required()
      .reals("position", "m", "Probe position", 3).required()
      .integer("every", "", "Sampling interval").default_value(std::int64_t{10});
  return s;
}

// The message of the InputError thrown by f, or a failed check if none was thrown.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError");
  return {};
}

std::string validation_error(const std::string& text) {
  return input_error([&] { (void)Document::parse(text, "case.toml").validate(make_schema()); });
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

// ---------------------------------------------------------------------------------------
TEST_SUITE("config.schema") {
  TEST_CASE("a section declared twice by one owner is the same section; by two owners an error") {
    Schema s;
    Section& a = s.section("lattice", "core", "help");
    CHECK(&s.section("lattice", "core", "") == &a);
    CHECK_THROWS_AS(s.section("lattice", "lb_bgk", ""), std::logic_error);
    CHECK_THROWS_AS(s.table_array("lattice", "core", ""), std::logic_error);
    CHECK_THROWS_AS(s.section("a..b", "core", ""), std::logic_error);
  }

  TEST_CASE("section references stay valid while more sections are declared") {
    Schema s;
    Section& first = s.section("first", "core", "");
    for (int i = 0; i < 100; ++i) s.section("s" + std::to_string(i), "core", "");
    first.real("x", "m", "x");
    REQUIRE(s.find("first"));
    CHECK(s.find("first")->find("x"));
  }

  TEST_CASE("declaration mistakes are logic errors") {
    Schema s;
    Section& sec = s.section("lattice", "core", "");
    CHECK_THROWS_AS(sec.required(), std::logic_error);  // no key yet
    sec.real("tau", "1", "");
    CHECK_THROWS_AS(sec.real("tau", "1", ""), std::logic_error);
    CHECK_THROWS_AS(sec.choices({"a"}), std::logic_error);
    CHECK_THROWS_AS(sec.min_length(2), std::logic_error);
    CHECK_THROWS_AS(sec.default_value(std::string("x")), std::logic_error);
    sec.integer("steps", "", "");
    CHECK_THROWS_AS(sec.default_value(2.5), std::logic_error);
    sec.default_value(std::int64_t{3});
    CHECK_THROWS_AS(sec.required(), std::logic_error);
    sec.string("name", "").required();
    CHECK_THROWS_AS(sec.default_value(std::string("x")), std::logic_error);
    CHECK_THROWS_AS(sec.at_least(1.0), std::logic_error);
    CHECK_THROWS_AS(sec.reals("v", "m", "", 0), std::logic_error);
  }

  TEST_CASE("an integer default for a real key is stored as a double") {
    Schema s;
    s.section("a", "core", "").real("x", "m", "").default_value(std::int64_t{2});
    const Key* k = s.find("a")->find("x");
    REQUIRE(k);
    REQUIRE(k->default_value);
    CHECK(std::get<double>(*k->default_value) == 2.0);
  }

  TEST_CASE("top-level names and children include implicit parents") {
    const Schema s = make_schema();
    const auto top = s.top_level_names();
    CHECK(top == std::vector<std::string>{"lattice", "run", "initial", "boundaries", "output"});
    CHECK(s.children_of("output") == std::vector<std::string>{"probe"});
    CHECK(s.children_of("lattice").empty());
  }

  TEST_CASE("to_string of types and values") {
    CHECK(std::string(to_string(Type::real_array)) == "real array");
    CHECK(std::string(to_string(Type::integer)) == "integer");
    CHECK(to_string(Value(0.8)) == "0.8");
    CHECK(to_string(Value(std::int64_t{42})) == "42");
    CHECK(to_string(Value(true)) == "true");
    CHECK(to_string(Value(std::string("a\"b"))) == "\"a\\\"b\"");
    CHECK(to_string(Value(std::vector<double>{1, 2, 3})) == "[1, 2, 3]");
    CHECK(to_string(Value(std::vector<std::string>{"a", "b"})) == "[\"a\", \"b\"]");
  }

  TEST_CASE("describe_text and describe_markdown") {
    const Schema s = make_schema();
    const std::string text = s.describe_text();
    CHECK(contains(text, "[lattice]  (core) Lattice spacing and relaxation\n"));
    CHECK(contains(text, "[[output.probe]]  (core) Point probes\n"));
    CHECK(contains(text, "default 0.8  unit 1  range > 0.5"));
    CHECK(contains(text, "required  unit m  range > 0"));
    CHECK(contains(text, "one of cpu, cuda"));
    CHECK(text == s.describe_text());  // deterministic

    const std::string md = s.describe_markdown();
    CHECK(contains(md, "### [lattice]\n"));
    CHECK(contains(md, "### [[output.probe]]\n"));
    CHECK(contains(md, "| key | type | default | unit | allowed | description |"));
    CHECK(contains(md, "| `tau` | real | `0.8` | 1 | > 0.5 | BGK relaxation time (tau <= 0.5 is unstable) |"));
    CHECK(contains(md, "| `dx` | real | **required** | m | > 0 | Lattice spacing |"));
    CHECK(contains(md, "| `velocity` | real array | `[0, 0, 0]` | m/s | length 3 | Initial velocity |"));
    CHECK(md.find("### [lattice]") < md.find("### [run]"));
  }
}

// ---------------------------------------------------------------------------------------
TEST_SUITE("config.document") {
  TEST_CASE("a missing file names the path and the reason") {
    const std::string msg = input_error([] { (void)Document::load("/nonexistent/dir/case.toml"); });
    CHECK(msg == "cannot open case file '/nonexistent/dir/case.toml': No such file or directory");
  }

  TEST_CASE("a directory is not a case file") {
    const std::string msg = input_error([] { (void)Document::load("/tmp"); });
    CHECK(contains(msg, "cannot open case file '/tmp': "));
  }

  TEST_CASE("load reads a file and locations name it") {
    const auto path = std::filesystem::temp_directory_path() / "hemo_test_config_case.toml";
    {
      std::ofstream(path) << "[lattice]\ndx = 0.001\n";
    }
    const Document doc = Document::load(path.string());
    CHECK(doc.source_name() == path.string());
    const Config cfg = doc.validate(make_schema());
    CHECK(cfg.where("lattice.dx") == path.string() + ":2:6");
    std::filesystem::remove(path);
  }

  TEST_CASE("a syntax error carries file, line and column") {
    const std::string msg = input_error([] { (void)Document::parse("[lattice]\ndx = \n", "case.toml"); });
    CHECK(contains(msg, "case.toml:2:"));
    CHECK(contains(msg, ": TOML syntax error: "));
    const std::string dup = input_error([] { (void)Document::parse("[a]\n[a]\n", "other.toml"); });
    CHECK(contains(dup, "other.toml:2:1: TOML syntax error: "));
  }

  TEST_CASE("top_level_sections lists tables and arrays of tables") {
    const Document doc = Document::parse("x = 1\n[lattice]\ndx = 1\n[[output.probe]]\nname = \"a\"\n", "case.toml");
    CHECK(doc.top_level_sections() == std::vector<std::string>{"lattice", "output"});
  }

  TEST_CASE("peek_strings returns the array, the fallback, or a located error") {
    const Document doc = Document::parse("[run]\nplugins = [\"lb_bgk\", \"boundaries\"]\nbad = \"x\"\n", "case.toml");
    CHECK(doc.peek_strings("run.plugins", {}) == std::vector<std::string>{"lb_bgk", "boundaries"});
    CHECK(doc.peek_strings("run.missing", {"dflt"}) == std::vector<std::string>{"dflt"});
    CHECK(doc.peek_strings("nothing.here", {"dflt"}) == std::vector<std::string>{"dflt"});
    const std::string msg = input_error([&] { (void)doc.peek_strings("run.bad", {}); });
    CHECK(msg == "case.toml:3:7: run.bad: expected an array of strings, got a string");
  }
}

// ---------------------------------------------------------------------------------------
TEST_SUITE("config.override") {
  TEST_CASE("a number replaces the file's value and where() shows the assignment") {
    Document doc = Document::parse("[lattice]\ndx = 0.001\ntau = 0.7\n", "case.toml");
    doc.apply_override("lattice.tau=0.9");
    const Config cfg = doc.validate(make_schema());
    CHECK(cfg.real("lattice.tau") == 0.9);
    CHECK(cfg.where("lattice.tau") == "--set lattice.tau=0.9");
    CHECK(cfg.where("lattice.dx") == "case.toml:2:6");
    CHECK(cfg.section("lattice").where("tau") == "--set lattice.tau=0.9");
  }

  TEST_CASE("a bare word is a string, quoted text too, arrays are arrays") {
    Document doc = Document::parse("[lattice]\ndx = 0.001\n", "case.toml");
    doc.apply_override("run.backend=cuda");
    doc.apply_override("run.plugins=[\"lb_bgk\", \"boundaries\"]");
    doc.apply_override("initial.velocity = [1, 2.5, 3]");
    doc.apply_override("run.steps=5");
    const Config cfg = doc.validate(make_schema());
    CHECK(cfg.string("run.backend") == "cuda");
    CHECK(cfg.strings("run.plugins") == std::vector<std::string>{"lb_bgk", "boundaries"});
    CHECK(cfg.vec3("initial.velocity") == std::array<double, 3>{1.0, 2.5, 3.0});
    CHECK(cfg.integer("run.steps") == 5);
    CHECK(cfg.where("initial.velocity") == "--set initial.velocity = [1, 2.5, 3]");
    // [run] exists only because of an override: it is located there too.
    CHECK(cfg.where("run") == "--set run.backend=cuda");
  }

  TEST_CASE("intermediate tables are created") {
    Document doc = Document::parse("", "case.toml");
    doc.apply_override("lattice.dx=2e-3");
    doc.apply_override("boundaries.inlet.speed=3");
    const Config cfg = doc.validate(make_schema());
    CHECK(cfg.real("lattice.dx") == 2e-3);
    CHECK(cfg.section("boundaries.inlet").real("speed") == 3.0);
    CHECK(cfg.has("boundaries.inlet"));
  }

  TEST_CASE("malformed overrides are input errors") {
    Document doc = Document::parse("[lattice]\ndx = 0.001\n[[output.probe]]\nname = \"p\"\n", "case.toml");
    CHECK(input_error([&] { doc.apply_override("lattice.tau"); }) ==
          "--set lattice.tau: expected section.key=value");
    CHECK(contains(input_error([&] { doc.apply_override("=3"); }), "no key before '='"));
    CHECK(contains(input_error([&] { doc.apply_override("lattice..tau=3"); }), "empty name in key path"));
    CHECK(input_error([&] { doc.apply_override("lattice.dx.x=1"); }) ==
          "--set lattice.dx.x=1: 'lattice.dx' is a real number, not a table");
    CHECK(contains(input_error([&] { doc.apply_override("lattice=1"); }), "'lattice' is a table"));
    CHECK(contains(input_error([&] { doc.apply_override("output.probe.name=x"); }),
                   "'output.probe' is an array of 1 tables [[output.probe]]; name an element by its index, 0 to 0"));
    CHECK(contains(input_error([&] { doc.apply_override("output.probe.3.name=x"); }), "(got '3')"));
    CHECK(contains(input_error([&] { doc.apply_override("output.probe.0=x"); }), "name a key inside output.probe[0]"));
  }

  TEST_CASE("an override reaches into an element of an array of tables by index") {
    Schema schema;
    schema.table_array("output.probe", "core", "probes").string("name", "n").required().integer("every", "1", "e")
        .default_value(std::int64_t{1});
    Document doc = Document::parse("[[output.probe]]\nname = \"a\"\n[[output.probe]]\nname = \"b\"\n", "case.toml");
    doc.apply_override("output.probe.1.every=7");
    const Config cfg = doc.validate(schema);
    const auto probes = cfg.tables("output.probe");
    REQUIRE(probes.size() == 2);
    CHECK(probes[0].integer("every") == 1);
    CHECK(probes[1].integer("every") == 7);
    CHECK(probes[1].where("every") == "--set output.probe.1.every=7");
    CHECK(probes[0].where("name") == "case.toml:2:8");
  }

  TEST_CASE("validation errors in an override are located at the override") {
    Document doc = Document::parse("[lattice]\ndx = 0.001\n", "case.toml");
    doc.apply_override("lattice.tau=0.4");
    doc.apply_override("lattice.tua=1");
    const std::string msg = input_error([&] { (void)doc.validate(make_schema()); });
    CHECK(contains(msg, "--set lattice.tau=0.4: lattice.tau = 0.4 is out of range: must be > 0.5"));
    CHECK(contains(msg, "--set lattice.tua=1: unknown key 'tua' in [lattice] (did you mean 'tau'?)"));
  }

  TEST_CASE("a Config is a snapshot: later overrides do not change it") {
    Document doc = Document::parse("[lattice]\ndx = 0.001\n", "case.toml");
    const Config before = doc.validate(make_schema());
    doc.apply_override("lattice.dx=0.5");
    CHECK(before.real("lattice.dx") == 0.001);
    CHECK(before.where("lattice.dx") == "case.toml:2:6");
  }
}

// ---------------------------------------------------------------------------------------
TEST_SUITE("config.validate") {
  TEST_CASE("unknown key with a hint, at the value's location") {
    const std::string msg = validation_error("[lattice]\ndx = 0.001\ntua = 0.9\n");
    CHECK(msg == "case.toml:3:7: unknown key 'tua' in [lattice] (did you mean 'tau'?)");
  }

  TEST_CASE("unknown key with no plausible hint") {
    const std::string msg = validation_error("[lattice]\ndx = 0.001\nzzzzzz = 1\n");
    CHECK(msg == "case.toml:3:10: unknown key 'zzzzzz' in [lattice]");
  }

  TEST_CASE("unknown sections, top-level and nested, with hints") {
    const std::string msg = validation_error("[lattice]\ndx = 1\n[boundries]\nx = 1\n[boundaries.inlat]\nspeed = 1\n");
    CHECK(contains(msg, "case.toml:3:1: unknown section [boundries] (did you mean [boundaries]?)"));
    CHECK(contains(msg, "case.toml:5:1: unknown section [boundaries.inlat] (did you mean [boundaries.inlet]?)"));
    CHECK(validation_error("[lattice]\ndx = 1\n[[zzzzzz]]\nx = 1\n") == "case.toml:3:1: unknown section [[zzzzzz]]");
  }

  TEST_CASE("a key above every section is pointed at its section") {
    const std::string msg = validation_error("tau = 0.9\n[lattice]\ndx = 1\n");
    CHECK(msg == "case.toml:1:7: unknown top-level key 'tau': keys belong in a section (did you mean to put it in [lattice]?)");
  }

  TEST_CASE("wrong types") {
    CHECK(validation_error("[lattice]\ndx = \"big\"\n") == "case.toml:2:6: lattice.dx: expected a number (m), got a string");
    CHECK(validation_error("[lattice]\ndx = true\n") == "case.toml:2:6: lattice.dx: expected a number (m), got a boolean");
    CHECK(validation_error("[lattice]\ndx = 1\n[run]\nsteps = 10.5\n") ==
          "case.toml:4:9: run.steps: expected an integer, got a real number (10.5)");
    CHECK(validation_error("[lattice]\ndx = 1\n[run]\nsteps = 1000.0\n") ==
          "case.toml:4:9: run.steps: expected an integer, got a real number (1000.0)");
    CHECK(validation_error("[lattice]\ndx = 1\n[run]\nverbose = 1\n") ==
          "case.toml:4:11: run.verbose: expected true or false, got an integer");
    CHECK(validation_error("[lattice]\ndx = 1\n[initial]\nvelocity = [1, \"a\", 3]\n") ==
          "case.toml:4:16: initial.velocity[1]: expected a number (m/s), got a string");
    CHECK(validation_error("[lattice]\ndx = nan\n") == "case.toml:2:6: lattice.dx = nan is not a finite number");
    CHECK(validation_error("lattice = 3\n") == "case.toml:1:11: lattice: expected a table [lattice], got an integer");
  }

  TEST_CASE("integers are accepted for real keys and real arrays") {
    const Config cfg =
        Document::parse("[lattice]\ndx = 1\ntau = 1\n[initial]\nvelocity = [1, 2, 3]\n", "case.toml").validate(make_schema());
    CHECK(cfg.real("lattice.dx") == 1.0);
    CHECK(cfg.real("lattice.tau") == 1.0);
    CHECK(cfg.reals("initial.velocity") == std::vector<double>{1.0, 2.0, 3.0});
  }

  TEST_CASE("range errors carry the note; bounds print with %g") {
    CHECK(validation_error("[lattice]\ndx = 1\ntau = 0.4\n") ==
          "case.toml:3:7: lattice.tau = 0.4 is out of range: must be > 0.5 (tau <= 0.5 is unstable)");
    CHECK(validation_error("[lattice]\ndx = 1\n[run]\nsteps = 0\n") ==
          "case.toml:4:9: run.steps = 0 is out of range: must be >= 1");
    CHECK(validation_error("[lattice]\ndx = 1\n[initial]\nprofile = [1, -2]\n") ==
          "case.toml:4:15: initial.profile[1] = -2 is out of range: must be >= 0");
  }

  TEST_CASE("required keys, given or not, in present or absent sections") {
    CHECK(validation_error("[lattice]\ntau = 0.9\n") == "case.toml: lattice.dx is required (Lattice spacing) but was not given");
    CHECK(validation_error("") == "case.toml: lattice.dx is required (Lattice spacing) but was not given");
  }

  TEST_CASE("choices, with and without a hint") {
    CHECK(validation_error("[lattice]\ndx = 1\n[run]\nbackend = \"gpu\"\n") ==
          "case.toml:4:11: run.backend = \"gpu\" is not allowed: expected one of cpu, cuda (did you mean \"cpu\"?)");
    CHECK(validation_error("[lattice]\ndx = 1\n[run]\nbackend = \"opencl\"\n") ==
          "case.toml:4:11: run.backend = \"opencl\" is not allowed: expected one of cpu, cuda");
    CHECK(validation_error("[lattice]\ndx = 1\n[run]\nplugins = [\"lb_bgk\", \"boundries\"]\n") ==
          "case.toml:4:22: run.plugins[1] = \"boundries\" is not allowed: expected one of lb_bgk, boundaries "
          "(did you mean \"boundaries\"?)");
  }

  TEST_CASE("array lengths") {
    CHECK(validation_error("[lattice]\ndx = 1\n[initial]\nvelocity = [1, 2]\n") ==
          "case.toml:4:12: initial.velocity: expected 3 numbers, got 2");
    CHECK(validation_error("[lattice]\ndx = 1\n[initial]\nprofile = [1]\n") ==
          "case.toml:4:11: initial.profile: expected at least 2 numbers, got 1");
    CHECK(validation_error("[lattice]\ndx = 1\n[initial]\nvelocity = 3\n") ==
          "case.toml:4:12: initial.velocity: expected an array of 3 numbers (m/s), got an integer");
  }

  TEST_CASE("every problem is reported, one per line, in file order, missing keys last") {
    const std::string msg = validation_error(
        "[run]\nsteps = 2.5\nbackend = \"gpu\"\n[lattice]\ntua = 1\n[initial]\nvelocity = [1]\n");
    const std::string expected =
        "case.toml:2:9: run.steps: expected an integer, got a real number (2.5)\n"
        "case.toml:3:11: run.backend = \"gpu\" is not allowed: expected one of cpu, cuda (did you mean \"cpu\"?)\n"
        "case.toml:5:7: unknown key 'tua' in [lattice] (did you mean 'tau'?)\n"
        "case.toml:7:12: initial.velocity: expected 3 numbers, got 1\n"
        "case.toml: lattice.dx is required (Lattice spacing) but was not given";
    CHECK(msg == expected);
  }

  TEST_CASE("arrays of tables: elements validated, shape mismatches explained") {
    const std::string ok_part = "[lattice]\ndx = 1\n";
    CHECK(validation_error(ok_part + "[[output.probe]]\nname = \"a\"\nposition = [0, 0, 0]\n[[output.probe]]\nnmae = \"b\"\n") ==
          "case.toml:7:8: unknown key 'nmae' in [[output.probe]] (did you mean 'name'?)\n"
          "case.toml: output.probe[1].name is required (Probe name) but was not given\n"
          "case.toml: output.probe[1].position is required (Probe position) but was not given");
    CHECK(validation_error(ok_part + "[output.probe]\nname = \"a\"\n") ==
          "case.toml:3:1: [output.probe] must be an array of tables: write [[output.probe]] for each element");
    CHECK(validation_error("[[lattice]]\ndx = 1\n") ==
          "case.toml:1:1: [[lattice]] is a single table, not an array of tables: write [lattice]");
  }

  TEST_CASE("a schema default that breaks its own range is a programming error") {
    Schema s;
    s.section("a", "core", "").real("x", "m", "").default_value(0.1).greater_than(1.0);
    CHECK_THROWS_AS((void)Document::parse("", "case.toml").validate(s), std::logic_error);
  }
}

// ---------------------------------------------------------------------------------------
TEST_SUITE("config.access") {
  TEST_CASE("defaults apply to absent keys and absent sections") {
    const Config cfg = Document::parse("[lattice]\ndx = 0.001\n", "case.toml").validate(make_schema());
    CHECK(cfg.real("lattice.tau") == 0.8);
    CHECK(cfg.integer("run.steps") == 100);
    CHECK(cfg.string("run.backend") == "cpu");
    CHECK(cfg.boolean("run.verbose") == false);
    CHECK(cfg.strings("run.plugins") == std::vector<std::string>{"lb_bgk"});
    CHECK(cfg.vec3("initial.velocity") == std::array<double, 3>{0.0, 0.0, 0.0});
    CHECK_FALSE(cfg.has("run"));
    CHECK(cfg.has("lattice.dx"));
    CHECK_FALSE(cfg.has("lattice.tau"));

    const Config run = cfg.section("run");
    CHECK(run.path() == "run");
    CHECK(run.integer("steps") == 100);
    CHECK(run.where("steps") == "case.toml");
    CHECK(cfg.section("boundaries").section("inlet").real("speed") == 1.0);
  }

  TEST_CASE("programming errors are logic errors naming the path") {
    const Config cfg = Document::parse("[lattice]\ndx = 0.001\n", "case.toml").validate(make_schema());
    auto logic_message = [](auto&& f) -> std::string {
      try {
        f();
      } catch (const std::logic_error& e) {
        return e.what();
      }
      return "no logic_error";
    };
    CHECK(contains(logic_message([&] { (void)cfg.real("lattice.nope"); }), "lattice.nope"));
    CHECK(contains(logic_message([&] { (void)cfg.integer("lattice.tau"); }), "lattice.tau"));
    CHECK(contains(logic_message([&] { (void)cfg.real("run.steps"); }), "run.steps"));
    CHECK(contains(logic_message([&] { (void)cfg.real("output.probe.every"); }), "tables()"));
    CHECK(contains(logic_message([&] { (void)cfg.section("nosuch"); }), "nosuch"));
    CHECK(contains(logic_message([&] { (void)cfg.tables("lattice"); }), "lattice"));
    CHECK_THROWS_AS((void)Config().real("x"), std::logic_error);
    // A required key with no default, read from a section the document lacks.
    Schema s = make_schema();
    s.section("extra", "core", "").real("need", "m", "");
    const Config c2 = Document::parse("[lattice]\ndx = 1\n", "case.toml").validate(s);
    CHECK(contains(logic_message([&] { (void)c2.real("extra.need"); }), "extra.need"));
  }

  TEST_CASE("tables() gives one view per element, in file order") {
    const Config cfg = Document::parse(
                           "[lattice]\ndx = 1\n"
                           "[[output.probe]]\nname = \"a\"\nposition = [1, 2, 3]\n"
                           "[[output.probe]]\nname = \"b\"\nposition = [4, 5, 6]\nevery = 7\n",
                           "case.toml")
                           .validate(make_schema());
    const auto probes = cfg.tables("output.probe");
    REQUIRE(probes.size() == 2);
    CHECK(probes[0].path() == "output.probe[0]");
    CHECK(probes[1].path() == "output.probe[1]");
    CHECK(probes[0].string("name") == "a");
    CHECK(probes[0].integer("every") == 10);
    CHECK(probes[1].integer("every") == 7);
    CHECK(probes[1].vec3("position") == std::array<double, 3>{4.0, 5.0, 6.0});
    CHECK(probes[1].where("name") == "case.toml:7:8");
    CHECK(cfg.section("output").tables("probe").size() == 2);
    const std::string msg = input_error([&] { probes[1].fail("every", "must divide the step count"); });
    CHECK(msg == "case.toml:9:9: output.probe[1].every: must divide the step count");

    const Config none = Document::parse("[lattice]\ndx = 1\n", "case.toml").validate(make_schema());
    CHECK(none.tables("output.probe").empty());
  }

  TEST_CASE("fail() locates file values, overrides and absent keys") {
    Document doc = Document::parse("[lattice]\ndx = 0.001\n", "case.toml");
    doc.apply_override("lattice.tau=0.6");
    const Config cfg = doc.validate(make_schema());
    CHECK(input_error([&] { cfg.fail("lattice.dx", "too coarse"); }) == "case.toml:2:6: lattice.dx: too coarse");
    CHECK(input_error([&] { cfg.section("lattice").fail("tau", "Mach too high") ; }) ==
          "--set lattice.tau=0.6: lattice.tau: Mach too high");
    CHECK(input_error([&] { cfg.fail("run.steps", "too few"); }) == "case.toml: run.steps: too few");
  }

  TEST_CASE("a Config outlives its Schema") {
    Config cfg;
    {
      const Schema s = make_schema();
      cfg = Document::parse("[lattice]\ndx = 0.25\n", "case.toml").validate(s);
    }
    CHECK(cfg.real("lattice.dx") == 0.25);
    CHECK(cfg.real("lattice.tau") == 0.8);
  }
}
