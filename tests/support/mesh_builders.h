// Meshes built in memory for voxelizer and decomposition tests: boxes (optionally rotated,
// subdivided, with holes or without faces) so each test states its geometry in a line or two.
#pragma once

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

// A scene with one material "wall" (absorption `alpha`) mapped to everything, one source.
Scene simple_scene(Vec3 source, double max_frequency, double alpha = 0.1);

}  // namespace ardent::test
