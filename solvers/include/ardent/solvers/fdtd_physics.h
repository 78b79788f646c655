// The FDTD fallback's per-cell physics, written once for host and device code (spec section 5):
// the 7-point leapfrog update of an interior air cell and the locally reacting boundary update of
// an air cell with K air neighbours and wall faces of admittance beta. The boundary form follows
// from a ghost cell behind each wall face set by the impedance condition dp/dn = -(beta / c) dp/dt,
// centred in space and time: p_ghost = p - (beta / (2 lambda)) (p_next - p_prev), lambda = c dt /
// h. Substituted into the 7-point update it gives, for any voxel shape (face, edge, corner, a cell
// between two walls),
//   (1 + lambda B / 2) p_next = 2 p - (1 - lambda B / 2) p_prev + lambda^2 (sum - K p),
// sum over the air neighbours and B the sum of beta over the cell's wall faces, which is the
// face/edge/corner scheme of Kowalczyk and van Walstijn (2008) and Webb (2010, 6.1)
// written for K and B directly. B is the sum of the walls' frequency-independent conductances;
// their frequency-dependent branches (wall_physics.h) add, per branch and face, the change of the
// branch's velocity over the step, which is implicit in p_next through the branch's input and so
// also divides the update (Bilbao and Hamilton's passive boundary, in the admittance form fitted
// to the material's random-incidence absorption, wall_admittance.h).
#pragma once

#include <cmath>
#include <cstdint>

#include "ardent/solvers/hd.h"
#include "ardent/solvers/wall_physics.h"

namespace ardent::fdtd {

// Courant number c dt / h: the 3-D stability limit of the 7-point scheme.
inline constexpr double kCourant = 0.57735026918962576;  // 1 / sqrt(3)

// Both updates are written around the discrete Laplacian, 2 p - p_prev + lambda^2 (sum - K p),
// not with the folded coefficients (2 - K lambda^2): a uniform field then gives sum - K p = 0 up
// to rounding noise, whereas rounded folded coefficients (2 - 5/3 and 1/3 in float32) sum to 2
// plus a few 1e-8, which makes the uniform (DC) mode of a rigid room grow exponentially (float32,
// rigid L-shaped room: unbounded by step 34 000 of 100 000).

// Interior cell: six air neighbours, no wall.
template <typename Real>
ARDENT_HD inline Real interior_update(Real p, Real p_prev, Real neighbours, Real lambda2) {
    return 2 * p - p_prev + lambda2 * (neighbours - 6 * p);
}

// The sum over a cell's air neighbours. Non-air cells hold zero for ever, so only the links a thin
// face blocks (AirModel::blocked_links, bits in the order -x, +x, -y, +y, -z, +z) are left out;
// with none blocked the additions are the plain sum's, in its order.
template <typename Real>
ARDENT_HD inline Real neighbour_sum(const Real* p, long long i, long long sy, long long sz,
                                    unsigned blocked) {
    const long long offset[6] = {-1, 1, -sy, sy, -sz, sz};
    Real sum = 0;
    for (int k = 0; k < 6; ++k)
        if (!(blocked >> k & 1u)) sum += p[i + offset[k]];
    return sum;
}

// Per boundary cell: its air neighbours K, the loss terms of the update above, its wall branch
// groups [groups_begin, groups_end) (one per material with branches on its faces) and the first
// of its branch states (one per branch of each group, in order).
struct BoundaryCoefficients {
    double air_neighbours;  // K
    double gain;            // 1 / (1 + lambda B / 2 + lambda sum(faces a))
    double loss;            // lambda B / 2
    int32_t groups_begin = 0, groups_end = 0;
    int32_t terms_begin = 0;
    uint32_t blocked = 0;  // links to air neighbours a thin face blocks (neighbour_sum)
};

// branch_gain: the sum over the cell's branches of faces * a (wall_physics.h).
ARDENT_HD inline BoundaryCoefficients boundary_coefficients(int air_neighbours, double beta_sum,
                                                            double lambda, double branch_gain = 0) {
    const double loss = 0.5 * lambda * beta_sum;
    return {static_cast<double>(air_neighbours), 1 / (1 + loss + lambda * branch_gain), loss};
}

// The walls' branches on the boundary cells: group g is branches [first[g], first[g] + count[g])
// of the table on faces[g] faces of its cell; term t (a branch of a group) has state s[t], v[t].
// A cell's groups are g0 + i group_stride and its terms t0 + j term_stride: consecutive on the CPU,
// one boundary cell apart on the GPU (coalesced).
template <typename Real>
struct WallTerms {
    const walls::BranchCoefficients<Real>* table;
    const int32_t* first;
    const int32_t* count;
    const Real* faces;
    Real* s;
    Real* v;
};

struct CellWalls {
    long long g0;
    int32_t groups;
    long long group_stride, t0, term_stride;
};

// A rigid cell (B = 0, no branches: gain 1, loss 0) is the interior update with K neighbours,
// exactly. Steps the cell's branches too.
template <typename Real>
ARDENT_HD inline Real boundary_update(Real p, Real p_prev, Real neighbours, Real lambda2,
                                      Real air_neighbours, Real gain, Real loss, Real lambda,
                                      const WallTerms<Real>& w, const CellWalls& c) {
    Real drive = 0;
    long long t = c.t0;
    for (int32_t i = 0; i < c.groups; ++i) {
        const long long g = c.g0 + i * c.group_stride;
        const walls::BranchCoefficients<Real>* b = w.table + w.first[g];
        Real sum = 0;
        for (int32_t k = 0; k < w.count[g]; ++k, t += c.term_stride)
            sum += b[k].a * (2 * p + p_prev) - walls::branch_history(b[k], w.s[t], w.v[t]);
        drive += w.faces[g] * sum;
    }
    const Real next = gain * (2 * p - (1 - loss) * p_prev +
                              lambda2 * (neighbours - air_neighbours * p) - lambda * drive);
    const Real input4 = next + 2 * p + p_prev;
    t = c.t0;
    for (int32_t i = 0; i < c.groups; ++i) {
        const long long g = c.g0 + i * c.group_stride;
        const walls::BranchCoefficients<Real>* b = w.table + w.first[g];
        for (int32_t k = 0; k < w.count[g]; ++k, t += c.term_stride)
            walls::branch_step(b[k], input4, w.s[t], w.v[t]);
    }
    return next;
}

}  // namespace ardent::fdtd
