#include "core/setup/flow_numbers.hpp"

namespace hemo::setup {

double poiseuille_centre_velocity(double g, double length, double viscosity, bool pipe) {
  return g * length * length / ((pipe ? 16.0 : 8.0) * viscosity);
}

std::string geometry_length_source(const std::string& shape) {
  return shape == "pipe"     ? "pipe diameter"
         : shape == "tree"   ? "root vessel diameter"
         : shape == "stl"    ? "diameter of the largest inscribed ball"
         : shape == "voxels" ? "the voxel file's characteristic length"
                             : "smallest box edge";
}

}  // namespace hemo::setup
