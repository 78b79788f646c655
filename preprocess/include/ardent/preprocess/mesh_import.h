// Turning a scene's geometry into a TriangleMesh: model files through Assimp (OBJ, glTF/GLB, FBX,
// DAE, PLY, STL, 3DS, AC and the other formats Assimp reads) with the scene's scale applied and
// node transforms baked in, or the built-in box primitive. Errors name the file and the cause.
#pragma once

#include <filesystem>

#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"

namespace ardent {

// Where Assimp reads the file: in a child process (isolated_call.h; a damaged file that crashes
// Assimp, exhausts memory or hangs it is then an InputError, and the program lives on), or in
// this one (the fuzz target, whose coverage must come from the reading itself).
enum class MeshIsolation { ChildProcess, InProcess };

// Imports a model file; coordinates are multiplied by `scale`. The result is cleaned.
TriangleMesh import_mesh(const std::filesystem::path& file, double scale,
                         MeshIsolation isolation = MeshIsolation::ChildProcess);

// A closed box with a corner at the origin; its six faces are groups named floor, ceiling,
// wall_x0, wall_x1, wall_y0, wall_y1 (floor and ceiling normal to z).
TriangleMesh make_box_mesh(Vec3 size);

// The scene's geometry as a mesh (either of the above).
TriangleMesh load_geometry(const Scene& scene);

}  // namespace ardent
