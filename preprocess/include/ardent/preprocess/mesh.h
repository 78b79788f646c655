// A triangle soup in metres with named surface groups: what the importer produces from any model
// format and what the voxelizer consumes. A group is one (node name, material name) pair of the
// source file; the scene's `surfaces` globs map groups to acoustic materials.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ardent/preprocess/vec.h"

namespace ardent {

struct SurfaceGroup {
    std::string node;           // node (object) name in the model; "" if none
    std::string material;       // material name in the model; "" if none
    std::string label() const;  // "node/material" for messages
};

struct Triangle {
    std::array<uint32_t, 3> v;
    uint32_t group;
};

// What cleaning a real model found and repaired (reported by `ardent info`).
struct MeshReport {
    size_t input_triangles = 0;
    size_t degenerate_removed = 0;  // zero-area triangles
    size_t duplicates_removed = 0;  // same three corners as an earlier triangle
    size_t boundary_edges = 0;      // edges used by one triangle (holes, open borders)
    size_t non_manifold_edges = 0;  // edges used by more than two triangles
};

struct TriangleMesh {
    std::vector<Vec3> vertices;
    std::vector<Triangle> triangles;
    std::vector<SurfaceGroup> groups;
    MeshReport report;

    Box3 bounds() const;
    double area() const;
    // Volume enclosed by the surface from the divergence theorem, |sum of signed tetrahedra|.
    // Exact for a closed, consistently oriented mesh; furniture that is oriented like the room
    // is subtracted, as it should be.
    double enclosed_volume() const;
    // Removes zero-area and duplicate triangles (duplicates would cancel in ray parity) after
    // welding identical vertices, and counts open and non-manifold edges.
    void clean();
};

}  // namespace ardent
