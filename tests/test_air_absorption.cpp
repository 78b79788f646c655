// Air absorption (ISO 9613-1) and the post-process that applies it to delivered IRs, with the
// sub-sample advance that puts an IR's time zero at the emission: the attenuation coefficient
// against the standard's published table, the filter against the exact attenuation and delay of a
// synthetic pulse, and `ardent simulate`'s WAVs with absorption on and off against the
// attenuation over the source-receiver distance (read back from the files).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/air_absorption.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/preprocess/atmosphere.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/scene_parser.h"
#include "signal_tools.h"
#include "test_support.h"

namespace ardent::test {
namespace {

// ISO 9613-2:1996, Table 2: atmospheric attenuation (dB/km) at the octave bands' exact mid-band
// frequencies 63-8000 Hz, printed to three figures (0.1 dB/km below 10), computed by ISO 9613-1.
struct TableRow {
    double temperature_c, humidity;
    double db_per_km[8];
};
constexpr TableRow kIso9613Table2[] = {
    {10, 70, {0.1, 0.4, 1.0, 1.9, 3.7, 9.7, 32.8, 117}},
    {20, 70, {0.1, 0.3, 1.1, 2.8, 5.0, 9.0, 22.9, 76.6}},
    {30, 70, {0.1, 0.3, 1.0, 3.1, 7.4, 12.7, 23.1, 59.3}},
    {15, 20, {0.3, 0.6, 1.2, 2.7, 8.2, 28.2, 88.8, 202}},
    {15, 50, {0.1, 0.5, 1.2, 2.2, 4.2, 10.8, 36.2, 129}},
    {15, 80, {0.1, 0.3, 1.1, 2.4, 4.1, 8.3, 23.7, 82.8}},
};

TEST(AirAbsorption, MatchesTheIsoTable) {
    for (const TableRow& row : kIso9613Table2) {
        Atmosphere air;
        air.temperature_c = row.temperature_c;
        air.relative_humidity = row.humidity;
        for (int k = 0; k < 8; ++k) {
            const double f = 1000.0 * std::pow(10.0, 0.3 * (k - 4));  // exact mid-band, 63.1 Hz...
            const double got = 1000.0 * air_attenuation_db_per_m(f, air);
            const double want = row.db_per_km[k];
            // The table's rounding: half a unit of its last printed figure.
            const double rounding = want < 10 ? 0.05 : want < 100 ? 0.05 : 0.5;
            EXPECT_NEAR(got, want, rounding + 1e-3 * want)
                << row.temperature_c << " C, " << row.humidity << " %, " << f << " Hz";
        }
    }
}

TEST(AirAbsorption, SpeedOfSoundFollowsTemperature) {
    EXPECT_NEAR(speed_of_sound_at(20.0), 343.2, 0.05);
    EXPECT_NEAR(speed_of_sound_at(0.0), 331.3, 1e-9);
}

// A band-limited pulse (Hann-windowed sinc, cut-off fc) centred at t0 seconds.
std::vector<float> pulse(size_t n, double fs, double t0, double fc) {
    std::vector<float> x(n, 0.0f);
    const double half = 40.0 / fs;
    for (size_t i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) / fs - t0;
        if (std::fabs(t) >= half) continue;
        const double a = 2 * std::numbers::pi * fc * t;
        const double sinc = a == 0 ? 1.0 : std::sin(a) / a;
        const double w = std::pow(std::cos(std::numbers::pi * t / (2 * half)), 2);
        x[i] = static_cast<float>(sinc * w);
    }
    return x;
}

std::vector<double> as_double(const std::vector<float>& x) {
    return {x.begin(), x.end()};
}

// Gain of y relative to x at frequency f, from their spectra over the same window.
double gain_db(const std::vector<float>& x, const std::vector<float>& y, double fs, double f) {
    const Spectrum sx = magnitude_spectrum(as_double(x), fs, Window::Rectangular, 4);
    const Spectrum sy = magnitude_spectrum(as_double(y), fs, Window::Rectangular, 4);
    const auto k = static_cast<size_t>(std::llround(f / sx.df));
    return 20 * std::log10(sy.magnitude[k] / sx.magnitude[k]);
}

TEST(AirAbsorption, FilterAttenuatesAPulseByItsTravelTime) {
    // Pulses after 3, 40 and 300 m of travel in three atmospheres, 125 Hz to 16 kHz at 48 kHz
    // (and to 4 kHz at a solver's rate of 13 kHz), wherever the attenuation is within 60 dB
    // (below that the float32 pulse has no precision left).
    const double c = 343.0;
    for (const double fs : {48000.0, 13000.0})
        for (const auto& [temperature, humidity] :
             {std::pair{20.0, 50.0}, {10.0, 30.0}, {30.0, 80.0}}) {
            Atmosphere air;
            air.temperature_c = temperature;
            air.relative_humidity = humidity;
            const auralize::PropagationFilter filter(fs, air, c, 0.0);
            for (const double r : {3.1, 40.0, 300.0}) {
                const double t0 = r / c;
                const std::vector<float> x =
                    pulse(static_cast<size_t>(t0 * fs) + 4096, fs, t0, 0.41 * fs);
                const std::vector<float> y = filter.apply(x);
                for (double f = 125; f <= 0.34 * fs; f *= 2) {
                    const double want = -air_attenuation_db_per_m(f, air) * r;
                    if (want < -60) continue;
                    EXPECT_NEAR(gain_db(x, y, fs, f), want, std::max(1e-4, 0.01 * -want))
                        << fs << " Hz rate, " << temperature << " C, " << humidity << " %, " << r
                        << " m, " << f << " Hz";
                }
            }
        }
}

TEST(AirAbsorption, AdvanceIsBandLimitedAndExact) {
    // A pulse late by a fraction of a sample (and by several), advanced back: the pulse at t0.
    const double fs = 48000;
    Atmosphere still;
    still.absorption = false;
    for (const double late : {0.37, 0.5, 0.93, 2.6}) {
        const double t0 = 0.0123;
        const std::vector<float> x = pulse(2048, fs, t0 + late / fs, 16000.0);
        const std::vector<float> want = pulse(2048, fs, t0, 16000.0);
        const auralize::PropagationFilter filter(fs, still, 343.0, late / fs);
        ASSERT_FALSE(filter.identity());
        const std::vector<float> got = filter.apply(x);
        double worst = 0;
        for (size_t i = 0; i < got.size(); ++i)
            worst = std::max(worst,
                             std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i])));
        EXPECT_LT(worst, 1e-4) << "advance by " << late << " samples";
    }
    EXPECT_TRUE(auralize::PropagationFilter(fs, still, 343.0, 0.0).identity());
    EXPECT_THROW(auralize::PropagationFilter(fs, still, 343.0, -1e-3), std::invalid_argument);
}

