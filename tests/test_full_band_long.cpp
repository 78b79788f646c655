// The full-band continuity check (support/full_band_check.h) on the bundled L-shaped room and the
// studio at 1 kHz: a few minutes each on 2 cores, hence the `long` label.
#include <gtest/gtest.h>

#include "full_band_check.h"

namespace {

class FullBandContinuityLong : public testing::TestWithParam<ardent::test::Continuity> {};

TEST_P(FullBandContinuityLong, WaveAndGeometricHalvesAgreeInTheCrossoverBand) {
    ardent::test::expect_full_band_continuity(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Scenes, FullBandContinuityLong,
                         testing::Values(ardent::test::Continuity{"lshape.json", 1000},
                                         ardent::test::Continuity{"studio.json", 1000}),
                         [](const auto& p) {
                             return p.param.scene.substr(0, p.param.scene.find('.'));
                         });

}  // namespace
