// ARD validation against analytic references (spec section 6), the fast versions run by CI: small
// boxes and short windows, each printing its measured number ("[ measured ]" lines). The full-size
// runs are in test_ard_validation_long.cpp (CTest label `long`). With ARDENT_VALIDATION_OUT set,
// every test writes a CSV there for scripts/plot_validation.py.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "ard_validation.h"
#include "test_support.h"

namespace ardent::test {
namespace {

using namespace validation;

// ---- The reference and signal tools themselves ---------------------------------------------

Excitation kernel(double f_max) {
    const double h = cell_size(f_max);
    return Excitation::for_band(f_max, 0.45 * h / kSpeed);
}

TEST(ValidationSupport, ImageSourcesMatchABruteForceSum) {
    const Excitation g = kernel(500);
    ImageSourceSetup s;
    s.box = {3.1, 2.3, 1.7};
    s.source = {0.7, 1.1, 0.4};
    s.receiver = {2.5, 0.6, 1.3};
    s.signal = [g](double t) { return g(t); };
    s.signal_length = 2 * g.delay();
    s.dt = g.dt;
    s.samples = 150;
    s.t0 = 0;
    const auto fast = image_source_ir(s);
    // Brute force: every image of |l|, |m|, |n| <= 12 (beyond the reach), G evaluated directly.
    std::vector<double> brute(s.samples, 0.0);
    const double reach = kSpeed * (s.t0 + static_cast<double>(s.samples) * s.dt);
    size_t count = 0;
    for (int l = -12; l <= 12; ++l)
        for (int m = -12; m <= 12; ++m)
            for (int n = -12; n <= 12; ++n)
                for (int sx : {1, -1})
                    for (int sy : {1, -1})
                        for (int sz : {1, -1}) {
                            const Vec3 im{sx * s.source.x + 2 * l * s.box.x,
                                          sy * s.source.y + 2 * m * s.box.y,
                                          sz * s.source.z + 2 * n * s.box.z};
                            const double r = norm(im - s.receiver);
                            if (r > reach) continue;
                            ++count;
                            for (size_t k = 0; k < s.samples; ++k)
                                brute[k] += g(s.t0 + static_cast<double>(k) * s.dt - r / kSpeed) /
                                            (4 * std::numbers::pi * r);
                        }
    EXPECT_GT(count, 100u);
    EXPECT_LT(relative_l2(fast.p, brute), 1e-4);  // the cubic table: ~3e-5
}

TEST(ValidationSupport, FreeFieldPulseSumsToOneOverFourPiR) {
    // The IR convention: the direct pulse sums to 1/(4 pi r).
    const Excitation g = kernel(1000);
    ImageSourceSetup s;
    s.source = {0, 0, 0};
    s.receiver = {2, 0, 0};
    s.signal = [g](double t) { return g(t); };
    s.signal_length = 2 * g.delay();
    s.dt = g.dt;
    s.samples = static_cast<size_t>((2 / kSpeed + 2 * g.delay()) / g.dt) + 10;
    const auto p = free_field_ir(s);
    double sum = 0, abs_sum = 0;
    for (double v : p) {
        sum += v;
        abs_sum += std::abs(v);
    }
    // Zero DC: the pulse sums to ~0; in band its spectrum is 1/(4 pi r) per sample.
    EXPECT_LT(std::abs(sum), 1e-3 * abs_sum);
    const Spectrum sp = magnitude_spectrum(p, 1 / g.dt, Window::Rectangular, 4);
    for (double f : {100.0, 300.0, 700.0}) {
        const auto k = static_cast<size_t>(std::round(f / sp.df));
        EXPECT_NEAR(sp.magnitude[k], 1 / (4 * std::numbers::pi * 2),
                    0.01 / (4 * std::numbers::pi * 2))
            << f << " Hz";
    }
}

TEST(ValidationSupport, BandPassKeepsTheBandAndRemovesTheRest) {
    const double fs = 4000;
    std::vector<double> x(8000), want(8000);
    for (size_t i = 0; i < x.size(); ++i) {
        const double t = static_cast<double>(i) / fs;
        want[i] = std::sin(2 * std::numbers::pi * 300 * t);
        x[i] = want[i] + std::sin(2 * std::numbers::pi * 20 * t) +
               std::sin(2 * std::numbers::pi * 900 * t);
    }
    const auto y = bandpass(x, fs, 50, 800);
    // Away from the ends (where the tone starts and stops abruptly).
    EXPECT_LT(relative_l2(std::span(y).subspan(2000, 4000), std::span(want).subspan(2000, 4000)),
              2e-3);
}

TEST(ValidationSupport, PeakPickingFindsCloseTonesToAFractionOfABin) {
    const double fs = 2000;
    std::vector<double> x(20000);
    for (size_t i = 0; i < x.size(); ++i) {
        const double t = static_cast<double>(i) / fs;
        x[i] = std::sin(2 * std::numbers::pi * 123.456 * t) +
               0.5 * std::sin(2 * std::numbers::pi * 127.1 * t);
    }
    const Spectrum s = magnitude_spectrum(x, fs, Window::Hann, 8);
    EXPECT_NEAR(peak_frequency(s, 121, 125), 123.456, 0.01);
    EXPECT_NEAR(peak_frequency(s, 126, 129), 127.1, 0.01);
    const auto bands = third_octave_bands(50, 800);
    ASSERT_FALSE(bands.empty());
    EXPECT_NEAR(bands.front().centre, 62.5, 0.1);
    EXPECT_NEAR(bands.back().centre, 630, 0.1);
}

// ---- The solver against the references ------------------------------------------------------

TEST(ArdValidation, RigidBoxOnePartitionMatchesImageSources) {
    const auto r = rigid_box_vs_images({16, 16, 8}, 500, 0.25, "box_pow2_ci.csv");
    EXPECT_EQ(r.partitions, 1u);
    EXPECT_LE(r.rel_l2, 0.05);
}

TEST(ArdValidation, RigidBoxSeveralPartitionsMatchesImageSources) {
    const auto r = rigid_box_vs_images({20, 14, 10}, 500, 0.25, "box_npow2_ci.csv");
    EXPECT_GT(r.partitions, 1u);
    EXPECT_GT(r.interfaces, 0u);
    EXPECT_LE(r.rel_l2, 0.10);
}

TEST(ArdValidation, InterfaceIsTransparentToAPlaneWave) {
    Duct d;
    d.length = 1024;
    const auto r = duct_reflection(d, true, "reflection_interface.csv", "interface reflection");
    EXPECT_LE(20 * std::log10(r.in_band), -40.0);
}

TEST(ArdValidation, FullyAbsorbingWallReflectsBelowMinus40dB) {
    Duct d;
    d.absorbing_face = "wall_x1";
    d.alpha = 1.0;
    const auto r = duct_reflection(d, false, "reflection_alpha1.csv", "absorbing wall, alpha 1.0");
    EXPECT_LE(20 * std::log10(r.in_band), -40.0);
}

class WallAbsorption : public ::testing::TestWithParam<double> {};

TEST_P(WallAbsorption, NormalIncidenceReflectionIsTheFittedWalls) {
    const double alpha = GetParam();
    Duct d;
    d.absorbing_face = "wall_x1";
    d.alpha = alpha;
    char name[64];
    std::snprintf(name, sizeof name, "reflection_alpha%.1f.csv", alpha);
    const auto r =
        duct_reflection(d, false, name, "absorbing wall, alpha " + std::to_string(alpha));
    const double want = normal_incidence_reflection(alpha);
    std::printf("[ measured ] alpha %.1f: |R| %.4f, fitted wall's %.4f, difference %+.4f\n", alpha,
                r.in_band, want, r.in_band - want);
    EXPECT_NEAR(r.in_band, want, 0.05);
}

INSTANTIATE_TEST_SUITE_P(Alpha, WallAbsorption, ::testing::Values(0.1, 0.5, 0.9));

// A wall whose absorption rises eightfold over the band (a carpet-like material): the reflection
// per third-octave band is the fitted admittance's, its branches driving the air in front of it.
TEST(ArdValidation, FrequencyDependentWallReflectsAsItsFittedAdmittance) {
    Duct d;
    d.absorbing_face = "wall_x1";
    d.absorption = kPerBandWallJson;
    const WallFit fit = fit_wall(per_band_wall(), d.f_max);
    ASSERT_FALSE(fit.admittance.branches.empty()) << "the fit should be frequency-dependent";
    const auto r = duct_reflection(d, false, "reflection_per_band.csv", "per-band wall");
    const double worst = worst_band_reflection_error("ARD", fit, r);
    EXPECT_LT(worst, 0.015);
}

// A wall whose absorption rises sevenfold over the band, to 0.7 (the oblique-incidence test's
// material): its fit must not lean on reactance, which the grid turns into absorption (a
// spring-like fit of it was 0.08 off at 630 Hz here, wall_admittance.cpp).
TEST(ArdValidation, SteeplyRisingWallReflectsAsItsFittedAdmittance) {
    Duct d;
    d.absorbing_face = "wall_x1";
    d.absorption = R"({"125": 0.1, "250": 0.25, "500": 0.5, "1000": 0.7})";
    Material m;
    m.name = "steep";
    m.set_bands({{125, 0.1}, {250, 0.25}, {500, 0.5}, {1000, 0.7}});
    const WallFit fit = fit_wall(m, d.f_max);
    const auto r = duct_reflection(d, false, "reflection_steep.csv", "steeply rising wall");
    const double worst = worst_band_reflection_error("ARD", fit, r);
    EXPECT_LT(worst, 0.02);
}

TEST(ArdValidation, AbsorbingWallDecaysAnAxialModeAtTheRoundTripRate) {
    // 26 cells: a 16- and a 10-cell partition, the wall on the short one (24 cells, the first
    // version's 16 + 8, is one partition with smooth sides). A layer tuned to the wall's
    // reflection returned it a round trip through its 10 cells late: ratios 0.71 and 0.65.
    for (double alpha : {0.3, 0.7}) {
        const auto r = axial_mode_decay({26, 2, 2}, 1, alpha, 16);
        EXPECT_EQ(r.partitions, 2u);
        EXPECT_NEAR(r.measured_db_per_s / r.expected_db_per_s, 1.0, 0.05) << "alpha " << alpha;
    }
}

TEST(ArdValidation, RoomModesOfARigidBox) {
    const auto r = room_modes({20, 14, 10}, 500, 4.0, false, "modes_box_ci");
    EXPECT_GT(r.partitions, 1u);
    EXPECT_GE(r.checked.size(), 10u);
    for (const auto& m : r.checked)
        EXPECT_LE(m.rel_error, 0.005)
            << "mode " << m.f_analytic << " Hz measured at " << m.f_measured << " Hz";
}

TEST(ArdValidation, AxialModesOfADuctUpToFMax) {
    const auto r = room_modes({40, 4, 4}, 1000, 2.0, true, "modes_duct_ci");
    EXPECT_GT(r.partitions, 1u);
    EXPECT_GE(r.checked.size(), 20u);
    EXPECT_GT(r.max_checked_hz, 0.9 * 1000);
    for (const auto& m : r.checked)
        EXPECT_LE(m.rel_error, 0.005)
            << "mode " << m.f_analytic << " Hz measured at " << m.f_measured << " Hz";
}

TEST(ArdValidation, EnergyDoesNotGrowWithoutASource) {
    const auto r = energy_run({20, 14, 10}, 10000, 10, "energy_ci.csv");
    EXPECT_GT(r.partitions, 1u);
    EXPECT_LE(r.max_ratio, 1.05);
    EXPECT_LE(r.last_over_first, 1.02);
}

// A furnished room with its absorbing materials: thin partitions beside absorbing faces, where
// a PML line reads air beyond its own partition. When those cells did not read the PML back,
// this room's energy grew 27-fold in 30 000 steps (docs/ard.md, "Walls").
TEST(ArdValidation, EnergyFallsInAFurnishedRoomWithAbsorbers) {
    const auto scene = (test::source_dir() / "data" / "scenes" / "living-room.json").string();
    const auto r = energy_run(scene, 300, 30000, 100, "energy_living_room_ci.csv");
    EXPECT_GT(r.partitions, 10u);
    EXPECT_LE(r.max_ratio, 1.0 + 1e-9);
    EXPECT_LE(r.last_over_first, 0.9);
}

TEST(ArdValidation, Float32AgreesWithFloat64) {
    BoxSpec b;
    b.cells = {20, 14, 10};
    b.f_max = 500;
    b.source = {4, 4, 2};
    b.receivers = {{15, 9, 6}, {2, 11, 8}};
    const Preprocessed p = build(b);
    const size_t steps = 700;  // about 0.2 s
    const RunOutput f64 = run(p, steps, Precision::Float64);
    const RunOutput f32 = run(p, steps, Precision::Float32);
    ASSERT_EQ(f32.receivers.size(), 2u);
    double worst = 0;
    for (size_t r = 0; r < 2; ++r)
        worst = std::max(worst, relative_l2(f32.receivers[r], f64.receivers[r]));
    std::printf(
        "[ measured ] float32 vs float64, box 20x14x10 cells, %zu partitions, %zu steps: "
        "relative L2 difference %.3g (%s %.2f s, %s %.2f s)\n",
        p.decomposition.partitions.size(), steps, worst, f32.name.c_str(), f32.seconds,
        f64.name.c_str(), f64.seconds);
    EXPECT_LE(worst, 1e-4);
}

}  // namespace
}  // namespace ardent::test
