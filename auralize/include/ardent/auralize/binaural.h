// Binaural rendering of ambisonics through an HRTF set (first order below; up to third order with
// the same method, make_binaural_decoder). The decoder feeds eight
// virtual loudspeakers at the corners of a cube (elevations +-35.3 degrees, inside the range that
// common HRTF sets measure) with max-rE weights, and convolves each with its HRIR pair. Being
// linear, it folds into one filter pair per ambisonic channel; a binaural room impulse response
// is then the sum over channels of FOA channel * filter.
//
// The filters are diffuse-field equalised: the decoder's response to a diffuse field (plane waves
// from 600 directions spread evenly over the sphere, both ears) is made flat, with at most 24 dB of
// boost re its 200 Hz - 2 kHz mean. That removes the colouration that summing several HRIRs adds,
// the dummy head's own diffuse-field response and the measurement's low-frequency roll-off (the
// MIT KEMAR set falls by about 17 dB from 200 Hz to 50 Hz), while keeping every interaural time
// and level difference (one common equaliser for all directions and both ears). The result suits
// headphones with a diffuse-field target.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "ardent/auralize/ambisonics.h"
#include "ardent/auralize/hrtf.h"

namespace ardent::auralize {

struct FoaBinauralDecoder {
    double sample_rate = 0;
    // filters[acn][ear], ear 0 left, 1 right; each filter is delayed by `lead` samples so that
    // the zero-phase equaliser stays causal. binaural_ir() takes the lead off again.
    std::array<std::array<std::vector<float>, 2>, 4> filters;
    size_t lead = 0;
};

FoaBinauralDecoder make_foa_binaural_decoder(const HrtfSet& hrtf);

// The same for AmbiX of order 1 to 3 (ambix.h): first order exactly the decoder above; orders 2
// and 3 feed 2 (N + 1)^2 virtual loudspeakers spread evenly over the sphere (a Fibonacci lattice)
// with max-rE order weights, diffuse-field equalised the same way. filters[acn][ear].
struct AmbisonicBinauralDecoder {
    double sample_rate = 0;
    int order = 1;
    std::vector<std::array<std::vector<float>, 2>> filters;
    size_t lead = 0;
};
AmbisonicBinauralDecoder make_binaural_decoder(const HrtfSet& hrtf, int order);

// Left and right ear IRs: sum over ACN channels of foa.channels[acn] * filters[acn][ear], without
// the decoder's lead. foa and the decoder must have the same sample rate (std::invalid_argument).
std::array<std::vector<float>, 2> binaural_ir(const FoaIr& foa, const FoaBinauralDecoder& decoder);
// An AmbiX IR of up to the decoder's order (its channels in ACN order, equal lengths, at
// `sample_rate`).
std::array<std::vector<float>, 2> binaural_ir(const std::vector<std::vector<float>>& channels,
                                              double sample_rate,
                                              const AmbisonicBinauralDecoder& decoder);

}  // namespace ardent::auralize
