// ARD validation, the full-size runs (CTest label `long`; `scripts/test --long`): the rigid boxes
// at 1 kHz over the first 0.25 s, room modes from 8 s of signal, 100 000 steps without a source,
// float32 vs float64 over 0.25 s. Same scenarios and bars as test_ard_validation.cpp. With
// ARDENT_VALIDATION_OUT set, each writes the CSVs that scripts/plot_validation.py draws.
#include <gtest/gtest.h>

#include "ard_validation.h"
#include "test_support.h"

namespace ardent::test {
namespace {

using namespace validation;

TEST(ArdValidationLong, RigidBoxOnePartitionMatchesImageSources) {
    const auto r = rigid_box_vs_images({64, 32, 32}, 1000, 0.25, "box_pow2.csv");
    EXPECT_EQ(r.partitions, 1u);
    EXPECT_LE(r.rel_l2, 0.05);
}

TEST(ArdValidationLong, RigidBoxSeveralPartitionsMatchesImageSources) {
    const auto r = rigid_box_vs_images({40, 28, 20}, 1000, 0.25, "box_npow2.csv");
    EXPECT_GT(r.partitions, 1u);
    EXPECT_GT(r.interfaces, 0u);
    EXPECT_LE(r.rel_l2, 0.10);
}

TEST(ArdValidationLong, RoomModesOfARigidBox) {
    const auto r = room_modes({24, 19, 13}, 500, 8.0, false, "modes_box");
    EXPECT_GT(r.partitions, 1u);
    EXPECT_GE(r.checked.size(), 15u);
    for (const auto& m : r.checked)
        EXPECT_LE(m.rel_error, 0.005)
            << "mode " << m.f_analytic << " Hz measured at " << m.f_measured << " Hz";
}

TEST(ArdValidationLong, AxialModesOfADuctUpToFMax) {
    const auto r = room_modes({56, 4, 4}, 1000, 4.0, true, "modes_duct");
    EXPECT_GT(r.partitions, 1u);
    EXPECT_GT(r.max_checked_hz, 0.9 * 1000);
    for (const auto& m : r.checked)
        EXPECT_LE(m.rel_error, 0.005)
            << "mode " << m.f_analytic << " Hz measured at " << m.f_measured << " Hz";
}

TEST(ArdValidationLong, EnergyDoesNotGrowOver100000Steps) {
    const auto r = energy_run({20, 14, 10}, 100000, 100, "energy.csv");
    EXPECT_GT(r.partitions, 1u);
    EXPECT_LE(r.max_ratio, 1.05);
    EXPECT_LE(r.last_over_first, 1.02);
}

TEST(ArdValidationLong, EnergyFallsOver100000StepsInFurnishedRooms) {
    for (const auto& [file, f_max] :
         {std::pair{"studio.json", 400.0}, std::pair{"living-room.json", 300.0}}) {
        const auto scene = (test::source_dir() / "data" / "scenes" / file).string();
        const auto r =
            energy_run(scene, f_max, 100000, 100, std::string("energy_") + file + ".csv");
        EXPECT_LE(r.max_ratio, 1.0 + 1e-9) << file;
        EXPECT_LE(r.last_over_first, 0.9) << file;
    }
}

TEST(ArdValidationLong, Float32AgreesWithFloat64) {
    BoxSpec b;
    b.cells = {40, 28, 20};
    b.f_max = 1000;
    b.source = {9, 8, 5};
    b.receivers = {{30, 17, 12}, {4, 22, 16}};
    const Preprocessed p = build(b);
    const size_t steps = 1445;  // about 0.22 s at 1 kHz
    const RunOutput f64 = run(p, steps, Precision::Float64);
    const RunOutput f32 = run(p, steps, Precision::Float32);
    double worst = 0;
    for (size_t r = 0; r < 2; ++r)
        worst = std::max(worst, relative_l2(f32.receivers[r], f64.receivers[r]));
    std::printf(
        "[ measured ] float32 vs float64, box 40x28x20 cells, %zu partitions, %zu steps: "
        "relative L2 difference %.3g (%s %.2f s, %s %.2f s)\n",
        p.decomposition.partitions.size(), steps, worst, f32.name.c_str(), f32.seconds,
        f64.name.c_str(), f64.seconds);
    EXPECT_LE(worst, 1e-4);
}

}  // namespace
}  // namespace ardent::test
