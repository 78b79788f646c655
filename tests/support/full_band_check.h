// The full-band continuity check shared by test_full_band.cpp (CI) and test_full_band_long.cpp:
// in the octave band that holds the default crossover, the wave solver's IRs (a "wave" run) and
// the geometric engine's (a "full" run with the crossover moved below that band) of a bundled
// scene, read from the WAVs `ardent simulate` writes, have the same energy and T20.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/filter_bank.h"
#include "signal_tools.h"
#include "test_support.h"

namespace ardent::test {

struct BandFigures {
    double energy_db = 0, t20 = 0;
};

// Energy (dB) and T20 of an IR in the octave band around `hz`: the band's Schroeder integral
// fitted from -5 to -25 dB (a simulated IR has no noise to remove).
inline BandFigures octave_figures(const std::filesystem::path& wav, double hz) {
    const auto a = ardent::audio::read_audio(wav);
    const auto band = ardent::auralize::design_band(hz, 1, a.sample_rate);
    const auto y =
        ardent::auralize::band_signal(band, a.samples, ardent::auralize::Direction::TimeReversed);
    std::vector<double> tail(y.size() + 1, 0.0);
    for (size_t k = y.size(); k-- > 0;)
        tail[k] = tail[k + 1] + y[k] * y[k];
    BandFigures f;
    f.energy_db = 10 * std::log10(tail[0]);
    std::vector<double> t, db;
    for (size_t k = 0; k < y.size(); ++k) {
        const double level = 10 * std::log10(tail[k] / tail[0]);
        if (level > -5 || level < -25) continue;
        t.push_back(static_cast<double>(k) / band.sample_rate);
        db.push_back(level);
    }
    f.t20 = -60 / least_squares_slope(t, db);
    return f;
}

struct Continuity {
    std::string scene;
    double max_frequency;
    std::string wave_solver = "";  // the wave run's solver; empty: the scene's
};

// The octave band holding the default crossover (0.6 f_max; at 1 kHz the 500 Hz octave, which
// ends at 707 Hz, inside the wave solver's flat band up to 800 Hz): the wave run and the geometric
// half agree per receiver in energy to 1.5 dB, and in T20 to 10 % on average over the receivers
// (a single receiver's T20 in one octave of a small room scatters by more between the halves'
// modal and statistical answers; each is printed).
inline void expect_full_band_continuity(const Continuity& c) {
    using json = nlohmann::ordered_json;  // the order of "surfaces" matters
    ScratchDir dir;
    json s;
    std::ifstream(source_dir() / "data" / "scenes" / c.scene) >> s;
    if (s["geometry"].contains("mesh"))
        s["geometry"]["mesh"] =
            (source_dir() / "data" / "models" /
             std::filesystem::path(s["geometry"]["mesh"].get<std::string>()).filename())
                .string();
    s.erase("listener_grid");
    s["simulation"]["max_frequency"] = c.max_frequency;
    s["simulation"]["duration"] = 0.8;
    s["simulation"]["band"] = "wave";
    json wave = s;
    if (!c.wave_solver.empty()) wave["simulation"]["solver"] = c.wave_solver;
    dir.write("wave.json", wave.dump());
    s["simulation"]["band"] = "full";
    s["simulation"]["crossover"] = 0.2 * c.max_frequency;
    dir.write("geo.json", s.dump());
    ASSERT_EQ(run_ardent("simulate wave.json -o wave --quiet", dir.path()).exit_code, 0);
    ASSERT_EQ(run_ardent("simulate geo.json -o geo --quiet", dir.path()).exit_code, 0);

    const double crossover = 0.6 * c.max_frequency;
    const double octave = std::pow(2.0, std::round(std::log2(crossover / 1000))) * 1000;
    double t20_wave = 0, t20_geo = 0;
    int n = 0;
    for (const auto& r : s["receivers"]) {
        const std::string f = "ir/S1_" + r["name"].get<std::string>() + ".wav";
        const BandFigures w = octave_figures(dir / "wave" / f, octave);
        const BandFigures g = octave_figures(dir / "geo" / f, octave);
        std::printf(
            "%s %s, %.0f Hz octave: energy wave (%s) %.2f dB, geometric %.2f dB (%+.2f); T20 "
            "wave %.3f s, geometric %.3f s (%+.1f %%)\n",
            c.scene.c_str(), f.c_str(), octave,
            c.wave_solver.empty() ? "the scene's solver" : c.wave_solver.c_str(), w.energy_db,
            g.energy_db, g.energy_db - w.energy_db, w.t20, g.t20, 100 * (g.t20 / w.t20 - 1));
        EXPECT_NEAR(g.energy_db, w.energy_db, 1.5) << f;
        t20_wave += w.t20;
        t20_geo += g.t20;
        ++n;
    }
    std::printf("mean T20: wave %.3f s, geometric %.3f s (%+.1f %%)\n", t20_wave / n, t20_geo / n,
                100 * (t20_geo / t20_wave - 1));
    EXPECT_NEAR(t20_geo / t20_wave, 1, 0.10);
}

}  // namespace ardent::test
