// Solid/air classification of grid cells from a triangle mesh that may be imperfect (holes,
// non-manifold edges, furniture touching walls). Each cell centre is tested by ray parity along
// the three axes and the majority of the three votes wins, so a defect spoils a cell only when it
// lies on two of its three rays. Crossings exactly on a shared edge or vertex are counted once by
// a top-left rule on canonically ordered edges. The surface band records, for cells near the
// surface, the nearest triangle's group, which gives boundary cells their material.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ardent/preprocess/grid.h"
#include "ardent/preprocess/mesh.h"

namespace ardent {

struct Classification {
    std::vector<uint8_t> inside;  // 1 where at least two of three axis rays say "inside"
    // Bit a set where the surface crosses the segment from this cell's centre to the centre of its
    // neighbour at -1 along axis a: the flood fill never steps through a surface, so solids thinner
    // than a cell (a window pane, a door leaf) still close a room.
    std::vector<uint8_t> walls;
    std::array<size_t, 3> odd_rays{};  // rays per axis crossing the surface an odd number of times
    std::array<size_t, 3> rays_hit{};  // rays per axis crossing it at all
    size_t disputed_cells = 0;         // cells whose three votes were not unanimous
};

Classification classify_cells(const TriangleMesh& mesh, const Grid& grid);

// A lattice of rays parallel to `axis` through (u0 + (iu + 0.5) spacing, v0 + (iv + 0.5) spacing),
// iu < nu, iv_lo <= iv < iv_hi, where u and v are the axes after `axis` in cyclic order.
struct RayLattice {
    int axis;
    double u0, v0, spacing;
    int nu, iv_lo, iv_hi;
};

// Calls hit(iu, iv, coordinate along axis, triangle index) for every crossing of a lattice ray
// with the mesh. A ray through an edge or vertex shared by triangles is counted exactly once
// (top-left rule on canonically ordered edges); triangles parallel to the rays are never hit.
void for_each_ray_crossing(const TriangleMesh& mesh, const RayLattice& rays,
                           const std::function<void(int, int, double, size_t)>& hit);

// The same three-ray vote for one exact point: true when at least two of its axis rays cross the
// surface an odd number of times (the point is "inside" the mesh).
bool point_inside(const TriangleMesh& mesh, Vec3 p);

struct SurfaceBand {
    float radius = 0;             // in metres: cells farther than this have no entry
    std::vector<float> distance;  // per cell: distance from the centre to the nearest triangle
    std::vector<int32_t> group;   // per cell: that triangle's group, -1 if none within radius
    // Per cell: that triangle's staircase_area_weight (kFullArea where none is within radius).
    std::vector<uint8_t> area;
};

// A surface voxelised into cell faces has |n_x| + |n_y| + |n_z| times its own area (n its unit
// normal): a plane slanted 45 degrees about one axis is a staircase of sqrt(2) times the faces.
// A wave solver that gives every face the wall's full admittance absorbs that much more; each
// face's admittance is scaled by the inverse (docs/materials.md, "Slanted walls"), kept per cell
// in units of 1 / kFullArea.
inline constexpr uint8_t kFullArea = 255;
uint8_t staircase_area_weight(Vec3 unit_normal);

// Nearest surface group for every cell whose centre lies within `radius_cells` * h of the mesh.
SurfaceBand surface_band(const TriangleMesh& mesh, const Grid& grid, double radius_cells);

// Distance from p to the triangle (a, b, c).
double point_triangle_distance(Vec3 p, Vec3 a, Vec3 b, Vec3 c);

}  // namespace ardent
