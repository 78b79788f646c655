// FDTD fallback validation (spec section 6), CI sizes: Webb's rigid room modes against the
// analytic box modes, 100 000 steps without a source whose energy must not grow, the
// normal-incidence reflection of an absorbing wall against the fitted wall's, third-octave levels
// against ARD in the (rigid) L-shaped room, and the CUDA sweep's tables. The full-size runs are in
// test_fdtd_validation_long.cpp (CTest label `long`).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "../solvers/src/fdtd_sweep.h"  // the CUDA sweep's host-side tables
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/solvers/ard_cuda.h"
#include "ardent/solvers/solver.h"
#include "fdtd_validation.h"
#include "signal_tools.h"

namespace ardent::test {
namespace {

// Webb (2010): a rigid room of 7.15 x 3.90 x 9.54 m at c = 345 m/s.
constexpr double kC = 345.0;
constexpr double kL[3] = {7.15, 3.90, 9.54};

std::string webb_scene(double f_max) {
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  R"({"format": "ardent-scene/1", "name": "webb room",
        "geometry": {"box": [%.2f, %.2f, %.2f]},
        "materials": {"rigid": {"absorption": 0}}, "surfaces": {"*": "rigid"},
        "sources": [{"name": "S", "position": [0.2, 0.2, 0.2]}],
        "receivers": [{"name": "R", "position": [6.95, 3.7, 9.34]}],
        "simulation": {"solver": "fdtd", "device": "cpu", "max_frequency": %.1f,
                       "speed_of_sound": %.1f}})",
                  kL[0], kL[1], kL[2], f_max, kC);
    return buf;
}

std::vector<double> analytic_modes(double f_max) {
    std::vector<double> f;
    for (int l = 0; l < 20; ++l)
        for (int m = 0; m < 20; ++m)
            for (int n = 0; n < 20; ++n) {
                const double v = 0.5 * kC *
                                 std::sqrt(std::pow(l / kL[0], 2) + std::pow(m / kL[1], 2) +
                                           std::pow(n / kL[2], 2));
                if (v > 0 && v < f_max) f.push_back(v);
            }
    std::sort(f.begin(), f.end());
    return f;
}

TEST(FdtdValidation, WebbRoomModesWithinTwoPercent) {
    const double f_max = 150;
    const Preprocessed p = preprocess(parse_scene(webb_scene(f_max), "webb.json"));
    SolverOptions o;
    o.precision = Precision::Float64;
    o.listener_grid = false;
    auto solver = make_solver(p, o);
    ASSERT_EQ(solver->name(), "fdtd-cpu-float64");
    const double dt = solver->dt();
    EXPECT_NEAR(kC * dt / p.air.grid.h, 1 / std::sqrt(3.0), 1e-12);
    EXPECT_NEAR(p.air.grid.h, kC / (10 * f_max), 1e-12) << "10 points per wavelength";
    const double duration = 4.0;
    const auto steps = static_cast<size_t>(std::ceil(duration / dt));
    solver->advance(steps);
    const Spectrum s = magnitude_spectrum(solver->receivers()[0], 1 / dt, Window::Hann, 8);
    const double T = static_cast<double>(steps) * dt;

    // The first three modes (0,0,1), (1,0,0), (1,0,1) per the issue: 18.0, 24.1, 30.1 Hz.
    const double first[3] = {18.0, 24.1, 30.1};
    for (double f : first) {
        const double m = peak_frequency(s, f * 0.97, f * 1.03);
        EXPECT_NEAR(m, f, 0.02 * f) << "mode near " << f << " Hz";
    }
    // Every isolated mode below 0.8 f_max within 2 % (the voxelised walls sit within h/2 of the
    // model's, which alone moves a mode by up to 1.2 % here).
    const auto modes = analytic_modes(0.8 * f_max);
    double worst = 0;
    size_t checked = 0;
    for (size_t i = 0; i < modes.size(); ++i) {
        const double f = modes[i];
        const double half = std::max(0.02 * f, 1.5 / T);
        const double clear = 2 * half;
        if ((i > 0 && f - modes[i - 1] < clear) ||
            (i + 1 < modes.size() && modes[i + 1] - f < clear))
            continue;
        const double m = peak_frequency(s, f - half, f + half);
        const double e = std::abs(m - f) / f;
        worst = std::max(worst, e);
        ++checked;
        EXPECT_LE(e, 0.02) << "mode " << f << " Hz measured at " << m << " Hz";
    }
    std::printf(
        "[ measured ] FDTD, Webb's room at f_max %.0f Hz (h %.4f m, %zu steps): first modes "
        "%.2f, %.2f, %.2f Hz; %zu isolated modes below 0.8 f_max, largest error %.3f %%\n",
        f_max, p.air.grid.h, steps, peak_frequency(s, 17.4, 18.6), peak_frequency(s, 23.4, 24.8),
        peak_frequency(s, 29.2, 31.0), checked, 100 * worst);
    EXPECT_GE(checked, 5u);
}

