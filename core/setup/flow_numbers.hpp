#pragma once
// Estimates behind a case's reference velocity and length (the Mach and Reynolds numbers
// `check` and `run` print and check) where the case gives none.
#include <string>

namespace hemo::setup {

/// The centre-line velocity of Poiseuille flow that a body force g (m/s^2) drives across
/// the geometry's characteristic length L (m), viscosity nu (m^2/s): in a pipe of radius
/// L / 2 (pipes, vessel trees and surfaces) g R^2 / (4 nu) = g L^2 / (16 nu); between
/// plates L apart (a box) g L^2 / (8 nu).
double poiseuille_centre_velocity(double g, double length, double viscosity, bool pipe);

/// What the geometry's characteristic length is, by geometry.shape, for the log.
std::string geometry_length_source(const std::string& shape);

}  // namespace hemo::setup
