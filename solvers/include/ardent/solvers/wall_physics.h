// A fitted wall's frequency-dependent branches stepped in time, written once for host and device
// code and shared by both schemes (spec section 5). Each series R-L-C branch of the wall's
// admittance (wall_admittance.h: g / (1 + j (w m - k / w)), normalised by 1 / (rho c)) carries a
// normal velocity v driven by the wall's pressure u:  m dv/dt + v + k integral(v) = g u. The
// trapezoidal rule (the bilinear transform: passive branches stay passive) steps v and s = k
// integral(v) from one half step to the next, and the air next to the wall feels the change of v
// over the step: the pressure update loses lambda * (v+ - v-) per face, lambda = c dt / h, which
// is the impedance condition dp/dn = -(1 / c) d(beta * p)/dt integrated over the cell. With u the
// average (p_next + 2 p + p_prev) / 4 the update stays implicit in p_next alone (FDTD); an
// explicit scheme (ARD) drives it with (p + p_prev) / 2, half a step earlier.
#pragma once

#include "ardent/solvers/hd.h"

namespace ardent::walls {

// delta v = a * input4 - rs * s - rv * v, where input4 = 4 u; then s += kdt (v + delta v / 2) and
// v += delta v. `massless` is 1 for a branch without mass (an R-C high-pass), else 0: stepped
// this way its velocity has a pole at z = -1, which an explicit scheme must not drive (ARD's
// wall_face_drive, ard_layout.h).
template <typename Real>
struct BranchCoefficients {
    Real a, rs, rv, kdt, massless;

    template <typename To>
    ARDENT_HD BranchCoefficients<To> as() const {
        return {static_cast<To>(a), static_cast<To>(rs), static_cast<To>(rv), static_cast<To>(kdt),
                static_cast<To>(massless)};
    }
};

// From a branch's conductance g, mass m (s) and stiffness k (1/s): with
// A = m / dt + 1/2 + k dt / 4, m (v+ - v-) / dt + (v+ + v-) / 2 + (s+ + s-) / 2 = g u.
ARDENT_HD inline BranchCoefficients<double> branch_coefficients(double g, double m, double k,
                                                                double dt) {
    const double A = m / dt + 0.5 + k * dt / 4;
    return {g / (4 * A), 1 / A, (1 + k * dt / 2) / A, k * dt, m > 0 ? 0.0 : 1.0};
}

// The part of delta v that does not depend on the new pressure.
template <typename Real>
ARDENT_HD inline Real branch_history(const BranchCoefficients<Real>& b, Real s, Real v) {
    return b.rs * s + b.rv * v;
}

// Steps one branch's state over the step; returns delta v.
template <typename Real>
ARDENT_HD inline Real branch_step(const BranchCoefficients<Real>& b, Real input4, Real& s,
                                  Real& v) {
    const Real dv = b.a * input4 - branch_history(b, s, v);
    s += b.kdt * (v + dv / 2);
    v += dv;
    return dv;
}

}  // namespace ardent::walls