TEST(FdtdValidation, EnergyDoesNotGrowOver100000StepsWithoutASource) {
    // Spec section 6: a rigid closed room, no source, 100 000 steps.
    const Preprocessed p = preprocess(parse_scene(webb_scene(100), "webb.json"));
    const auto r = fdtd_validation::energy_run(p, Precision::Float64, 100000, 200,
                                               "FDTD, Webb's rigid room at f_max 100 Hz");
    EXPECT_LE(r.max_ratio, 2.0);
    EXPECT_LE(r.last_over_first, 1.02);
}

class FdtdWallAbsorption : public ::testing::TestWithParam<double> {};

TEST_P(FdtdWallAbsorption, NormalIncidenceReflectionIsTheFittedWalls) {
    fdtd_validation::Duct d;
    d.alpha = GetParam();
    const auto r = fdtd_validation::duct_reflection(d);
    const double want = validation::normal_incidence_reflection(d.alpha);
    double worst_band = 0;
    for (double b : r.band_r)
        worst_band = std::max(worst_band, std::abs(b - want));
    std::printf(
        "[ measured ] FDTD alpha %.1f: |R| %.4f, fitted wall's %.4f, difference %+.4f; worst "
        "third-octave band off by %.4f\n",
        d.alpha, r.in_band, want, r.in_band - want, worst_band);
    EXPECT_NEAR(r.in_band, want, 0.05);
}

INSTANTIATE_TEST_SUITE_P(Alpha, FdtdWallAbsorption, ::testing::Values(0.1, 0.5, 0.9));

// A wall whose absorption rises eightfold over the band (a carpet-like material): the reflection
// per third-octave band is the fitted admittance's, branch by branch stepped in time.
TEST(FdtdValidation, FrequencyDependentWallReflectsAsItsFittedAdmittance) {
    fdtd_validation::Duct d;
    d.absorption = validation::kPerBandWallJson;
    const WallFit fit = fit_wall(validation::per_band_wall(), d.f_max);
    ASSERT_FALSE(fit.admittance.branches.empty()) << "the fit should be frequency-dependent";
    const auto r = fdtd_validation::duct_reflection(d);
    const double worst = validation::worst_band_reflection_error("FDTD", fit, r);
    EXPECT_LT(worst, 0.015);
}

// A wall whose absorption rises sevenfold over the band, to 0.7 (the oblique-incidence test's
// material): its fit must not lean on reactance, which the grid turns into absorption (a
// spring-like fit of it was 0.04 off at 630 Hz here, wall_admittance.cpp).
TEST(FdtdValidation, SteeplyRisingWallReflectsAsItsFittedAdmittance) {
    fdtd_validation::Duct d;
    d.absorption = R"({"125": 0.1, "250": 0.25, "500": 0.5, "1000": 0.7})";
    Material m;
    m.name = "steep";
    m.set_bands({{125, 0.1}, {250, 0.25}, {500, 0.5}, {1000, 0.7}});
    const WallFit fit = fit_wall(m, d.f_max);
    const auto r = fdtd_validation::duct_reflection(d);
    const double worst = validation::worst_band_reflection_error("FDTD", fit, r);
    EXPECT_LT(worst, 0.02);
}

TEST(FdtdValidation, RigidDuctEndReflectsEverything) {
    // alpha 0: beta 0, the plain rigid wall; the absorbing-end machinery must give |R| = 1.
    fdtd_validation::Duct d;
    d.alpha = 0;
    EXPECT_NEAR(fdtd_validation::duct_reflection(d).in_band, 1.0, 0.01);
}

