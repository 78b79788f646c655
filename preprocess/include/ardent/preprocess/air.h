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

// A surface crossing the link between two air cells: a part thinner than a cell with air on both
// sides (a ceiling cloud, a reflector, a partition beside a door). The wave solvers make the link a
// wall of that surface's material on each side instead of letting sound through.
struct ThinFace {
    size_t cell = 0;  // the air cell on the + side; its neighbour at -1 along `axis` is the other
    int axis = 0;
    // The surface the sound meets from the - side [0] and from the + side [1], with its
    // staircase_area_weight: of the crossings between the two centres, the one nearest that side.
    int16_t material[2] = {-1, -1};
    uint8_t area[2] = {kFullArea, kFullArea};
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
    // Per cell, empty when the model has no thin face: bit a set where the link to the neighbour
    // at -1 along axis a is a ThinFace. The faces themselves, ordered by (cell, axis).
    std::vector<uint8_t> thin;
    std::vector<ThinFace> thin_faces;
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
    // The links of air cell i that thin faces block: bits 2a (-1 along axis a) and 2a + 1 (+1),
    // the order of the six neighbours -x, +x, -y, +y, -z, +z.
    uint8_t blocked_links(size_t i) const {
        if (thin.empty()) return 0;
        uint8_t bits = 0;
        for (int a = 0; a < 3; ++a) {
            const size_t s = grid.stride(a);
            if (thin[i] >> a & 1) bits |= static_cast<uint8_t>(1 << (2 * a));
            if (i + s < thin.size() && (thin[i + s] >> a & 1))
                bits |= static_cast<uint8_t>(1 << (2 * a + 1));
        }
        return bits;
    }
    // The thin face between neighbouring air cells a and b, or nullptr.
    const ThinFace* thin_face(size_t a, size_t b) const;
    // Material of the wall behind the face between air cell `a` and its neighbour `b`: non-air,
    // or air across a thin face.
    int face_material(size_t a, size_t b) const {
        if (air[b]) {
            const ThinFace* f = thin_face(a, b);
            return f ? f->material[a > b] : -1;
        }
        return material[b] >= 0 ? material[b] : material[a];
    }
    // The share of that face's area the true surface has: 1 for a surface normal to an axis,
    // down to 1 / sqrt(3) on a staircase (voxelize.h); the wall's admittance there is scaled by it.
    double face_area(size_t a, size_t b) const {
        if (air[b]) {
            const ThinFace* f = thin_face(a, b);
            return f ? f->area[a > b] * (1.0 / kFullArea) : 0.0;
        }
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
