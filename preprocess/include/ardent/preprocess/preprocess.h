// The whole preprocessing stage in one call: load the geometry, map surfaces to materials, check
// memory, voxelize, find the air and decompose it, timing each stage. The CLI, the solvers and the
// editor all start from a Preprocessed scene.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

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

// The cells the listener grid records, in the order every solver records them: first the grid
// points, the air cells whose three coordinates are multiples of listener_grid.every (k, j, i
// order); then the air cells one cell from a grid point along an axis that are not grid points
// themselves, each once, in order of first appearance (point by point; axes x, y, z; -1 before
// +1). The neighbours give the pressure gradient at each point as a one-cell central difference,
// valid across the simulated band (docs/output-format.md, listener grid format 2).
struct ListenerCells {
    std::vector<Index3> cells;
    size_t points = 0;  // cells[0, points) are the grid points
};

struct Preprocessed {
    Scene scene;
    TriangleMesh mesh;
    std::vector<int> group_material;  // material index per mesh group
    // Doubts about the scene that do not stop a run (surface_warnings): `ardent info` and
    // `ardent simulate` print them, result.json keeps them.
    std::vector<std::string> warnings;
    AirModel air;
    Decomposition decomposition;
    StageTimes times;

    size_t listener_points() const;  // air cells on the listener grid (every N cells)
    ListenerCells listener_cells() const;
    // The cells every solver records for the receivers: first each receiver's cell (points =
    // the receivers, in scene order), then the air cells one cell from a receiver along an axis
    // that are no receiver's cell, each once (receivers in order; axes x, y, z; -1 before +1):
    // the pressure gradient at each receiver, for its ambisonic IR (docs/output-format.md).
    ListenerCells receiver_cells() const;
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
