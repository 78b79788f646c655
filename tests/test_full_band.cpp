// Full-band IRs (docs/full-band.md): the crossover join itself, result.json's account of it,
// and the two halves describing the same room — in the octave band that holds the crossover, the
// wave solver's IRs (a "wave" run) and the geometric engine's (a "full" run with the crossover
// moved below that band) have the same energy and T20, read from the WAVs `ardent simulate`
// writes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/crossover.h"
#include "ardent/auralize/filter_bank.h"
#include "full_band_check.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // the order of "surfaces" matters
using ardent::test::run_ardent;
using ardent::test::ScratchDir;

TEST(Crossover, JoinOfOneIrIsThatIr) {
    std::mt19937 rng(5);
    std::normal_distribution<float> n(0, 1);
    std::vector<float> x(20000);
    for (float& v : x)
        v = n(rng);
    const auto y = ardent::auralize::join_at_crossover(x, x, 48000, 700);
    double err = 0, ref = 0;
    for (size_t k = 0; k < x.size(); ++k) {
        const double d = static_cast<double>(y[k]) - static_cast<double>(x[k]);
        err += d * d;
        ref += static_cast<double>(x[k]) * static_cast<double>(x[k]);
    }
    EXPECT_LT(std::sqrt(err / ref), 1e-6);
}

TEST(Crossover, TakesTheLowIrBelowAndTheHighIrAbove) {
    const double fs = 48000, fc = 800;
    const size_t n = 48000;
    std::vector<float> low(n), high(n);
    // A 200 Hz tone in the low IR, 3 kHz in the high one, and each the other's frequency too:
    // only the first of each should survive.
    for (size_t k = 0; k < n; ++k) {
        const double t = static_cast<double>(k) / fs;
        low[k] = static_cast<float>(std::sin(2 * std::numbers::pi * 200 * t) +
                                    std::sin(2 * std::numbers::pi * 3000 * t));
        high[k] = static_cast<float>(2 * std::sin(2 * std::numbers::pi * 200 * t) +
                                     2 * std::sin(2 * std::numbers::pi * 3000 * t));
    }
    const auto y = ardent::auralize::join_at_crossover(low, high, fs, fc);
    double err = 0, ref = 0;
    for (size_t k = n / 4; k < 3 * n / 4; ++k) {
        const double t = static_cast<double>(k) / fs;
        const double want = std::sin(2 * std::numbers::pi * 200 * t) +
                            2 * std::sin(2 * std::numbers::pi * 3000 * t);
        const double d = static_cast<double>(y[k]) - want;
        err += d * d;
        ref += want * want;
    }
    EXPECT_LT(std::sqrt(err / ref), 1e-3);
    EXPECT_DOUBLE_EQ(ardent::auralize::crossover_low_gain(fc, fc), 0.5);
    EXPECT_DOUBLE_EQ(ardent::auralize::crossover_low_gain(fc * std::pow(2.0, -0.26), fc), 1.0);
    EXPECT_DOUBLE_EQ(ardent::auralize::crossover_low_gain(fc * std::pow(2.0, 0.26), fc), 0.0);
}

double band_energy_db(const ardent::audio::Audio& a, double hz) {
    const auto band = ardent::auralize::design_band(hz, 1, a.sample_rate);
    const auto mono = a.channel(0);
    const auto y =
        ardent::auralize::band_signal(band, mono, ardent::auralize::Direction::TimeReversed);
    double e = 0;
    for (double v : y)
        e += v * v;
    return 10 * std::log10(e);
}

// What a listener hears: the bundled dry singer rendered through a full-band IR keeps the dry
// signal's octave levels shaped by the room's, up to 8 kHz. The expected level of each octave is
// the dry signal's plus the IR's mean |H|^2 over the octave (its band energy over 2 B / fs);
// both spectra are taken relative to the 500 Hz octave.
TEST(FullBand, RenderedSingerKeepsTheDrySignalsOctavesTo8kHz) {
    ScratchDir dir;
    dir.write("room.json", ardent::test::box_scene_json(
                               R"({"max_frequency": 500, "duration": 1.0, "band": "full"})"));
    ASSERT_EQ(run_ardent("simulate room.json -o out --quiet", dir.path()).exit_code, 0);
    const fs::path dry =
        ardent::test::source_dir() / "data" / "audio" / "openair-singing-anechoic-48k.wav";
    const auto r = run_ardent(
        "auralize " + dry.string() + " out/ir/S1_R1.wav -o wet.wav --normalize none", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto x = ardent::audio::read_audio(dry);
    const auto h = ardent::audio::read_audio(dir / "out" / "ir" / "S1_R1.wav");
    const auto y = ardent::audio::read_audio(dir / "wet.wav");
    std::vector<double> expected, got;
    for (double hz : {125.0, 250.0, 500.0, 1000.0, 2000.0, 4000.0, 8000.0}) {
        const double b = hz * (std::sqrt(2.0) - 1 / std::sqrt(2.0));
        expected.push_back(band_energy_db(x, hz) + band_energy_db(h, hz) +
                           10 * std::log10(h.sample_rate / (2 * b)));
        got.push_back(band_energy_db(y, hz));
    }
    for (size_t k = 0; k < got.size(); ++k) {
        const double e = expected[k] - expected[2], g = got[k] - got[2];
        std::printf("%5.0f Hz octave: rendered %+6.1f dB, dry x room %+6.1f dB (re 500 Hz)\n",
                    125 * std::pow(2.0, static_cast<double>(k)), g, e);
        EXPECT_NEAR(g, e, 10.0);
    }
}

class FullBandContinuity : public testing::TestWithParam<ardent::test::Continuity> {};

TEST_P(FullBandContinuity, WaveAndGeometricHalvesAgreeInTheCrossoverBand) {
    ardent::test::expect_full_band_continuity(GetParam());
}

// The long suite (test_full_band_long.cpp) runs the L-shaped room and the studio.
INSTANTIATE_TEST_SUITE_P(Scenes, FullBandContinuity,
                         testing::Values(ardent::test::Continuity{"shoebox.json", 1000}),
                         [](const auto& p) {
                             return p.param.scene.substr(0, p.param.scene.find('.'));
                         });

}  // namespace
