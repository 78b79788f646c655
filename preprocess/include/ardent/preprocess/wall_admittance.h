// Walls as passive, frequency-dependent, locally reacting surfaces (spec sections 3 and 5). A
// material's absorption is random-incidence (statistical) per band; preprocessing fits it once to
// a surface admittance beta (normalised by 1 / (rho c)) built from a conductance and series R-L-C
// branches in parallel, each passive by construction, so that Paris' integral of the oblique
// reflection R(theta) = (cos theta - beta) / (cos theta + beta) over a diffuse field matches the
// given coefficient in every band of the simulated range. `ardent info` reports the fit; every
// solver steps the fitted conductance and branches in time (wall_physics.h, docs/materials.md).
#pragma once

#include <complex>
#include <string>
#include <vector>

#include "ardent/preprocess/scene.h"

namespace ardent {

// One series R-L-C branch, normalised: admittance g / (1 + j (w m - k / w)), with R = 1 / g,
// L = m / g and 1 / C = k / g. m = 0 drops the inductor, k = 0 the capacitor; all of g, m and k
// non-negative keeps it passive (its real part is never negative).
struct AdmittanceBranch {
    double conductance = 0;    // g: the peak conductance
    double mass = 0;           // m, seconds (inductance times g)
    double stiffness = 0;      // k, 1 / seconds (elastance times g)
    double resonance() const;  // rad/s when both m and k are present, else 0
};

struct WallAdmittance {
    double conductance = 0;  // the frequency-independent part
    std::vector<AdmittanceBranch> branches;

    std::complex<double> at(double omega) const;
    bool rigid() const { return conductance == 0 && branches.empty(); }
};

// The branch's admittance at omega, for a unit conductance.
std::complex<double> branch_shape(const AdmittanceBranch& b, double omega);

// Plane-wave reflection of a locally reacting wall of admittance beta at incidence cos_theta.
std::complex<double> plane_wave_reflection(std::complex<double> beta, double cos_theta);
// Absorption at normal incidence, 1 - |R(0)|^2.
double normal_absorption(std::complex<double> beta);
// Random-incidence absorption: Paris' integral of 1 - |R(theta)|^2 weighted by sin 2 theta over
// the hemisphere, in closed form (London; Kuttruff, Room Acoustics, eq. 2.41 for real beta).
double paris_absorption(std::complex<double> beta);
// The largest random-incidence absorption a locally reacting wall reaches (real beta of about
// 0.64): 0.951. Larger coefficients are fitted as closely as they can be, with a warning.
double max_paris_absorption();
// The real admittance (on the branch below the maximum) whose Paris absorption is alpha.
double real_admittance_for(double alpha);
// The random-incidence absorption of the resistive wall (real admittance <= 1) whose
// normal-incidence absorption is alpha_n: how a "normal_absorption" band is read.
double random_incidence_from_normal(double alpha_n);

// A fitted band: the coefficient asked for and the fitted wall's average over the band (uniform in
// frequency, as band-limited white noise excites it), and its value at the centre.
struct FittedBand {
    double hz = 0;                // centre
    double lo_hz = 0, hi_hz = 0;  // edges: halfway (in log frequency) to the neighbouring bands
    double target = 0;
    double fitted = 0;         // band average
    double fitted_centre = 0;  // at the centre
    bool judged = false;       // inside the simulated range [0.05 f_max, f_max]
    double residual() const { return fitted - target; }
    // Within 0.02 absolute or 10 % relative, whichever is larger (spec section 3).
    bool within_tolerance() const;
};

struct WallFit {
    std::string material;
    bool open = false;  // absorption 1 in every band: an open boundary (the absorbing layer)
    WallAdmittance admittance;
    std::vector<FittedBand> bands;  // the material's bands (octaves 63-8000 Hz for one coefficient)
    std::vector<std::string> warnings;     // unreachable coefficients, bands the fit misses
    double lowest_hz = 0, highest_hz = 0;  // the range the fit is judged on
};

// The wall's random-incidence absorption averaged over [lo_hz, hi_hz], uniformly in frequency.
double band_absorption(const WallAdmittance& y, double lo_hz, double hi_hz);

// Fits the wall of material `m` for a simulation up to max_frequency.
WallFit fit_wall(const Material& m, double max_frequency);
std::vector<WallFit> fit_walls(const Scene& scene);

}  // namespace ardent
