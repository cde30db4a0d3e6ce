#pragma once
// STL surfaces in and out: the reader (ASCII and binary, validated, vertices merged so
// that shared edges share indices), a binary writer, and a generated pipe surface for
// validation cases. Lengths inside hemoflow are metres; an STL file carries no unit, so
// the caller says which one its numbers are in.
#include <cstdint>
#include <string>

#include "core/geometry/triangle_mesh.hpp"

namespace hemo::geometry {

enum class LengthUnit { m, mm, um };

/// Metres per one unit: 1, 1e-3, 1e-6.
double metres_per_unit(LengthUnit unit);
/// "m", "mm", "um".
std::string to_string(LengthUnit unit);
/// Parses "m", "mm" or "um"; anything else is an InputError naming the accepted values.
LengthUnit length_unit_from_string(const std::string& text);

/// Reads an ASCII or binary STL file whose coordinates are in `unit`, into metres.
/// Vertices that are bitwise equal after scaling are merged; triangles whose merged
/// corners are not three distinct vertices are dropped (counted in the description).
/// Throws InputError naming the file and what is wrong (with the line for ASCII): empty
/// or unrecognised file, size that disagrees with the binary triangle count, truncation,
/// syntax errors, NaN/inf coordinates, more than `max_triangles`, no triangles.
TriangleMesh read_stl(const std::string& path, LengthUnit unit, std::int64_t max_triangles = 200'000'000);

/// Writes a binary STL with the coordinates divided by the unit's size, facet normals
/// from the vertex order (right-hand rule), to a temporary file renamed into place.
void write_stl_binary(const std::string& path, const TriangleMesh& mesh, LengthUnit unit = LengthUnit::m);

/// The wall of a circular pipe: `segments` vertices around, rings about one segment
/// length (2 pi radius / segments, of the smaller radius) apart along `length`, centred
/// on `centre` with its axis along `axis` (any length, not zero). The radius is `radius`
/// at the end at centre - axis length/2 and `end_radius` (0: the same) at the other,
/// varying linearly in between (a tapered pipe). With `capped`, both ends are closed by
/// flat fans around a centre vertex, the end at -axis first, each `segments` triangles
/// at the end of the list; otherwise they are left open (two boundary loops). Triangles
/// are oriented with their normals pointing out of the pipe.
TriangleMesh make_pipe_surface(const Point& centre, const Point& axis, double radius, double length, int segments,
                               bool capped, double end_radius = 0.0);

/// End cap `end` (0: at -axis, 1: at +axis) of a pipe made by make_pipe_surface with
/// `capped` and the same `segments`: the same triangles, as a surface of their own, as a
/// meshing tool exports the cap of each opening beside the closed surface.
TriangleMesh pipe_cap(const TriangleMesh& capped_pipe, int segments, int end);

}  // namespace hemo::geometry
