// open_ends_toml (surface.hpp): the openings of a vessel surface, however they were
// found (open ends or cap files), as [[boundaries.iolet]] tables to paste into a case.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/common/text.hpp"
#include "core/geometry/surface.hpp"

namespace hemo::geometry {

namespace {

/// A TOML float that reads back as the same double (no "-0.0" for a normal along an axis).
std::string toml_float(double x) { return fmt_round_trip(x == 0 ? 0.0 : x); }

std::string toml_vector(const Point& p) {
  return str("[", toml_float(p[0]), ", ", toml_float(p[1]), ", ", toml_float(p[2]), "]");
}

/// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// A file name on one comment line: control characters (a newline) shown as '?'.
std::string printable(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return s;
}

/// The condition suggested for the opening of rank i (0: the largest): a velocity inlet
/// at the largest, whose velocity the user must give (the case is refused without it),
/// and outlets at zero gauge pressure at the others (the usual choice when only the
/// inflow is known; pressures can be set per outlet afterwards), with the backflow
/// stabilization on (physics/backflow.hpp).
std::string suggested_condition(std::size_t i) {
  if (i == 0)
    return "condition = \"velocity\"    # suggested: the largest opening is the inlet\n"
           "profile = \"parabolic\"\n"
           "# velocity = ...           # m/s: centre-line velocity INTO the vessel; fill in (required)\n";
  return "condition = \"pressure\"    # suggested: the other openings are outlets\n"
         "pressure = 0.0             # Pa, gauge\n"
         "backflow_stabilization = 1.0   # where flow turns back in (boundaries README)\n";
}

}  // namespace

std::string open_ends_toml(const std::vector<OpenEnd>& ends) {
  std::string out =
      "# Openings of the surface, largest first. The largest is suggested as the inlet (fill in its\n"
      "# velocity), the others as outlets at zero pressure. Check each one, change the conditions\n"
      "# where the flow is known otherwise, and paste the tables into the case file.\n";
  for (std::size_t i = 0; i < ends.size(); ++i) {
    const OpenEnd& e = ends[i];
    out += "\n[[boundaries.iolet]]\n";
    out += "name = " + toml_string(!e.name.empty() ? e.name : i == 0 ? std::string("inlet") : str("outlet", i)) + "\n";
    if (!e.source.empty()) out += "# from cap file " + printable(e.source) + "\n";
    out += "center = " + toml_vector(e.centre) + "  # m\n";
    out += "normal = " + toml_vector(e.normal) + "  # unit, pointing out of the fluid\n";
    out += "radius = " + toml_float(e.radius) + "  # m, sqrt(area / pi)\n";
    out += str("# area ", fmt_g(e.area * 1e6, 6), " mm^2 = ", fmt_g(e.area, 6), " m^2; ", e.edges,
               " rim edges; planarity ", fmt_g(e.planarity, 3), " (largest distance of the ",
               e.source.empty() ? "rim" : "cap", " from its plane / radius)\n");
    out += suggested_condition(i);
  }
  return out;
}

}  // namespace hemo::geometry
