// Full-band IRs (docs/full-band.md): the crossover join itself, result.json's account of it,
// and the two halves describing the same room — in the octave band that holds the crossover, the
// wave solver's IRs (a "wave" run) and the geometric engine's (a "full" run with the crossover
// moved below that band) have the same energy and T20, read from the WAVs `ardent simulate`
// writes.
#include <gtest/gtest.h>

#include <array>
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
#include "mesh_builders.h"
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

// The listener grid over the whole band, as a user hears it: in a full-band run with a grid
// every cell, `ardent auralize` of an impulse at the receiver's grid point (W of the AmbiX
// output, no normalisation) is that point's IR, the wave solver's below the crossover and the
// grid's geometric part above it. In every octave from 1 to 8 kHz it has the receiver's IR's
// energy and T20 (read from out/ir/), two estimates of the same room's field at the same point.
// Boxes and positions from printed seeds.
class FullBandGrid : public testing::TestWithParam<unsigned> {};

TEST_P(FullBandGrid, ListenerGridIsFullBandAtTheReceiver) {
    std::mt19937 rng(GetParam());
    std::uniform_real_distribution<double> u(0, 1);
    const double sx = 4 + 3 * u(rng), sy = 3 + 2 * u(rng), sz = 2.5 + u(rng);
    const auto at = [&](double s) { return s * (0.2 + 0.6 * u(rng)); };
    const double src[3] = {at(sx), at(sy), at(sz)}, rec[3] = {at(sx), at(sy), at(sz)};
    char scene[1024];
    std::snprintf(scene, sizeof scene, R"({
  "format": "ardent-scene/1",
  "name": "grid box",
  "geometry": {"box": [%.3f, %.3f, %.3f]},
  "materials": {"plaster": {"absorption": 0.06}, "carpet": {"absorption": 0.3}},
  "surfaces": {"floor": "carpet", "*": "plaster"},
  "sources": [{"name": "S1", "position": [%.3f, %.3f, %.3f]}],
  "receivers": [{"name": "R1", "position": [%.3f, %.3f, %.3f]}],
  "simulation": {"max_frequency": 300, "duration": 1.0, "band": "full"},
  "listener_grid": {"every": 1}
})",
                  sx, sy, sz, src[0], src[1], src[2], rec[0], rec[1], rec[2]);
    std::printf(
        "[ case ] seed %u: box %.3f x %.3f x %.3f, source (%.3f, %.3f, %.3f), receiver "
        "(%.3f, %.3f, %.3f)\n",
        GetParam(), sx, sy, sz, src[0], src[1], src[2], rec[0], rec[1], rec[2]);
    ScratchDir dir;
    dir.write("room.json", scene);
    auto r = run_ardent("simulate room.json -o out --quiet", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(dir / "out" / "result.json");
    const json result = json::parse(in);
    const auto& c = result["receivers"][0]["cell_centre"];
    char listener[128];
    std::snprintf(listener, sizeof listener, "%.6f,%.6f,%.6f", c[0].get<double>(),
                  c[1].get<double>(), c[2].get<double>());
    std::vector<float> impulse(4800, 0.0f);
    impulse[0] = 1;
    ardent::audio::write_wav_float(dir / "impulse.wav", impulse, 48000);
    r = run_ardent(std::string("auralize impulse.wav out/grid/S1.h5 --listener ") + listener +
                       " --ambisonics --normalize none -o amb.wav",
                   dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("full band"), std::string::npos) << r.out;
    const auto amb = ardent::audio::read_audio(dir / "amb.wav");
    ASSERT_EQ(amb.channels, 4);
    ardent::audio::write_wav_float(dir / "w.wav", amb.channel(0), amb.sample_rate);
    for (double hz : {1000.0, 2000.0, 4000.0, 8000.0}) {
        const auto g = ardent::test::octave_figures(dir / "w.wav", hz);
        const auto w = ardent::test::octave_figures(dir / "out" / "ir" / "S1_R1.wav", hz);
        std::printf(
            "%5.0f Hz octave: grid point %.1f dB, T20 %.3f s; receiver %.1f dB, T20 "
            "%.3f s (%+.1f dB, %+.1f %%)\n",
            hz, g.energy_db, g.t20, w.energy_db, w.t20, g.energy_db - w.energy_db,
            100 * (g.t20 / w.t20 - 1));
        EXPECT_NEAR(g.energy_db, w.energy_db, 2.0) << hz << " Hz";
        EXPECT_NEAR(g.t20 / w.t20, 1, 0.15) << hz << " Hz";
    }

    // The same grid from a scene without receivers: the narrow gaps' absorption and the source's
    // near-surface gain come from the receivers' rays, which must run all the same (they once did
    // not, and the grid's diffuse part came out silent above the crossover).
    json alone = json::parse(scene);
    alone.erase("receivers");
    dir.write("alone.json", alone.dump());
    r = run_ardent("simulate alone.json -o alone --quiet", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run_ardent(std::string("auralize impulse.wav alone/grid/S1.h5 --listener ") + listener +
                       " --ambisonics --normalize none -o alone.wav",
                   dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto solo = ardent::audio::read_audio(dir / "alone.wav");
    ardent::audio::write_wav_float(dir / "w_alone.wav", solo.channel(0), solo.sample_rate);
    for (double hz : {1000.0, 4000.0}) {
        const auto a = ardent::test::octave_figures(dir / "w_alone.wav", hz);
        const auto g = ardent::test::octave_figures(dir / "w.wav", hz);
        std::printf("%5.0f Hz octave without receivers: grid point %.2f dB (with them %.2f dB)\n",
                    hz, a.energy_db, g.energy_db);
        EXPECT_NEAR(a.energy_db, g.energy_db, 0.05) << hz << " Hz";
    }
}

INSTANTIATE_TEST_SUITE_P(Seeds, FullBandGrid, testing::Values(81u, 82u));

// A box whose ceiling has a 0.3 m square hole: narrower than the wave solver's cells at 300 Hz,
// so only the rays find it. `simulate` warns, naming the source and the share that escaped, and
// result.json counts them; the same box closed is silent.
TEST(FullBand, LeakyModelWarnsOfEscapingRays) {
    ScratchDir dir;
    const auto obj = [](bool hole) {
        const double W = 4, D = 3, H = 2.5, x0 = 2.0, x1 = 2.3, y0 = 1.2, y1 = 1.5;
        std::vector<std::array<double, 3>> v;
        std::string faces;
        const auto quad = [&](std::array<double, 3> a, std::array<double, 3> b,
                              std::array<double, 3> c, std::array<double, 3> d) {
            const size_t n = v.size();
            v.insert(v.end(), {a, b, c, d});
            faces += "f " + std::to_string(n + 1) + " " + std::to_string(n + 2) + " " +
                     std::to_string(n + 3) + " " + std::to_string(n + 4) + "\n";
        };
        quad({0, 0, 0}, {W, 0, 0}, {W, D, 0}, {0, D, 0});
        quad({0, 0, 0}, {0, D, 0}, {0, D, H}, {0, 0, H});
        quad({W, 0, 0}, {W, 0, H}, {W, D, H}, {W, D, 0});
        quad({0, 0, 0}, {0, 0, H}, {W, 0, H}, {W, 0, 0});
        quad({0, D, 0}, {W, D, 0}, {W, D, H}, {0, D, H});
        quad({0, 0, H}, {x0, 0, H}, {x0, D, H}, {0, D, H});
        quad({x1, 0, H}, {W, 0, H}, {W, D, H}, {x1, D, H});
        quad({x0, 0, H}, {x1, 0, H}, {x1, y0, H}, {x0, y0, H});
        quad({x0, y1, H}, {x1, y1, H}, {x1, D, H}, {x0, D, H});
        if (!hole) quad({x0, y0, H}, {x1, y0, H}, {x1, y1, H}, {x0, y1, H});
        std::string text = "o room\n";
        char line[96];
        for (const auto& p : v) {
            std::snprintf(line, sizeof line, "v %g %g %g\n", p[0], p[1], p[2]);
            text += line;
        }
        return text + faces;
    };
    dir.write("leaky.obj", obj(true));
    dir.write("closed.obj", obj(false));
    const auto scene = [](const std::string& mesh) {
        return R"({"format": "ardent-scene/1", "name": "box", "geometry": {"mesh": ")" + mesh +
               R"(", "up": "z"}, "materials": {"wall": {"absorption": 0.1}},
  "surfaces": {"*": "wall"}, "sources": [{"name": "S1", "position": [1.0, 1.0, 1.2]}],
  "receivers": [{"name": "R1", "position": [3.0, 2.0, 1.2]}],
  "simulation": {"solver": "ard", "device": "cpu", "max_frequency": 300, "duration": 0.3}})";
    };
    dir.write("leaky.json", scene("leaky.obj"));
    dir.write("closed.json", scene("closed.obj"));
    const auto leaky = run_ardent("simulate leaky.json -o leaky --quiet", dir.path());
    ASSERT_EQ(leaky.exit_code, 0) << leaky.err;
    EXPECT_NE(leaky.err.find("warning: source S1: "), std::string::npos) << leaky.err;
    EXPECT_NE(leaky.err.find("left the model through gaps in its surfaces"), std::string::npos)
        << leaky.err;
    json r;
    std::ifstream(dir / "leaky" / "result.json") >> r;
    const auto& src = r.at("band").at("geometric").at("sources").at(0);
    const double share = src.at("escaped_rays").get<double>() / src.at("rays").get<double>();
    std::printf("leaky box: %.1f %% of the rays escaped\n", 100 * share);
    EXPECT_GT(share, 0.01);
    EXPECT_LT(share, 0.5);  // a small hole, not an open model

    const auto closed = run_ardent("simulate closed.json -o closed --quiet", dir.path());
    ASSERT_EQ(closed.exit_code, 0) << closed.err;
    EXPECT_EQ(closed.err.find("left the model"), std::string::npos) << closed.err;
}

