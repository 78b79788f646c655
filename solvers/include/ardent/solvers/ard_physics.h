// ARD's per-cell physics, written once for host and device code (spec section 5): the interface
// stencil, the exact-in-time mode update of a rectangular partition, and the update of a
// PML line. Coefficients come from Mehra et al. 2012, section 3; the PML is the second-order form
// of a complex-coordinate-stretched layer along the wall normal (Grote and Sim 2010).
#pragma once

#include <cmath>

#include "ardent/solvers/hd.h"

namespace ardent::ard {

// Cells the interface stencil reaches on either side of a cell.
inline constexpr int kReach = 3;

// Second-derivative stencil times h^2, indexed by |offset| (reach kReach, like the 6th-order
// stencil {2, -27, 270, -490, 270, -27, 2}/180 of Mehra et al.). The coefficients are fitted
// instead: least squares on the exact symbol -k^2 over kh in [0, 2.0] (ARD's band reaches
// kh = 1.93 at 0.8 f_max) with second-order consistency kept exactly. The symbol error at
// kh = 1.93 drops from 2.6 % to 0.1 %, and the rigid-box validation error with several partitions
// from 34 % to 10 % (docs/ard.md). The paper itself points to optimized schemes (section 3.3).
// A reach-5 fit (symbol error below 1e-4) was worse: interface reflection -24 dB instead of
// -46 dB. Largest symbol 6.83, so leapfrog in 3-D is stable for c dt / h <= 0.442.
ARDENT_HD inline double stencil(int offset) {
    constexpr double s1 = 1.677365, s2 = -0.234851, s3 = 0.029115;
    constexpr double s[kReach + 1] = {-2 * (s1 + s2 + s3), s1, s2, s3};
    const int a = offset < 0 ? -offset : offset;
    return a > kReach ? 0.0 : s[a];
}

// Mode coefficients of a partition mode of angular frequency w: p_new = a * p - p_old + b * f.
struct ModeCoefficients {
    double a, b;
};

ARDENT_HD inline ModeCoefficients mode_coefficients(double w, double dt) {
    // For w = 0 the limit of 2 (1 - cos w dt) / w^2 is dt^2.
    // 1 - cos(w dt) = 2 sin^2(w dt / 2): without cancellation for the slowest modes.
    if (w * dt < 1e-6) return {2.0 - (w * dt) * (w * dt), dt * dt};
    const double s = std::sin(w * dt / 2);
    return {2.0 * std::cos(w * dt), 4.0 * s * s / (w * w)};
}

template <typename Real>
ARDENT_HD inline Real mode_update(Real a, Real b, Real p, Real p_old, Real f) {
    return a * p - p_old + b * f;
}

// How an interface line's forcing is computed. kStencil applies the stencil above to the
// difference between the far field and the partition's own even extension; it serves every line
// that touches a partition thinner than kReach, a rigid wall, a PML line or the source's near
// field. kThick serves lines between two partitions at least kReach cells deep: a symmetric
// kReach x kReach matrix fitted so that the coupled operator's eigenfrequencies match the exact
// (whole-line spectral) ones. Symmetric, so the coupled operator stays symmetric and conserves
// energy as the stencil does. scripts/fit_interface.py fits and checks it on 1-D cuts into
// partitions of 4 to 64 cells: the largest frequency error in band (weighted by frequency) is
// 1.1e-4 on the fitted cuts and 2.0e-4 on held-out ones, against 3.4e-3 and 6.7e-3 for the stencil.
enum InterfaceScheme : int32_t { kStencil = 0, kThick = 1 };

ARDENT_HD inline double interface_coefficient(int32_t scheme, int j, int k) {
    constexpr double m[kReach][kReach] = {{1.5582008253, -0.3482334483, -0.0026894366},
                                          {-0.3482334483, 0.2422064376, -0.0287239825},
                                          {-0.0026894366, -0.0287239825, 0.0089762456}};
    if (scheme == kThick) return m[j][k];
    // Far cell k sits j + 1 + k cells from the target.
    return j + 1 + k <= kReach ? stencil(j + 1 + k) : 0.0;
}

// Interface forcing on the cell `j` cells into a partition from its face (j < kReach), given the
// true field on the far side (`far[k]`: k+1 cells beyond the face) and the partition's own even
// extension (`own[m]`: m cells in from the face), k, m < kReach. The Neumann partition sees
// own[k] where the true field is far[k], so the forcing acts on the difference. Returns
// f / c^2 * h^2.
template <typename Real>
ARDENT_HD inline Real interface_term(int32_t scheme, int j, const Real far[kReach],
                                     const Real own[kReach]) {
    Real f = 0;
    for (int k = 0; k < kReach; ++k)
        f += static_cast<Real>(interface_coefficient(scheme, j, k)) * (far[k] - own[k]);
    return f;
}

// The field the solver exposes and couples through interfaces is q = phi(A) p, with phi applied
// per partition mode of frequency w: phi = (x/2) / tan(x/2), x = w dt. Two reasons, one factor:
// - The exact mode update treats the forcing as constant over [t - dt, t + dt], which raises a
//   mode's response to a drive at its own frequency by 1/phi. Reading q undoes that for sources
//   and receivers alike (q = G(t - r/c) / (4 pi r) in free field), so the source is not
//   pre-filtered.
// - Coupling partitions through q instead of p adds the (dt^4/12) C A term of the exact two-step
//   update cos(dt sqrt(-A)) for A = A_partitions + C; time_correction_scale adds the C^2 term.
//   On 1-D cuts at c dt / h = 0.25 the two take the largest frequency error in band from 1.3e-3
//   to 1.1e-4 (scripts/fit_interface.py), and the coupled update stays conservative.
// - Off the source and the interfaces, q equals the pressure filtered in time by phi to second
//   order; where forcing F acts, q + (dt^2/12) F does, and receivers sample that.
ARDENT_HD inline double field_filter(double w, double dt) {
    const double x = w * dt;
    if (x < 1e-4) return 1.0 - x * x / 12;
    return (x / 2) / std::tan(x / 2);
}

// Scale of the C^2 term: the interface forcing C F of the forcing F itself, times dt^2 c^2 /
// (12 h^2), so courant^2 / 12 applied to F (which already carries c^2 / h^2).
ARDENT_HD inline double time_correction_scale(double courant) {
    return courant * courant / 12;
}

// The stencil along a PML line at cell k, times h^2, of the values v(i) i cells into the line.
template <typename Real, typename V>
ARDENT_HD inline Real pml_laplacian(int k, V&& v) {
    Real s = 0;
    for (int m = -kReach; m <= kReach; ++m)
        s += static_cast<Real>(stencil(m)) * v(k + m);
    return s;
}

// One PML line cell: p_tt + sigma p_t = c^2 d/dx (dp/dx + psi), psi_t + sigma psi = -sigma dp/dx.
// lap6 is the 6th-order d2p/dx2 times h^2 (with pml_time_correction's term added), dpsi the
// divergence of psi at step n times h (staggered).
template <typename Real>
ARDENT_HD inline Real pml_pressure(Real p, Real p_old, Real lap6, Real dpsi, Real sigma_dt,
                                   Real courant2) {
    const Real half = static_cast<Real>(0.5) * sigma_dt;
    return (2 * p - (1 - half) * p_old + courant2 * (lap6 + dpsi)) / (1 + half);
}

// psi from step n - 1 to step n, before the pressure's update reads it: exact for the gradient
// held at its mean over the step, (grad_n + grad_{n-1}) / 2. Until 2026-11-29 psi was advanced
// after the pressure, from grad_{n-1} alone, so the pressure read a psi half a step late. That
// lag is a relative error of about sigma dt / 2 in the stretching, flat in frequency and growing
// with dt: the fully absorbing wall's reflection at 62-125 Hz was 0.0076 at c dt / h = 0.4 and
// 0.0097 at 0.5, and 0.0037 and 0.0042 centred (docs/ard.md, "Time step").
template <typename Real>
ARDENT_HD inline Real pml_auxiliary(Real psi, Real grad, Real grad_before, Real decay) {
    return psi * decay - (1 - decay) * static_cast<Real>(0.5) * (grad + grad_before);
}

// The PML's share of the coupled update's dt^4 / 12 A^2 terms (as the C^2 term is the
// partitions' share, time_correction_scale). The air is exact in time and the PML lines are
// leapfrog; where they meet, a wave saw leapfrog's dispersion in the layer and not in the air, and
// the junction missed the coupling's own second-order terms, which made the junction reflect more
// the longer the step (docs/ard.md, "Time step"). Each PML cell's Laplacian gets
// (dt^2 / 12) times the stencil applied to the accelerations G: the complete forcing F on air
// cells, c^2 / h^2 times the Laplacian on PML cells, and the same combination on the ghosts the
// lines read; the coupling lines apply their C^2 term to the same G. `g(i)` gives G at i cells into
// the line (negative: beyond its face, at or past `depth`: the rigid back's mirror).
template <typename Real, typename G>
ARDENT_HD inline Real pml_time_correction(int k, G&& g, Real dt2_12) {
    return dt2_12 * pml_laplacian<Real>(k, g);
}

}  // namespace ardent::ard
