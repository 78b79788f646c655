// The analysis filter bank (ardent::auralize::filter_bank): every band's relative attenuation at
// the breakpoint frequencies of IEC 61260-1 against the class 1 acceptance limits, at common
// sample rates; the band sets; the pre-warped -3 dB edges; why the top bands run oversampled; the
// response of the whole path (resampler and filter) on sines; and time-reversed filtering.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "ardent/auralize/filter_bank.h"

namespace ardent::auralize {
namespace {

const double kG = std::pow(10.0, 0.3);  // base-10 octave ratio
constexpr double kInf = std::numeric_limits<double>::infinity();

// One row of a class 1 table: at the octave-band normalised frequency G^x (and at 1 / G^x), the
// relative attenuation (dB, referred to the exact mid-band frequency) must lie in [min, max].
struct Limit {
    double x, min, max;
};

// IEC 61260-1:2014, Table 1, class 1. At G^(1/2), the band edge, the pass-band row (at most
// +5.3 dB) and the stop-band row (at least +1.2 dB) meet; both apply there.
const std::vector<Limit> kClass1Of2014 = {
    {0, -0.4, 0.4},  {0.125, -0.4, 0.5}, {0.25, -0.4, 0.7}, {0.375, -0.4, 1.4}, {0.5, 1.2, 5.3},
    {1, 16.6, kInf}, {2, 40.5, kInf},    {3, 60, kInf},     {4, 70, kInf},      {5, 70, kInf},
};
// IEC 61260:1995 (= ANSI S1.11-2004), Table 1, class 1: tighter in the pass band and near the
// edge, and in the first stop-band octaves.
const std::vector<Limit> kClass1Of1995 = {
    {0, -0.3, 0.3},  {0.125, -0.3, 0.4}, {0.25, -0.3, 0.6}, {0.375, -0.3, 1.3}, {0.5, 2.0, 5.0},
    {1, 17.5, kInf}, {2, 42, kInf},      {3, 61, kInf},     {4, 70, kInf},      {5, 70, kInf},
};

// IEC 61260-1:2014 Formula (9): a breakpoint G^x of the octave-band table, for bandwidth 1/b
// octave, lies at 1 + (G^(1/2b) - 1) / (G^(1/2) - 1) * (G^x - 1) above the mid-band frequency,
// and at its reciprocal below.
double breakpoint(double x, int b) {
    return 1 + (std::pow(kG, 1.0 / (2 * b)) - 1) / (std::sqrt(kG) - 1) * (std::pow(kG, x) - 1);
}

// The smallest margin (dB) of a band to a table, over the breakpoints below its Nyquist
// frequency; negative when a limit is broken.
double margin(const BandFilter& band, int b, const std::vector<Limit>& table) {
    const double ref = -20 * std::log10(band.gain(band.exact_hz));
    double worst = kInf;
    for (const Limit& l : table) {
        for (double ratio : {breakpoint(l.x, b), 1 / breakpoint(l.x, b)}) {
            const double f = band.exact_hz * ratio;
            if (f >= band.sample_rate / 2) continue;
            const double a = -20 * std::log10(band.gain(f)) - ref;
            worst = std::min({worst, a - l.min, l.max - a});
        }
    }
    return worst;
}

const double kRates[] = {8000, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 192000};

TEST(FilterBank, EveryBandMeetsClass1OfIec61260) {
    for (double fs : kRates)
        for (Bands bands : {Bands::Octave, Bands::Third}) {
            const int b = bands == Bands::Octave ? 1 : 3;
            for (const BandFilter& band : filter_bank(bands, fs)) {
                SCOPED_TRACE(std::to_string(fs) + " Hz, 1/" + std::to_string(b) + " octave " +
                             std::to_string(band.nominal_hz) + " Hz");
                EXPECT_GE(margin(band, b, kClass1Of2014), 0);
                EXPECT_GE(margin(band, b, kClass1Of1995), 0);
            }
        }
}

TEST(FilterBank, BandSets) {
    const auto names = [](Bands bands, double fs) {
        std::vector<double> v;
        for (const BandFilter& b : filter_bank(bands, fs))
            v.push_back(b.nominal_hz);
        return v;
    };
    const std::vector<double> octaves = {63, 125, 250, 500, 1000, 2000, 4000, 8000};
    EXPECT_EQ(names(Bands::Octave, 48000), octaves);
    EXPECT_EQ(names(Bands::Octave, 44100), octaves);
    const std::vector<double> thirds = {50,   63,   80,   100,  125,  160,  200,  250,
                                        315,  400,  500,  630,  800,  1000, 1250, 1600,
                                        2000, 2500, 3150, 4000, 5000, 6300, 8000, 10000};
    EXPECT_EQ(names(Bands::Third, 48000), thirds);
    EXPECT_EQ(names(Bands::Third, 44100), thirds);
    // 16 kHz: the 8 kHz octave's upper edge (11.2 kHz) is above the Nyquist frequency.
    EXPECT_EQ(names(Bands::Octave, 16000).back(), 4000);
    EXPECT_TRUE(filter_bank(Bands::Octave, 100).empty());
    // Exact mid-band frequencies are 1000 G^(x/b).
    for (const BandFilter& band : filter_bank(Bands::Third, 48000)) {
        const double x = std::round(3 * std::log(band.exact_hz / 1000) / std::log(kG));
        EXPECT_NEAR(band.exact_hz, 1000 * std::pow(kG, x / 3), 1e-9 * band.exact_hz);
        EXPECT_NEAR(band.nominal_hz / band.exact_hz, 1, 0.03);
    }
}

TEST(FilterBank, EdgesAreAtMinus3Db) {
    for (const BandFilter& band : filter_bank(Bands::Octave, 44100)) {
        SCOPED_TRACE(band.nominal_hz);
        EXPECT_NEAR(20 * std::log10(band.gain(band.lower_hz)), -3.0103, 1e-3);
        EXPECT_NEAR(20 * std::log10(band.gain(band.upper_hz)), -3.0103, 1e-3);
        EXPECT_NEAR(20 * std::log10(band.gain(band.exact_hz)), 0, 0.01);
    }
}

// Designed at the signal's own rate, the top bands would fail class 1 on their lower skirt,
// which the bilinear transform widens near the Nyquist frequency; filter_bank() runs them at a
// multiple of the rate instead.
TEST(FilterBank, TopBandsNeedOversampling) {
    const BandFilter at_rate = design_band(1000 * std::pow(kG, 3), 1, 44100);  // 8 kHz octave
    EXPECT_LT(margin(at_rate, 1, kClass1Of2014), 0);
    const BandFilter top = filter_bank(Bands::Octave, 44100).back();
    EXPECT_EQ(top.nominal_hz, 8000);
    EXPECT_EQ(top.oversampling, 2);
    EXPECT_EQ(top.sample_rate, 88200);
    EXPECT_EQ(filter_bank(Bands::Octave, 44100).front().oversampling, 1);
}

// The path the analysis takes, resampler included, passes sines with the designed gain.
TEST(FilterBank, SinesThroughTheWholePathGetTheDesignedGain) {
    constexpr double fs = 44100;
    const std::vector<BandFilter> bank = filter_bank(Bands::Octave, fs);
    for (const BandFilter* band : {&bank[4], &bank.back()}) {  // 1 kHz, and 8 kHz oversampled
        for (double ratio : {1.0, breakpoint(0.25, 1), 1 / breakpoint(0.375, 1), breakpoint(0.5, 1),
                             1 / breakpoint(1, 1)}) {
            const double f = band->exact_hz * ratio;
            if (f > 0.45 * fs) continue;
            SCOPED_TRACE(std::to_string(band->nominal_hz) + " Hz band, sine at " +
                         std::to_string(f));
            std::vector<float> x(static_cast<size_t>(fs));
            for (size_t i = 0; i < x.size(); ++i)
                x[i] = static_cast<float>(
                    std::sin(2 * std::numbers::pi * f * static_cast<double>(i) / fs));
            const std::vector<double> y = band_signal(*band, x, Direction::Forward);
            // RMS over the middle half, away from the start and end transients.
            double sum = 0;
            const size_t n = y.size();
            for (size_t i = n / 4; i < 3 * n / 4; ++i)
                sum += y[i] * y[i];
            const double gain_db = 10 * std::log10(sum / static_cast<double>(n / 2) / 0.5);
            EXPECT_NEAR(gain_db, 20 * std::log10(band->gain(f)), 0.02);
        }
    }
}

// Reversed filtering has the forward filter's magnitude response but puts the ringing before an
// event: after an impulse the reversed output is zero, before it the forward output is.
TEST(FilterBank, TimeReversedFilteringRingsBeforeTheEvent) {
    const BandFilter band = filter_bank(Bands::Octave, 48000)[2];  // 250 Hz
    std::vector<double> x(48000, 0.0);
    x[24000] = 1;
    const std::vector<double> fwd = filter(band, x, Direction::Forward);
    const std::vector<double> rev = filter(band, x, Direction::TimeReversed);
    double fwd_before = 0, fwd_after = 0, rev_before = 0, rev_after = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        (i < 24000 ? fwd_before : fwd_after) += fwd[i] * fwd[i];
        (i > 24000 ? rev_after : rev_before) += rev[i] * rev[i];
    }
    EXPECT_EQ(fwd_before, 0);
    EXPECT_EQ(rev_after, 0);
    EXPECT_NEAR(rev_before / fwd_after, 1, 1e-9);
    // The reversed response is the forward one mirrored.
    for (size_t k = 0; k < 2000; ++k)
        EXPECT_NEAR(rev[24000 - k], fwd[24000 + k], 1e-12);
}

}  // namespace
}  // namespace ardent::auralize
