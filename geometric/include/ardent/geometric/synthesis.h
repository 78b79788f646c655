// From the geometric engine's results to an impulse response in the IR convention
// (docs/output-format.md: a unit monopole's free-field direct sound sums to 1 / (4 pi r)) at a
// chosen sample rate, time zero the emission (docs/full-band.md, "Synthesis"). Each band gets the
// specular paths as band-limited impulses at their exact (fractional) arrival times, and
// Gaussian noise shaped to the ray tracer's energy envelope; the bands are then split by
// zero-phase filters that sum to one (half-octave raised-cosine transitions around the band
// edges), so a path whose factor is the same in every band comes out as a plain impulse.
#pragma once

#include <cstdint>
#include <vector>

#include "ardent/geometric/image_sources.h"
#include "ardent/geometric/ray_tracer.h"

namespace ardent::geometric {

struct SynthesisSettings {
    double sample_rate = 48000;
    size_t samples = 48000;
    double speed_of_sound = 343.0;
    uint64_t seed = 1;  // the noise
};

std::vector<float> synthesize_ir(const std::vector<SpecularPath>& paths,
                                 const EnergyHistogram& diffuse, const SynthesisSettings& s);

// The same IR as AmbiX channels up to `order` (0-3; ACN order, SN3D, directions.h), in the
// model's axes: each specular path encoded in its arrival direction, and the diffuse part as
// kDirections independent noises, each shaped to its direction's share of the envelope (the
// histogram's directional bins, which order > 0 needs: std::invalid_argument without them) and
// encoded in that direction. Channel 0 (W) is the omnidirectional IR; with directional bins its
// noise is the sum of the directions' (the same envelope, another realisation than
// synthesize_ir's single noise on a histogram without them).
std::vector<std::vector<float>> synthesize_ambisonic_ir(const std::vector<SpecularPath>& paths,
                                                        const EnergyHistogram& diffuse,
                                                        const SynthesisSettings& s, int order);

// The band-split filters' gain for band b at frequency hz (they sum to 1 at every frequency).
double band_weight(int b, double hz);

}  // namespace ardent::geometric
