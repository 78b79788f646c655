// Exact IRs in the files `ardent simulate` writes (issue 19), for ARD and FDTD:
// - rigid boxes drawn from seeds against image sources (tests/support/rigid_box.h); CI runs seeds
//   1-4 per solver, the `long` suite 1-20 (test_rigid_boxes_long.cpp). No seed below 1000 was
//   used to tune anything (tuning used seeds 1000-1019);
// - the time origin: the direct sound in the WAV at r/c within a hundredth of a step, at several
//   distances, directions and output rates;
// - a receiver on a listener-grid point has the same IR in its WAV and in grid/<source>.h5.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numbers>
#include <sstream>
#include <tuple>

#include "ardent/auralize/ir_grid.h"
#include "ardent/auralize/resample.h"
#include "ir_timing.h"
#include "rigid_box.h"
#include "signal_tools.h"

namespace ardent::test {
namespace {

// One test per solver and seed, so that CTest spreads them over the cores.
class RigidBoxes : public ::testing::TestWithParam<std::tuple<const char*, std::uint32_t>> {};

TEST_P(RigidBoxes, WithinBars) {
    const auto [solver, seed] = GetParam();
    ScratchDir dir;
    expect_rigid_box_within_bars(draw_rigid_box(seed, solver), dir);
}

INSTANTIATE_TEST_SUITE_P(Seeds1To4, RigidBoxes,
                         ::testing::Combine(::testing::Values("ard", "fdtd"),
                                            ::testing::Values(1u, 2u, 3u, 4u)));

// The direct sound of a source in the middle of a large rigid box, at receivers 5-14 cells away
// in several directions (nearer, ARD's band-limited point source is not yet a monopole: 3 cells
// away the fitted lag is 0.026 steps, docs/output-format.md), against the exact image-source IR:
// the lag fitted in 0.2-0.8 f_max over a window of +-6/f_max around the arrival, where no
// reflection reaches. Bar: |lag| <= bar_steps dt + bar_share of the travel time r / c.
void expect_on_time(const std::string& solver, double f_max, int fs, double bar_steps,
                    double bar_share = 0) {
    TimingCase t;
    t.solver = solver;
    t.f_max = f_max;
    t.sample_rate = fs;
    t.receivers = {{6, 0, 0}, {0, 5, 2}, {4, 4, 4}, {-7, 3, -1}, {9, -6, 5}, {0, 0, -14}};
    ScratchDir dir;
    const TimingResult r = measure_timing(t, dir);
    ASSERT_TRUE(r.ran);
    for (size_t i = 0; i < r.lag_s.size(); ++i) {
        const double travel = r.distance_m[i] / 343.0;
        std::printf(
            "[ measured ] %s f_max %.0f Hz at %d Hz, receiver %zu (%.2f m): lag %+.3e s "
            "= %+.4f steps = %+.3f %% of the travel time\n",
            solver.c_str(), f_max, fs, i, r.distance_m[i], r.lag_s[i], r.lag_s[i] / r.dt,
            100 * r.lag_s[i] / travel);
        EXPECT_LE(std::abs(r.lag_s[i]), bar_steps * r.dt + bar_share * travel)
            << solver << " receiver " << i << " at " << r.distance_m[i] << " m";
    }
}

TEST(IrTiming, ArdDirectSoundWithinHundredthOfAStep) {
    expect_on_time("ard", 500, 48000, 0.01);
    expect_on_time("ard", 730, 44100, 0.01);
    expect_on_time("ard", 410, 16000, 0.01);
}

// FDTD's grid is dispersive: a pulse is slower than c along the axes, so its lag grows with the
// distance and its bar is a share of the travel time (docs/fdtd.md, "IR timing").
TEST(IrTiming, FdtdDirectSound) {
    expect_on_time("fdtd", 500, 48000, 0.01, kFdtdTimingBarShare);
    expect_on_time("fdtd", 730, 44100, 0.01, kFdtdTimingBarShare);
}

// A receiver on a grid point: the WAV and the grid file's row are the same IR, the row stored at
// the band's rate (format 3) and resampled to the WAV's as every reader does (resample_ir).
TEST(IrGridFile, ReceiverOnGridPointMatchesItsWav) {
    for (const std::string solver : {"ard", "fdtd"}) {
        RigidBox b;
        b.solver = solver;
        b.cells = {24, 20, 17};
        b.source = {5, 6, 4};
        b.f_max = 400;
        b.duration = 0.2;
        const int every = solver == "fdtd" ? 16 : 4;  // grid points in the solver's own cells
        b.extra_top = R"("listener_grid": {"every": )" + std::to_string(every) + "},";
        ScratchDir dir;
        // The grid's points are every `every`-th cell of the padded grid (origin and cell size
        // from ardent info): put the receiver on the one nearest the box's middle.
        auto scene = dir.write("grid.json", rigid_box_scene(b));
        const CommandResult info = run_ardent("info --json " + scene.string(), dir.path());
        ASSERT_EQ(info.exit_code, 0) << info.err;
        const auto j = nlohmann::json::parse(info.out);
        const double h = j["h"].get<double>();
        const auto sides = rigid_box_sides(b);
        nlohmann::json doc = nlohmann::json::parse(rigid_box_scene(b));
        for (int a = 0; a < 3; ++a) {
            const double origin = j["origin"][a].get<double>();
            const long mid = std::lround((0.5 * sides[a] - origin) / h / every) * every;
            doc["receivers"][0]["position"][a] = origin + (static_cast<double>(mid) + 0.5) * h;
        }
        scene = dir.write("grid.json", doc.dump());
        const CommandResult r =
            run_ardent("simulate " + scene.string() + " -o " + (dir / "out").string(), dir.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const audio::Audio wav = audio::read_audio(dir / "out" / "ir" / "S_R.wav");
        const auralize::IrGrid grid(dir / "out" / "grid" / "S.h5");
        ASSERT_EQ(grid.output_sample_rate(), wav.sample_rate);
        EXPECT_LT(grid.sample_rate(), 0.25 * wav.sample_rate);
        EXPECT_GE(grid.sample_rate(), 2.5 * b.f_max);
        const auto& p = doc["receivers"][0]["position"];
        const auto at = grid.nearest({p[0].get<double>(), p[1].get<double>(), p[2].get<double>()});
        ASSERT_TRUE(at.has_value());
        const std::vector<float> stored = grid.ir(*at);
        std::vector<float> row =
            audio::resample_ir(std::span<const float>(stored), grid.sample_rate(), wav.sample_rate);
        // A grid sample either way from rounding the two lengths.
        ASSERT_LE(
            std::abs(static_cast<double>(row.size()) - static_cast<double>(wav.samples.size())),
            std::ceil(wav.sample_rate / grid.sample_rate()));
        // Compared in the simulated band (the WAV keeps what lies above it up to its own
        // converter's limit, the grid stops at its Nyquist frequency, 1.25 max_frequency or more)
        // and before the last 20 ms: the WAV was resampled with simulated samples after its end,
        // the grid row is resampled with none.
        const auto keep = wav.samples.size() - static_cast<size_t>(0.02 * wav.sample_rate);
        std::vector<double> a(row.begin(), row.begin() + static_cast<long>(keep)),
            w(wav.samples.begin(), wav.samples.begin() + static_cast<long>(keep));
        // Both faded out alike over another 20 ms, so that the band-pass does not spread the cut.
        const auto fade = static_cast<size_t>(0.02 * wav.sample_rate);
        for (size_t i = 0; i < fade; ++i) {
            const double g = 0.5 + 0.5 * std::cos(std::numbers::pi * static_cast<double>(i + 1) /
                                                  static_cast<double>(fade));
            a[keep - fade + i] *= g, w[keep - fade + i] *= g;
        }
        const auto a_band = test::bandpass(a, wav.sample_rate, 0.02 * b.f_max, b.f_max, 0.1);
        const auto w_band = test::bandpass(w, wav.sample_rate, 0.02 * b.f_max, b.f_max, 0.1);
        double peak = 0, worst = 0, raw = 0;
        for (size_t n = 0; n < keep; ++n) {
            peak = std::max(peak, std::abs(w_band[n]));
            worst = std::max(worst, std::abs(a_band[n] - w_band[n]));
            raw = std::max(raw, std::abs(a[n] - w[n]));
        }
        const double l2 = test::relative_l2(a_band, w_band);
        std::printf(
            "[ measured ] %s: grid row (%.0f Hz) vs WAV (%d Hz) in band: relative L2 %.3e, "
            "largest difference %.3e of the peak (%.3e unfiltered)\n",
            solver.c_str(), grid.sample_rate(), wav.sample_rate, l2, worst / peak, raw / peak);
        // Measured 2026-11-26: relative L2 6.2e-4 (ARD) and 1.0e-3 (FDTD), largest difference
        // 3.9e-3 and 5.1e-3 of the peak.
        EXPECT_LE(l2, 3e-3) << solver;
        EXPECT_LE(worst, 1e-2 * peak) << solver;
    }
}

TEST(RigidBoxScan, DISABLED_Seeds) {
    // ARDENT_SEEDS="1000 1001 ..." ARDENT_SOLVER=ard [ARDENT_EXTRA=', "partition_sides": ...']
    // [ARDENT_CELLS="x y z"] [ARDENT_SOURCE="i j k"] [ARDENT_RECEIVER="i j k"] [ARDENT_GROWTH=1]:
    // prints each seed's errors (tuning, not a test).
    const char* seeds = std::getenv("ARDENT_SEEDS");
    const char* solver = std::getenv("ARDENT_SOLVER");
    const char* extra = std::getenv("ARDENT_EXTRA");
    std::istringstream in(seeds ? seeds : "1000");
    ScratchDir dir;
    for (std::uint32_t seed; in >> seed;) {
        RigidBox b = draw_rigid_box(seed, solver ? solver : "ard");
        if (extra) b.extra_simulation = extra;
        if (const char* cells = std::getenv("ARDENT_CELLS")) {
            std::istringstream c(cells);
            c >> b.cells[0] >> b.cells[1] >> b.cells[2];
            for (int a = 0; a < 3; ++a) {
                b.source[a] = std::min(b.source[a], b.cells[a] - 3);
                b.receiver[a] = std::min(b.receiver[a], b.cells[a] - 3);
            }
        }
        for (const auto& [var, cell] :
             {std::pair{"ARDENT_SOURCE", &b.source}, std::pair{"ARDENT_RECEIVER", &b.receiver}})
            if (const char* v = std::getenv(var)) {
                std::istringstream c(v);
                c >> (*cell)[0] >> (*cell)[1] >> (*cell)[2];
            }
        const RigidBoxError e = rigid_box_error(b, dir);
        if (std::getenv("ARDENT_GROWTH"))
            for (const auto& [t, err] : e.growth)
                std::printf("  %.3f s: %.4f\n", t, err);
    }
}

}  // namespace
}  // namespace ardent::test
