// The whole preprocessing stage in one call: load the geometry, map surfaces to materials, check
// memory, voxelize, find the air and decompose it, timing each stage. The CLI, the solvers and the
// editor all start from a Preprocessed scene.
#pragma once

#include <functional>
#include <string_view>

#include "ardent/preprocess/air.h"
#include "ardent/preprocess/decomposition.h"
#include "ardent/preprocess/estimate.h"
#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"

namespace ardent {

// Cells of margin around the model's bounding box (the air must never reach the grid's edge).
inline constexpr int kGridPadding = 2;

struct StageTimes {
    double import_s = 0, voxelize_s = 0, decompose_s = 0;
};

struct Preprocessed {
    Scene scene;
    TriangleMesh mesh;
    std::vector<int> group_material;  // material index per mesh group
    AirModel air;
    Decomposition decomposition;
    StageTimes times;

    size_t listener_points() const;  // air cells on the listener grid (every N cells)
    ResourceEstimate estimate() const;
};

struct PreprocessOptions {
    bool decompose = true;
    DecompositionOptions decomposition;
};

// The grid a scene's geometry is voxelized on.
Grid scene_grid(const Scene& scene, const TriangleMesh& mesh);

Preprocessed preprocess(const Scene& scene, const PreprocessOptions& options = {});

}  // namespace ardent
