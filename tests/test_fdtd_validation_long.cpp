// The full-size FDTD validation runs (CTest label `long`, scripts/test --long): third-octave levels
// against ARD in the L-shaped room at f_max 1029 Hz, rigid over 0.5 s and with its materials over
// 1 s, and 100 000 source-free steps in the rigid L-shaped room (edges, an inner corner and a
// non-convex shape) in float32 and float64.
#include <gtest/gtest.h>

#include <cstdio>

#include "fdtd_validation.h"

namespace ardent::test {
namespace {

TEST(FdtdValidationLong, RigidLShapedRoomThirdOctaveLevelsMatchArd) {
    fdtd_validation::LRoomSetup s;
    s.ard_cells_per_metre = 10;  // f_max 1029 Hz: 2.9 M FDTD air cells
    s.duration = 0.5;
    s.rigid = true;
    fdtd_validation::expect_lroom_levels_match(s, 12);  // 50 to 630 Hz
}

TEST(FdtdValidationLong, LShapedRoomWithItsMaterialsThirdOctaveLevelsMatchArd) {
    fdtd_validation::LRoomSetup s;
    s.ard_cells_per_metre = 10;  // f_max 1029 Hz
    s.duration = 1.0;
    fdtd_validation::expect_lroom_levels_match(s, 12);  // 50 to 630 Hz
}

class FdtdLongEnergy : public ::testing::TestWithParam<Precision> {};

TEST_P(FdtdLongEnergy, RigidLShapedRoomEnergyDoesNotGrowOver100000Steps) {
    fdtd_validation::LRoomSetup s;
    s.ard_cells_per_metre = 1;  // f_max 103 Hz: 2 916 air cells
    s.rigid = true;
    const Preprocessed p = preprocess(fdtd_validation::lroom_scene(s, true));
    const auto r = fdtd_validation::energy_run(p, GetParam(), 100000, 200,
                                               "FDTD, rigid L-shaped room at f_max 103 Hz");
    EXPECT_LE(r.max_ratio, 2.0);
    EXPECT_LE(r.last_over_first, 1.02);
}

INSTANTIATE_TEST_SUITE_P(Precision, FdtdLongEnergy,
                         ::testing::Values(Precision::Float32, Precision::Float64));

}  // namespace
}  // namespace ardent::test
