// The FDTD fallback's per-cell physics, written once for host and device code (spec section 5):
// the 7-point leapfrog update of an interior air cell and the locally reacting boundary update of
// an air cell with K air neighbours and wall faces of admittance beta. The boundary form follows
// from a ghost cell behind each wall face set by the impedance condition dp/dn = -(beta / c) dp/dt,
// centred in space and time: p_ghost = p - (beta / (2 lambda)) (p_next - p_prev), lambda = c dt /
// h. Substituted into the 7-point update it gives, for any voxel shape (face, edge, corner, a cell
// between two walls),
//   (1 + lambda B / 2) p_next = (2 - K lambda^2) p + lambda^2 sum(air neighbours)
//                               - (1 - lambda B / 2) p_prev,            B = sum of beta per wall
//                               face
// which is the face/edge/corner scheme of Kowalczyk and van Walstijn (2008) and Webb (2010, 6.1)
// written for K and B directly. beta = (1 - R) / (1 + R) with R = sqrt(1 - alpha): the wall
// reflects a normally incident plane wave by R.
#pragma once

#include <cmath>

#include "ardent/solvers/hd.h"

namespace ardent::fdtd {

// Courant number c dt / h: the 3-D stability limit of the 7-point scheme.
inline constexpr double kCourant = 0.57735026918962576;  // 1 / sqrt(3)

// Normal-incidence admittance of a wall of absorption alpha.
inline double wall_admittance(double alpha) {
    const double r = std::sqrt(1.0 - alpha);
    return (1.0 - r) / (1.0 + r);
}

// Interior cell: six air neighbours, no wall.
template <typename Real>
ARDENT_HD inline Real interior_update(Real p, Real p_prev, Real neighbours, Real lambda2) {
    return (2 - 6 * lambda2) * p + lambda2 * neighbours - p_prev;
}

// Per boundary cell: the three factors of the update above.
struct BoundaryCoefficients {
    double centre;  // (2 - K lambda^2) / (1 + lambda B / 2)
    double near;    // lambda^2 / (1 + lambda B / 2)
    double prev;    // (1 - lambda B / 2) / (1 + lambda B / 2)
};

ARDENT_HD inline BoundaryCoefficients boundary_coefficients(int air_neighbours, double beta_sum,
                                                            double lambda) {
    const double d = 1 + 0.5 * lambda * beta_sum;
    return {(2 - air_neighbours * lambda * lambda) / d, lambda * lambda / d,
            (1 - 0.5 * lambda * beta_sum) / d};
}

template <typename Real>
ARDENT_HD inline Real boundary_update(Real p, Real p_prev, Real neighbours, Real centre, Real near,
                                      Real prev) {
    return centre * p + near * neighbours - prev * p_prev;
}

}  // namespace ardent::fdtd