// The scene keys: defaults, a temperature setting the speed of sound unless it is given, and
// bad values named by their key.
TEST(AirAbsorption, SceneKeys) {
    const auto scene = [](const std::string& air,
                          const std::string& sim = R"({"max_frequency": 500})") {
        std::string text = box_scene_json(sim);
        if (!air.empty()) text.insert(text.rfind('}'), R"(, "air": )" + air);
        return parse_scene(text, "air.json");
    };
    const Scene plain = scene("");
    EXPECT_EQ(plain.air, Atmosphere{});
    EXPECT_EQ(plain.simulation.speed_of_sound, 343.0);
    const Scene warm = scene(R"({"temperature": 30, "humidity": 20, "pressure": 95})");
    EXPECT_EQ(warm.air.temperature_c, 30);
    EXPECT_EQ(warm.air.relative_humidity, 20);
    EXPECT_EQ(warm.air.pressure_kpa, 95);
    EXPECT_NEAR(warm.simulation.speed_of_sound, speed_of_sound_at(30), 1e-12);
    const Scene given =
        scene(R"({"temperature": 30})", R"({"max_frequency": 500, "speed_of_sound": 340})");
    EXPECT_EQ(given.simulation.speed_of_sound, 340);
    EXPECT_FALSE(scene(R"({"absorption": false})").air.absorption);
    const auto message = [&](const std::string& air) {
        try {
            scene(air);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_EQ(message(R"({"humidity": 120})"),
              "air.json: air.humidity: expected 0 to 100 % relative humidity, got 120");
    EXPECT_EQ(message(R"({"temperature": "warm"})"),
              "air.json: air.temperature: expected a number, got the string \"warm\"");
    EXPECT_EQ(message(R"({"absorption": 1})"),
              "air.json: air.absorption: expected true or false, got 1");
    EXPECT_NE(message(R"({"humidty": 50})").find("did you mean \"humidity\""), std::string::npos);
}

// What `ardent simulate` writes: the same free-field run with absorption on and off (dry air, so
// that it is large), the ratio of the receiver WAVs' spectra against ISO 9613-1 over the distance
// between the source's and receiver's cells.
TEST(AirAbsorption, SimulateAttenuatesTheWavsByTheDistance) {
    ScratchDir dir;
    const auto run = [&](bool absorption) {
        const std::string name = absorption ? "on" : "off";
        const std::string text = R"({
  "format": "ardent-scene/1",
  "geometry": {"box": [5.0, 2.4, 2.4]},
  "materials": {"open": {"absorption": 1.0}},
  "surfaces": {"*": "open"},
  "sources": [{"name": "S", "position": [0.9, 1.2, 1.2]}],
  "receivers": [{"name": "R", "position": [4.1, 1.3, 1.1]}],
  "air": {"temperature": 20, "humidity": 5, "absorption": )" +
                                 std::string(absorption ? "true" : "false") + R"(},
  "simulation": {"band": "wave", "max_frequency": 2000, "duration": 0.04}
})";
        const auto scene = dir.write(name + ".json", text);
        const CommandResult r = run_ardent(
            "simulate " + scene.string() + " -o " + (dir / name).string() + " --threads 2",
            dir.path());
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return dir / name;
    };
    const auto on = run(true), off = run(false);
    const auto a = audio::read_audio(on / "ir" / "S_R.wav");
    const auto b = audio::read_audio(off / "ir" / "S_R.wav");
    ASSERT_EQ(a.samples.size(), b.samples.size());
    const nlohmann::json result = nlohmann::json::parse(std::ifstream(on / "result.json"));
    const auto& s = result["sources"][0]["cell_centre"];
    const auto& q = result["receivers"][0]["cell_centre"];
    double r2 = 0;
    for (int i = 0; i < 3; ++i)
        r2 += std::pow(s[i].get<double>() - q[i].get<double>(), 2);
    const double r = std::sqrt(r2);
    // The "off" WAV attenuated by ISO 9613-1 over the distance (a zero-phase filter applied by
    // a direct Fourier transform) must be the "on" WAV, over 3 ms around the direct sound (the
    // nearest reflection of the absorbing layers comes 2.1 ms later). Compared with how much the
    // absorption changes the WAV: the residual must be a small part of that change.
    const double fs = a.sample_rate, c = result["settings"]["speed_of_sound"].get<double>();
    Atmosphere dry;
    dry.relative_humidity = 5;
    const size_t n = b.samples.size();
    std::vector<double> expected(n, 0.0);
    for (size_t k = 0; k <= n / 2; ++k) {
        const double f = static_cast<double>(k) * fs / static_cast<double>(n);
        std::complex<double> x = 0;
        for (size_t i = 0; i < n; ++i)
            x += static_cast<double>(b.samples[i]) *
                 std::polar(1.0, -2 * std::numbers::pi * static_cast<double>(k * i % n) /
                                     static_cast<double>(n));
        x *= std::pow(10.0, -air_attenuation_db_per_m(f, dry) * r / 20) / static_cast<double>(n);
        const double weight = (k == 0 || 2 * k == n) ? 1.0 : 2.0;
        for (size_t i = 0; i < n; ++i)
            expected[i] += weight * (x * std::polar(1.0, 2 * std::numbers::pi *
                                                             static_cast<double>(k * i % n) /
                                                             static_cast<double>(n)))
                                        .real();
    }
    const double mid = r / c * fs, half = 0.0015 * fs;
    double residual = 0, change = 0;
    for (size_t i = 0; i < n; ++i) {
        if (std::fabs(static_cast<double>(i) - mid) > half) continue;
        residual += std::pow(static_cast<double>(a.samples[i]) - expected[i], 2);
        change +=
            std::pow(static_cast<double>(a.samples[i]) - static_cast<double>(b.samples[i]), 2);
    }
    ASSERT_GT(change, 0) << "absorption changed nothing";
    std::printf("air absorption over %.3f m: residual %.4f of the change\n", r,
                std::sqrt(residual / change));
    EXPECT_LT(std::sqrt(residual / change), 0.05) << "over " << r << " m";
}

}  // namespace
}  // namespace ardent::test
