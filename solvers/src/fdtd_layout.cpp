#include "fdtd_layout.h"

#include <algorithm>
#include <string>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/wall_admittance.h"

namespace ardent::fdtd {

FdtdLayout build_fdtd_layout(const Preprocessed& p, size_t source, bool listener_grid,
                             bool inject_source) {
    const AirModel& air = p.air;
    FdtdLayout L;
    L.grid = air.grid;
    const Grid& g = L.grid;
    L.c = p.scene.simulation.speed_of_sound;
    L.lambda = kCourant;
    L.dt = kCourant * g.h / L.c;
    const double f_max = p.scene.simulation.max_frequency;
    L.excitation = Excitation::for_band(f_max, L.dt);

    const long sy = g.dims[0], sz = static_cast<long>(g.dims[0]) * g.dims[1];
    const long offsets[6] = {-1, 1, -sy, sy, -sz, sz};
    // Per material, its fitted wall (wall_admittance.h): the conductance goes into the cell's
    // loss, each branch becomes a term with its own state on every cell that has that wall.
    const size_t materials = p.scene.materials.size();
    std::vector<double> beta(materials);
    std::vector<int32_t> first_branch(materials + 1, 0);
    for (size_t m = 0; m < materials; ++m) {
        const WallFit fit = fit_wall(p.scene.materials[m], f_max);
        beta[m] = fit.open ? 1.0 : fit.admittance.conductance;
        if (!fit.open)
            for (const AdmittanceBranch& b : fit.admittance.branches)
                L.branches.push_back(
                    walls::branch_coefficients(b.conductance, b.mass, b.stiffness, L.dt));
        first_branch[m + 1] = static_cast<int32_t>(L.branches.size());
    }
    // Per material, the sum of its branches' a: what one face adds to a cell's divisor.
    std::vector<double> material_gain(materials, 0.0);
    for (size_t m = 0; m < materials; ++m)
        for (int32_t b = first_branch[m]; b < first_branch[m + 1]; ++b)
            material_gain[m] += L.branches[static_cast<size_t>(b)].a;
    std::vector<int> faces_of(materials);
    for (int k = 0; k < g.dims[2]; ++k)
        for (int j = 0; j < g.dims[1]; ++j)
            for (int i = 0; i < g.dims[0]; ++i) {
                const size_t idx = g.index(i, j, k);
                if (!air.air[idx]) continue;
                if (i == 0 || j == 0 || k == 0 || i + 1 == g.dims[0] || j + 1 == g.dims[1] ||
                    k + 1 == g.dims[2])
                    throw InputError(p.scene.display_name() +
                                     ": an air cell touches the edge of the grid");
                int neighbours = 0;
                double beta_sum = 0;
                std::fill(faces_of.begin(), faces_of.end(), 0);
                for (long off : offsets) {
                    const size_t nb = static_cast<size_t>(static_cast<long>(idx) + off);
                    if (air.air[nb]) {
                        ++neighbours;
                        continue;
                    }
                    const int m = air.face_material(idx, nb);
                    if (m < 0) continue;
                    beta_sum += beta[static_cast<size_t>(m)];
                    ++faces_of[static_cast<size_t>(m)];
                }
                if (neighbours == 6) {
                    ++L.interior_cells;
                    continue;
                }
                const auto groups_begin = static_cast<int32_t>(L.group_first.size());
                const auto terms_begin = static_cast<int32_t>(L.terms);
                double branch_gain = 0;
                for (size_t m = 0; m < materials; ++m) {
                    const int32_t n = first_branch[m + 1] - first_branch[m];
                    if (faces_of[m] == 0 || n == 0) continue;
                    L.group_first.push_back(first_branch[m]);
                    L.group_count.push_back(n);
                    L.group_faces.push_back(faces_of[m]);
                    L.terms += static_cast<size_t>(n);
                    branch_gain += faces_of[m] * material_gain[m];
                }
                L.boundary.push_back(idx);
                BoundaryCoefficients bc =
                    boundary_coefficients(neighbours, beta_sum, L.lambda, branch_gain);
                bc.groups_begin = groups_begin;
                bc.groups_end = static_cast<int32_t>(L.group_first.size());
                bc.terms_begin = terms_begin;
                L.coefficients.push_back(bc);
            }

    L.source = g.index(air.sources.at(source).cell);
    if (inject_source) {
        // p_next += dt^2 c^2 G / h^3 = lambda^2 G / h at the source cell; a boundary cell's update
        // is multiplied by its gain, and so is its forcing.
        double scale = L.lambda * L.lambda / g.h;
        const auto it = std::lower_bound(L.boundary.begin(), L.boundary.end(), L.source);
        if (it != L.boundary.end() && *it == L.source)
            scale *= L.coefficients[static_cast<size_t>(it - L.boundary.begin())].gain;
        for (double s : L.excitation.samples(L.dt))
            L.forcing.push_back(scale * s);
    }
    for (const PlacedEmitter& r : air.receivers)
        L.receivers.push_back(g.index(r.cell));
    if (listener_grid)
        for (const Index3& c : p.listener_cells().cells) {
            L.grid_cells.push_back(g.index(c));
            L.grid_positions.push_back(g.centre(c));
        }
    return L;
}

}  // namespace ardent::fdtd