namespace {

// A room whose walls have two skins (as architectural models draw them): the triangles enclose
// only the walls' own volume, which the geometric engine's statistics (the mixing time, the
// detection radius, the narrow gaps' decay) must not take for the room's. The room's air comes
// from preprocessing; result.json's mixing time (sqrt(V) ms) shows which volume was used.
TEST(FullBand, TwoSkinnedWallsKeepTheRoomsVolume) {
    ScratchDir dir;
    using ardent::Vec3;
    const Vec3 lo{0, 0, 0}, hi{5, 4, 3}, t{0.2, 0.2, 0.2};
    dir.write(
        "skins.obj",
        "o walls\n" +
            ardent::test::hexahedron_obj(ardent::test::box_corners(lo - t, hi + t), "wall", false) +
            ardent::test::hexahedron_obj(ardent::test::box_corners(lo, hi), "wall", true, 8));
    dir.write("skins.json", R"({"format": "ardent-scene/1", "name": "skins",
  "geometry": {"mesh": "skins.obj", "up": "z"}, "materials": {"wall": {"absorption": 0.1}},
  "surfaces": {"*": "wall"}, "sources": [{"name": "S1", "position": [1.5, 1.2, 1.4]}],
  "receivers": [{"name": "R1", "position": [3.4, 2.7, 1.6]}],
  "simulation": {"solver": "ard", "device": "cpu", "max_frequency": 250, "duration": 0.3}})");
    const auto run = run_ardent("simulate skins.json -o out --quiet", dir.path());
    ASSERT_EQ(run.exit_code, 0) << run.err;
    json r;
    std::ifstream(dir / "out" / "result.json") >> r;
    const double mixing = r.at("band").at("geometric").at("mixing_time_s").get<double>();
    const double room = 60, walls = 5.4 * 4.4 * 3.4 - room;
    std::printf(
        "mixing time %.4f s: sqrt(V) ms for the room's %.0f m^3 %.4f s, the walls' %.1f "
        "m^3 %.4f s\n",
        mixing, room, std::sqrt(room) * 1e-3, walls, std::sqrt(walls) * 1e-3);
    EXPECT_NEAR(mixing / (std::sqrt(room) * 1e-3), 1, 0.05);
}

}  // namespace
