#include "fdtd_layout.h"

#include <algorithm>
#include <string>

#include <omp.h>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/wall_admittance.h"

namespace ardent::fdtd {

namespace {

// Per material, its fitted wall (wall_admittance.h): the conductance goes into the cell's loss,
// each branch becomes a term with its own state on every cell that has that wall.
struct WallTables {
    std::vector<double> beta;           // per material: the conductance (1 when open)
    std::vector<int32_t> first_branch;  // per material: its first branch; one entry more
    std::vector<double> gain;           // per material: the sum of its branches' a (per face)
};

WallTables wall_tables(const Preprocessed& p, double f_max, FdtdLayout& L) {
    const size_t materials = p.scene.materials.size();
    WallTables w{std::vector<double>(materials), std::vector<int32_t>(materials + 1, 0),
                 std::vector<double>(materials, 0.0)};
    for (size_t m = 0; m < materials; ++m) {
        const WallFit fit = fit_wall(p.scene.materials[m], f_max);
        w.beta[m] = fit.open ? 1.0 : fit.admittance.conductance;
        if (!fit.open)
            for (const AdmittanceBranch& b : fit.admittance.branches)
                L.branches.push_back(
                    walls::branch_coefficients(b.conductance, b.mass, b.stiffness, L.dt));
        w.first_branch[m + 1] = static_cast<int32_t>(L.branches.size());
    }
    for (size_t m = 0; m < materials; ++m)
        for (int32_t b = w.first_branch[m]; b < w.first_branch[m + 1]; ++b)
            w.gain[m] += L.branches[static_cast<size_t>(b)].a;
    return w;
}

// The boundary cells of one slab of z planes, numbered from the slab's start: groups_begin/end
// and terms_begin count from its first group and term.
struct BoundarySlab {
    std::vector<size_t> boundary;
    std::vector<BoundaryCoefficients> coefficients;
    std::vector<int32_t> group_first, group_count;
    std::vector<double> group_faces;
    size_t terms = 0, interior = 0;
    bool touches_edge = false;  // an air cell on the grid's edge
};

// One boundary cell's coefficients and branch groups.
void add_boundary_cell(const AirModel& air, const WallTables& w, double lambda, size_t idx,
                       std::vector<double>& faces_of, BoundarySlab& s) {
    if (is_interior(air, idx)) {  // most cells: no need to look at walls
        ++s.interior;
        return;
    }
    const Grid& g = air.grid;
    const long sy = g.dims[0], sz = static_cast<long>(g.dims[0]) * g.dims[1];
    const long offsets[6] = {-1, 1, -sy, sy, -sz, sz};
    int neighbours = 0;
    double beta_sum = 0;
    std::fill(faces_of.begin(), faces_of.end(), 0.0);
    // A thin face between two air cells is a wall on each side (air.h, ThinFace).
    const uint8_t blocked = air.blocked_links(idx);
    for (int k = 0; k < 6; ++k) {
        const size_t nb = static_cast<size_t>(static_cast<long>(idx) + offsets[k]);
        if (air.air[nb] && !(blocked >> k & 1)) {
            ++neighbours;
            continue;
        }
        const int m = air.face_material(idx, nb);
        if (m < 0) continue;
        // A face of a slanted wall's staircase counts for the share of its area the wall has
        // (AirModel::face_area): its conductance and its branches (linear in theirs) scale alike.
        const double area = air.face_area(idx, nb);
        beta_sum += area * w.beta[static_cast<size_t>(m)];
        faces_of[static_cast<size_t>(m)] += area;
    }
    if (neighbours == 6) {  // unreachable: is_interior above
        ++s.interior;
        return;
    }
    const auto groups_begin = static_cast<int32_t>(s.group_first.size());
    const auto terms_begin = static_cast<int32_t>(s.terms);
    double branch_gain = 0;
    for (size_t m = 0; m < faces_of.size(); ++m) {
        const int32_t n = w.first_branch[m + 1] - w.first_branch[m];
        if (faces_of[m] == 0 || n == 0) continue;
        s.group_first.push_back(w.first_branch[m]);
        s.group_count.push_back(n);
        s.group_faces.push_back(faces_of[m]);
        s.terms += static_cast<size_t>(n);
        branch_gain += faces_of[m] * w.gain[m];
    }
    s.boundary.push_back(idx);
    BoundaryCoefficients bc = boundary_coefficients(neighbours, beta_sum, lambda, branch_gain);
    bc.groups_begin = groups_begin;
    bc.groups_end = static_cast<int32_t>(s.group_first.size());
    bc.terms_begin = terms_begin;
    bc.blocked = blocked;
    s.coefficients.push_back(bc);
}

BoundarySlab boundary_slab(const AirModel& air, const WallTables& w, double lambda, int k_lo,
                           int k_hi) {
    const Grid& g = air.grid;
    BoundarySlab s;
    std::vector<double> faces_of(w.beta.size());
    for (int k = k_lo; k < k_hi; ++k)
        for (int j = 0; j < g.dims[1]; ++j)
            for (int i = 0; i < g.dims[0]; ++i) {
                const size_t idx = g.index(i, j, k);
                if (!air.air[idx]) continue;
                if (i == 0 || j == 0 || k == 0 || i + 1 == g.dims[0] || j + 1 == g.dims[1] ||
                    k + 1 == g.dims[2]) {
                    s.touches_edge = true;
                    return s;
                }
                add_boundary_cell(air, w, lambda, idx, faces_of, s);
            }
    return s;
}

// Appends a slab's cells after those of the slabs below it, renumbering its groups and terms.
void append(FdtdLayout& L, const BoundarySlab& s) {
    const auto groups = static_cast<int32_t>(L.group_first.size());
    const auto terms = static_cast<int32_t>(L.terms);
    L.boundary.insert(L.boundary.end(), s.boundary.begin(), s.boundary.end());
    for (BoundaryCoefficients bc : s.coefficients) {
        bc.groups_begin += groups;
        bc.groups_end += groups;
        bc.terms_begin += terms;
        L.coefficients.push_back(bc);
    }
    L.group_first.insert(L.group_first.end(), s.group_first.begin(), s.group_first.end());
    L.group_count.insert(L.group_count.end(), s.group_count.begin(), s.group_count.end());
    L.group_faces.insert(L.group_faces.end(), s.group_faces.begin(), s.group_faces.end());
    L.terms += s.terms;
    L.interior_cells += s.interior;
}

}  // namespace

FdtdLayout build_fdtd_layout(const Preprocessed& p, size_t source, bool listener_grid,
                             bool inject_source, bool receiver_gradients) {
    const AirModel& air = p.air;
    FdtdLayout L;
    L.grid = air.grid;
    const Grid& g = L.grid;
    L.c = p.scene.simulation.speed_of_sound;
    L.lambda = kCourant;
    L.dt = kCourant * g.h / L.c;
    const double f_max = p.scene.simulation.max_frequency;
    L.excitation = Excitation::for_band(f_max, L.dt);
    const WallTables w = wall_tables(p, f_max, L);

    // Slabs of z planes on all cores, joined in order: the lists are the serial scan's.
    const int slabs = std::min(g.dims[2], 4 * omp_get_max_threads());
    std::vector<BoundarySlab> slab(static_cast<size_t>(slabs));
#pragma omp parallel for schedule(dynamic)
    for (int n = 0; n < slabs; ++n)
        slab[static_cast<size_t>(n)] =
            boundary_slab(air, w, L.lambda, g.dims[2] * n / slabs, g.dims[2] * (n + 1) / slabs);
    for (const BoundarySlab& s : slab) {
        if (s.touches_edge)
            throw InputError(p.scene.display_name() + ": an air cell touches the edge of the grid");
        append(L, s);
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
    const ListenerCells rc = p.receiver_cells();
    for (size_t i = 0; i < (receiver_gradients ? rc.cells.size() : rc.points); ++i)
        L.receivers.push_back(g.index(rc.cells[i]));
    if (listener_grid)
        for (const Index3& c : p.listener_cells().cells) {
            L.grid_cells.push_back(g.index(c));
            L.grid_positions.push_back(g.centre(c));
        }
    return L;
}

}  // namespace ardent::fdtd