TEST(FdtdValidation, RigidLShapedRoomThirdOctaveLevelsMatchArd) {
    // Spec section 6: FDTD (10 points per wavelength) and ARD, the same source-receiver IRs,
    // third-octave levels within 1 dB below 0.8 f_max. CI size: f_max 514.5 Hz, 0.25 s. Rigid
    // here; the next test keeps the scene's materials.
    fdtd_validation::LRoomSetup s;
    s.ard_cells_per_metre = 5;
    s.duration = 0.25;
    s.rigid = true;
    // One thread each: steady under ctest -j2 (see run_duct). 50 to 315 Hz: 9 bands.
    fdtd_validation::expect_lroom_levels_match(s, 9, 1);
}

TEST(FdtdValidation, LShapedRoomWithItsMaterialsThirdOctaveLevelsMatchArd) {
    // The same with the scene's materials: both solvers model a wall as a locally reacting
    // impedance of the same admittance (docs/ard.md, "Walls"). CI size: f_max 514.5 Hz, 0.25 s,
    // as the rigid test. Measured on 2026-11-25: over 0.5 s the two differ by up to 1.84 dB at
    // 315 Hz in the rigid room and 1.40 dB with the random-incidence walls (0.82 dB over 0.25 s,
    // 1.47 dB over 1 s), growing with the IR's length as in the rigid room (docs/fdtd.md: FDTD's
    // dispersion moves modes by about 1 / T; ARD's thin-partition error also grows with time);
    // the walls fitted at normal incidence absorbed about twice too much and damped it away.
    fdtd_validation::LRoomSetup s;
    s.ard_cells_per_metre = 5;
    s.duration = 0.25;
    fdtd_validation::expect_lroom_levels_match(s, 9, 1);
}

// The CUDA interior sweep's tables, walked on the host as the kernel walks them (no GPU needed):
// its stores hit every interior air cell once and nothing else, and its loads stay in the grid.
TEST(FdtdValidation, CudaSweepTablesCoverExactlyTheInteriorCells) {
    fdtd_validation::LRoomSetup s;
    s.ard_cells_per_metre = 2;
    std::vector<Preprocessed> scenes;
    scenes.push_back(preprocess(fdtd_validation::lroom_scene(s, true)));
    scenes.push_back(preprocess(parse_scene(webb_scene(97), "webb.json")));
    for (const Preprocessed& p : scenes) {
        const fdtd::Sweep sweep = fdtd::build_sweep(p.air);
        std::vector<long long> reads;
        std::vector<size_t> stores = fdtd::sweep_updates(sweep, &reads);
        std::vector<size_t> interior;
        for (size_t i = 0; i < p.air.grid.count(); ++i)
            if (fdtd::is_interior(p.air, i)) interior.push_back(i);
        std::sort(stores.begin(), stores.end());
        EXPECT_EQ(stores, interior) << p.scene.name;
        const auto [lo, hi] = std::minmax_element(reads.begin(), reads.end());
        EXPECT_GE(*lo, 0);
        EXPECT_LT(*hi, static_cast<long long>(p.air.grid.count()));
        std::printf(
            "[ measured ] CUDA sweep of %s: grid %dx%dx%d, %zu interior cells, %zu cells swept "
            "(%.1f %% of the grid)\n",
            p.scene.name.c_str(), p.air.grid.dims[0], p.air.grid.dims[1], p.air.grid.dims[2],
            interior.size(), sweep.swept_cells,
            100.0 * static_cast<double>(sweep.swept_cells) /
                static_cast<double>(p.air.grid.count()));
    }
}

TEST(FdtdValidation, CudaDeviceWithoutAGpuIsRefusedWithAReason) {
    if (ard::cuda_available()) GTEST_SKIP() << "a CUDA device is present";
    std::string text = webb_scene(100);
    text.replace(text.find("\"device\": \"cpu\""), 15, "\"device\": \"cuda\"");
    const Preprocessed p = preprocess(parse_scene(text, "webb.json"));
    try {
        make_solver(p, SolverOptions{});
        FAIL() << "expected a ResourceError";
    } catch (const ResourceError& e) {
        EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos) << e.what();
    }
    // "auto" falls back to the CPU.
    text.replace(text.find("\"device\": \"cuda\""), 16, "\"device\": \"auto\"");
    const Preprocessed q = preprocess(parse_scene(text, "webb.json"));
    EXPECT_EQ(make_solver(q, SolverOptions{})->name(), "fdtd-cpu-float32");
}

}  // namespace
}  // namespace ardent::test
