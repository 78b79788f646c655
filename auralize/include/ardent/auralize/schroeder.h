// Schroeder backward integration of a band-filtered squared impulse response, with the background
// noise handled the way ISO 3382-1 allows and Lundeby et al. describe: the sum stops at the
// truncation point (lundeby.h), the noise's mean square is taken off every sample before it, and
// the modelled decay below the noise is added after it. From it come the decay curve and the
// reverberation times fitted to it, and the energies of ISO 3382-1's clarity, definition and
// centre time.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "ardent/auralize/lundeby.h"

namespace ardent::auralize {

class BackwardIntegral {
  public:
    // `energy`: the squared band signal at `fs`; `truncation`: the index in it where the
    // measured part ends (at most energy.size()); `noise`: the noise and tail to use.
    BackwardIntegral(std::span<const double> energy, double fs, size_t truncation,
                     const NoiseEstimate& noise);

    // The energy from sample n on (in squared-signal samples): the measured samples up to the
    // truncation less the noise, then the modelled tail. Defined for every n, also past the end.
    double from(size_t n) const;
    // The sum of max(0, m - origin) / fs times the energy of sample m, over every m including the
    // tail: the numerator of the centre time.
    double moment(size_t origin) const;
    size_t truncation() const { return sums_.size() - 1; }

  private:
    double fs_;
    std::vector<double> sums_;        // sums_[n] = from(n), for n up to the truncation
    std::vector<double> moments_;     // sum of m (e[m] - noise) from n to the truncation
    double tail_level_, tail_ratio_;  // the tail: tail_level_ tail_ratio_^(m - truncation)
};

// The decay curve from sample `start` to the truncation point: 10 lg(from(n) / from(start)).
// It ends early where the noise-subtracted sum stops being positive.
std::vector<double> decay_curve_db(const BackwardIntegral& integral, size_t start);

// The reverberation time from the least-squares line through the decay curve between its first
// fall to `from_db` and its first fall after that to `to_db` (ISO 3382-1: -5 and -25 dB for T20,
// -5 and -35 dB for T30, 0 and -10 dB for the EDT): 60 dB over the line's slope. nullopt when
// the curve does not reach to_db.
std::optional<double> decay_time(std::span<const double> curve_db, double fs, double from_db,
                                 double to_db);

}  // namespace ardent::auralize
