// Meshes built in memory for voxelizer and decomposition tests: boxes (optionally rotated,
// subdivided, with holes or without faces) so each test states its geometry in a line or two.
#pragma once

#include <array>
#include <functional>
#include <string>

#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"

namespace ardent::test {

// Adds a box [lo, hi] as 12 triangles wound with normals pointing out of the box (use
// `inward` for a room); each face is split into n x n quads. `skip(face, qu, qv)` drops quads.
void add_box(TriangleMesh& m, Vec3 lo, Vec3 hi, const std::string& group, bool inward = false,
             int n = 1, const std::function<bool(int, int, int)>& skip = {});

// Rotates every vertex about `centre` by `rz` around z then `rx` around x (radians).
void rotate(TriangleMesh& m, Vec3 centre, double rz, double rx);

// A hexahedron as OBJ text for a scene's mesh file: `usemtl material`, its corners (corner i is
// (x, y, z) = bits (4, 2, 1) of i, each moved as one likes) as vertices numbered after
// `first_vertex` earlier ones, each side two triangles facing into it (`inward`: a room) or out of
// it (a solid in the room).
std::string hexahedron_obj(const std::array<Vec3, 8>& corners, const std::string& material,
                           bool inward, int first_vertex = 0);
// The corners of the axis-aligned box [lo, hi] in hexahedron_obj's order.
std::array<Vec3, 8> box_corners(Vec3 lo, Vec3 hi);

// A scene with one material "wall" (absorption `alpha`) mapped to everything, one source.
Scene simple_scene(Vec3 source, double max_frequency, double alpha = 0.1);

}  // namespace ardent::test
