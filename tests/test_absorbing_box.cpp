// Uniformly absorbing boxes against their modal sum (tests/support/absorbing_box.h), through the
// WAV `ardent simulate` writes: T20 and EDT per octave within 5 % above the Schroeder frequency
// and up to 0.7 max_frequency, averaged over four receivers. Cases are drawn from printed seeds
// (11-13 here; the long suite draws others).
#include <gtest/gtest.h>

#include "absorbing_box.h"

namespace ardent::test {
namespace {

void expect_decays_match(const AbsorbingBox& b) {
    ScratchDir dir;
    const std::vector<BoxDecay> d = absorbing_box_decays(b, dir);
    ASSERT_FALSE(d.empty()) << describe(b) << ": no octave to judge";
    for (const BoxDecay& x : d) {
        EXPECT_NEAR(x.t20 / x.t20_ref, 1.0, 0.05) << describe(b) << ", T20 at " << x.hz << " Hz";
        EXPECT_NEAR(x.edt / x.edt_ref, 1.0, 0.05) << describe(b) << ", EDT at " << x.hz << " Hz";
    }
}

TEST(AbsorbingBox, ArdDecaysLikeTheModalSum) {
    for (std::uint32_t seed : {11u, 12u})
        expect_decays_match(draw_absorbing_box(seed, "ard", 1400));
}

TEST(AbsorbingBox, FdtdDecaysLikeTheModalSum) {
    expect_decays_match(draw_absorbing_box(13u, "fdtd", 1000));
}

}  // namespace
}  // namespace ardent::test
