// Octave and one-third-octave band-pass filters for room-acoustic analysis (ISO 3382-1 asks for
// filters to IEC 61260). Mid-band frequencies are base 10 (G = 10^(3/10)), band edges lie at
// G^(+-1/2b) around them, and each band is a 6th-order Butterworth band-pass (three second-order
// sections) designed in double precision by the bilinear transform with both edges pre-warped.
// The bilinear transform bends a band's lower skirt as its upper edge nears the Nyquist frequency,
// so bands with an upper edge above 0.16 fs are designed and run at 2 or 4 times the rate, on the
// signal upsampled by libsamplerate; that way every band filter_bank() returns meets the class 1
// acceptance limits of IEC 61260-1:2014 (and of the stricter 1995 edition). Filtering runs forward
// or time-reversed; why the analysis reverses is in docs/analysis.md.
#pragma once

#include <array>
#include <span>
#include <vector>

namespace ardent::auralize {

enum class Bands { Octave, Third };

// y[n] = b0 x[n] + b1 x[n-1] + b2 x[n-2] - a1 y[n-1] - a2 y[n-2]
struct Biquad {
    double b0 = 1, b1 = 0, b2 = 0, a1 = 0, a2 = 0;
};

struct BandFilter {
    double nominal_hz = 0;  // the band's name: 63, 125, ... (IEC 61260-1 Annex E)
    double exact_hz = 0;    // exact mid-band frequency 1000 G^(x/b)
    double lower_hz = 0, upper_hz = 0;
    double sample_rate = 0;  // the rate the sections run at: oversampling times the signal's
    int oversampling = 1;
    std::array<Biquad, 3> sections;

    // |H(f)|: the gain at frequency f (Hz); 1 at the Butterworth peak, which lies within a few
    // thousandths of a decibel of 1 at the exact mid-band frequency.
    double gain(double f_hz) const;
};

// Designs one band: the 1/fraction-octave band (fraction 1 or 3) around exact_hz. Throws
// std::invalid_argument when the upper edge is not below the Nyquist frequency.
BandFilter design_band(double exact_hz, int fraction, double sample_rate);

// The analysis bands for a signal at sample_rate: octaves 63 Hz-8 kHz or one-third octaves
// 50 Hz-10 kHz, without those whose upper edge lies above 0.45 sample_rate (where the resampler's
// own roll-off would start to cut into the band). May be empty for very low rates.
std::vector<BandFilter> filter_bank(Bands bands, double sample_rate);

enum class Direction {
    Forward,
    // Filters the time-reversed signal and reverses the result: the same magnitude response, but
    // the filter's own ringing lands before each event instead of after it.
    TimeReversed,
};

// Runs the sections over x, which must be at band.sample_rate.
std::vector<double> filter(const BandFilter& band, std::span<const double> x, Direction direction);

// The band's part of a signal at sample_rate (the rate filter_bank() was given): upsampled first
// when the band is oversampled, so the result is at band.sample_rate.
std::vector<double> band_signal(const BandFilter& band, std::span<const float> x,
                                Direction direction);

}  // namespace ardent::auralize
