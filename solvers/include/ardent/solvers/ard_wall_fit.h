// A frequency-dependent wall's branches as ARD steps them, and their refit to the time step.
// ARD steps each R-L-C branch of a fitted wall (wall_admittance.h) explicitly with the bilinear
// rule (wall_face_drive, ard_layout.h), so the air feels the branch at the warped frequency
// (2 / dt) tan(w dt / 2) and its resistance (w dt / 2) / tan(w dt / 2) too weakly; a massless
// branch's half-step-early input and extrapolated output add about (w dt)^2 / 4 more. At ARD's step
// (w dt up to 1.2 at f_max) that is several percent of the admittance, growing as dt^2: too much
// absorption at the top of the band, most where the wall is nearly matched (oblique incidence).
// `stepped_branch_admittance` is that discrete admittance in closed form; `fit_stepped_branches`
// moves the branches' g, m, k so that the stepped wall matches the fitted one over the band
// (docs/ard.md, "Walls").
#pragma once

#include <complex>
#include <vector>

#include "ardent/preprocess/wall_admittance.h"

namespace ardent::ard {

// The admittance (normalised by 1 / (rho c)) with which ARD's stepped branch drives the air at
// angular frequency w: the drive's phasor over (j w dt) times the face pressure's, for a face
// pressure u^n = U e^{j w n dt}.
std::complex<double> stepped_branch_admittance(const AdmittanceBranch& b, double w, double dt);

// How far the refit may move a branch. The stepping's error is a few tens of percent of a branch
// at most (the bilinear warp, (w dt)^2 / 12, and a massless branch's (w dt)^2 / 4, at w dt up to
// 1.2), but a wall of many branches leaves the joint fit directions it barely sees: unbounded, the
// refit of a carpet rising from 0.3 to 0.98 in one octave (8 branches) took stiffnesses to 1e56,
// where the trapezoidal rule's pole at z = -1 is undamped, and the run blew up by step 64
// (SimulateCli.WarnsOfAnAbsorptionNoWallReaches). So every value stays within a factor
// kLargestChange of its own, and no mass falls below 1 / kMassDrop of its own: a branch with mass
// is stepped centred, which with little mass leaves a pole near z = -1 that ARD's explicit
// coupling drives (the reason massless branches are stepped otherwise, ard_layout.h). Without that
// second bound the refit took the mass of branches resonant above the band to 1e-33 and less, and
// boxes lined with the most absorbing walls grew without bound within 192 steps
// (tests/test_ard_wall_stability.cpp). The largest drop the validation walls ask for is to 0.70
// of the mass (the steeply rising wall's top branch at c dt/h 0.5).
inline constexpr double kLargestChange = 2.0;
inline constexpr double kMassDrop = 1.6;

// A wall's branches refitted so that their stepped admittances sum to the fitted branches' own
// (least squares over 0.02-1 f_max): each keeps its kind (massless stays massless, stiffness-free
// stays so) and positive values, so the stepped wall stays passive, within the bounds above.
// Returns `fitted` where the refit does not improve on it.
std::vector<AdmittanceBranch> fit_stepped_branches(const std::vector<AdmittanceBranch>& fitted,
                                                   double dt, double f_max);

}  // namespace ardent::ard
