// What the FDTD backends (CPU and CUDA) build from a preprocessed scene before their first step,
// in one place so both run exactly the same scheme: the time step, every boundary air cell (fewer
// than six air neighbours) with its locally reacting update coefficients (fdtd_physics.h), the
// source cell and the per-step forcing values, and the sampled cells. Interior air cells are the
// air cells not in the boundary list; each backend lays those out its own way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ardent/preprocess/preprocess.h"
#include "ardent/solvers/excitation.h"
#include "ardent/solvers/fdtd_physics.h"

namespace ardent::fdtd {

// Checkpoints of both backends share one format (magic, sizeof(Real), grid cells, receivers; step,
// peak energy, the field and the level before it over the whole grid; the recorded signals), so
// either backend resumes the other's.
inline constexpr uint64_t kCheckpointMagic = 0x3230544b43445446ULL;  // "FTDCKT02"

struct FdtdLayout {
    Grid grid;
    double c = 0;
    double lambda = kCourant;  // c dt / h
    double dt = 0;
    Excitation excitation;
    std::vector<size_t> boundary;  // grid indices, ascending
    std::vector<BoundaryCoefficients> coefficients;
    // The walls' frequency-dependent branches (every material's, in scene order), the boundary
    // cells' branch groups (BoundaryCoefficients::groups_begin/end, WallTerms) and the number of
    // branch states over all cells.
    std::vector<walls::BranchCoefficients<double>> branches;
    std::vector<int32_t> group_first, group_count;
    std::vector<double> group_faces;
    size_t terms = 0;
    size_t interior_cells = 0;
    size_t source = 0;               // grid index of the driving source's cell
    std::vector<double> forcing;     // added to the source cell's new value at step n (empty: none)
    std::vector<size_t> receivers;   // grid indices, scene order
    std::vector<size_t> grid_cells;  // listener grid: grid indices ...
    std::vector<Vec3> grid_positions;  // ... and cell centres
};

// Throws InputError when an air cell touches the edge of the grid (the update reads all six
// neighbours of every air cell).
FdtdLayout build_fdtd_layout(const Preprocessed& p, size_t source, bool listener_grid,
                             bool inject_source, bool receiver_gradients = false);

// Interior air cell: air with six air neighbours and no thin face (never on the grid's edge).
inline bool is_interior(const AirModel& air, size_t i) {
    const Grid& g = air.grid;
    const size_t sy = static_cast<size_t>(g.dims[0]),
                 sz = static_cast<size_t>(g.dims[0]) * static_cast<size_t>(g.dims[1]);
    if (!air.air[i] || i < sz || i + sz >= air.air.size()) return false;
    return air.air[i - 1] && air.air[i + 1] && air.air[i - sy] && air.air[i + sy] &&
           air.air[i - sz] && air.air[i + sz] && air.blocked_links(i) == 0;
}

}  // namespace ardent::fdtd
