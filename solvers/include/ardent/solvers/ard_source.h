// The samples ARD injects at the source cell. The exact mode update treats the forcing as constant
// over [t - dt, t + dt], which raises a mode's response to a drive at its own frequency W by
// tan(W dt / 2) / (W dt / 2) (+0.6 dB at 0.8 f_max for ARD's time step). The excitation is
// pre-filtered by the inverse so the radiated field follows G(t) itself (spec section 4).
#pragma once

#include <vector>

#include "ardent/solvers/excitation.h"

namespace ardent::ard {

// G(n dt) for n = 0 .. 2 delay / dt, equalised as above.
std::vector<double> source_signal(const Excitation& g, double dt);

}  // namespace ardent::ard
