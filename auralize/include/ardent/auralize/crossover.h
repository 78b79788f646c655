// The join of a full-band IR from two solvers (docs/full-band.md, "Crossover"): the wave
// solver's IR below a crossover frequency and the geometric engine's above it, split by
// zero-phase filters that sum to exactly one (a raised cosine in log frequency over half an
// octave centred on the crossover). Zero phase keeps the IR convention's time origin, and where
// the two IRs agree the join returns either of them unchanged.
#pragma once

#include <span>
#include <vector>

namespace ardent::auralize {

// The low part's gain at hz: 1 below the transition, 0 above it; the high part's is 1 minus it.
double crossover_low_gain(double hz, double crossover_hz);

// Which solver a band [lower_hz, upper_hz] of a full-band IR came from: the wave solver's wholly
// below the transition, the geometric engine's wholly above it, both where it overlaps it.
enum class BandOrigin { Wave, Geometric, Both };
BandOrigin band_origin(double lower_hz, double upper_hz, double crossover_hz);
// "wave", "geometric", "wave+geometric" (result.json, `ardent analyze --json`).
const char* to_string(BandOrigin origin);

// low * L + high * (1 - L), both at `sample_rate` and as long as each other (std::invalid_argument
// otherwise); the result is as long.
std::vector<float> join_at_crossover(std::span<const float> low, std::span<const float> high,
                                     double sample_rate, double crossover_hz);

}  // namespace ardent::auralize
