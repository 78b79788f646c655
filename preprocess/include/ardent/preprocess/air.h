// The air the solvers simulate: the cells face-connected to the first source (flood fill) through
// cells of the same kind as the source's position. Models come in two conventions, told apart by
// ray parity at the first source: the room is the inside of one closed shell (the source is
// "inside" the mesh), or a cavity enclosed by closed solids such as thick walls, slabs and
// furniture (the source is "outside" every solid, and the cavity must not reach the outside).
// Every source and receiver is then with every source and receiver snapped to an air cell centre
// and every boundary air cell given the material of the nearest surface. Sources or receivers
// outside that air, sources in disconnected rooms, and models whose air leaks out or whose air
// boundary is not covered by the mesh (an open model) are InputErrors naming the object and the
// place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ardent/preprocess/grid.h"
#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/scene.h"
#include "ardent/preprocess/voxelize.h"

namespace ardent {

struct PlacedEmitter {
    std::string name;
    Vec3 position;     // as given in the scene
    Index3 cell{};     // the air cell it snapped to
    Vec3 cell_centre;  // that cell's centre (what the solver uses)
};

struct AirModel {
    Grid grid;
    std::vector<uint8_t> air;  // 1 for simulated air cells
    // For boundary air cells: the material of the nearest surface; for the non-air cells touching
    // air: that of the surface crossed nearest the air between its centre and an air neighbour's
    // (the one the sound meets), else the nearest; -1 elsewhere.
    std::vector<int16_t> material;
    // Beside `material`: that surface's staircase_area_weight (voxelize.h).
    std::vector<uint8_t> wall_area;
    std::vector<PlacedEmitter> sources, receivers;
    size_t air_cells = 0;
    size_t boundary_cells = 0;      // air cells with at least one non-air face neighbour
    size_t boundary_faces = 0;      // air/non-air cell faces
    size_t uncovered_faces = 0;     // of those, faces with no mesh surface within the band
    size_t inside_cells = 0;        // cells classified inside the mesh, connected or not
    bool cavity = false;            // air is a cavity between closed solids (else a shell's inside)
    double mesh_volume = 0;         // volume the mesh's surfaces enclose around the air (m^3)
    Classification classification;  // the voting statistics (inside vector released)

    bool is_air(Index3 c) const { return grid.contains(c) && air[grid.index(c)] != 0; }
    // Material of the wall behind the face between air cell `a` and its non-air neighbour `b`.
    int face_material(size_t a, size_t b) const {
        return material[b] >= 0 ? material[b] : material[a];
    }
    // The share of that face's area the true surface has: 1 for a surface normal to an axis,
    // down to 1 / sqrt(3) on a staircase (voxelize.h); the wall's admittance there is scaled by it.
    double face_area(size_t a, size_t b) const {
        return (material[b] >= 0 ? wall_area[b] : wall_area[a]) * (1.0 / kFullArea);
    }
    double air_volume() const { return static_cast<double>(air_cells) * grid.h * grid.h * grid.h; }
};

// Share of the air's boundary that may lack a nearby mesh surface before the model is rejected as
// open (the vote can bridge small holes; larger ones are the user's to close).
inline constexpr double kMaxUncoveredBoundaryShare = 0.01;

// Throws InputError for a scene without sources (the air is the space around the first one).
AirModel build_air_model(const Scene& scene, const TriangleMesh& mesh,
                         const std::vector<int>& group_material, const Grid& grid);

}  // namespace ardent
