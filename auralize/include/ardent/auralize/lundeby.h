// Background noise and truncation point of a band-filtered squared impulse response, by the
// iterative method of Lundeby, Vigran, Bietz and Vorländer ("Uncertainties of measurements in room
// acoustics", Acustica 81, 1995, pp. 344-355): average the squared IR in short intervals, take
// the noise from the end, fit the decay above it, move the crossing point and the noise window
// until the crossing point settles. Its result bounds the Schroeder integral (schroeder.h) and
// models the part of the decay that the noise hides, which the integral adds back.
#pragma once

#include <span>

namespace ardent::auralize {

struct NoiseEstimate {
    // Mean square of the background noise, in the units of the squared IR; 0 when the end of the
    // response is exactly zero (no noise at all).
    double noise = 0;
    // Where the decay meets the noise: seconds from the first sample of the energy given. The
    // response's length when no crossing was found.
    double truncation_s = 0;
    // The decay fitted just above the noise, as it continues below it from the truncation point:
    // mean square there (about `noise`, where the two cross) and rate of decay of the mean
    // square (1/s). Both 0 when no decay could be fitted (too little dynamic range); then nothing
    // is added beyond the truncation.
    double tail_level = 0;
    double tail_rate = 0;
    int iterations = 0;      // refinements after the preliminary estimate (at most 5)
    bool converged = false;  // the crossing point moved by less than one averaging interval
};

// `energy` is the squared band-filtered IR from the onset of the direct sound on, at `fs`;
// `first_interval_s` the averaging interval of the preliminary estimate (the paper suggests
// 10-50 ms; the analysis uses longer ones for the lowest bands, whose squared signal ripples at
// twice their centre frequency).
NoiseEstimate lundeby(std::span<const double> energy, double fs, double first_interval_s);

}  // namespace ardent::auralize
