// The measured BRAS CR2 seminar room, 500 Hz octave (tests/support/bras_cr2.h): the CI part of
// the validation against measurement (the long suite runs 125 Hz-1 kHz). Skips without ../shared.
#include <gtest/gtest.h>

#include "bras_cr2.h"

namespace ardent::test {
namespace {

// FDTD at 1 kHz (10 points per wavelength): T20 and EDT within 10 % of the measurement.
TEST(BrasCr2, FdtdReverberationAt500HzMatchesTheMeasurement) {
    if (!std::filesystem::exists(bras_cr2_dir())) GTEST_SKIP() << "no " << bras_cr2_dir();
    ScratchDir dir;
    const auto bands = bras_cr2_decays("fdtd", 1000, dir);
    const Cr2Band* b = find_band(bands, 500);
    ASSERT_NE(b, nullptr);
    EXPECT_NEAR(b->t20 / b->t20_measured, 1.0, 0.10);
    EXPECT_NEAR(b->edt / b->edt_measured, 1.0, 0.10);
}

// ARD at 1.4 kHz: T20 within 10 %. Its EDT is reported, not judged here: at 1.4 kHz it is 12 %
// short (6 % at 3 kHz), the interfaces' scattering near max_frequency (docs/validation.md).
TEST(BrasCr2, ArdReverberationAt500HzMatchesTheMeasurement) {
    if (!std::filesystem::exists(bras_cr2_dir())) GTEST_SKIP() << "no " << bras_cr2_dir();
    ScratchDir dir;
    const auto bands = bras_cr2_decays("ard", 1400, dir);
    const Cr2Band* b = find_band(bands, 500);
    ASSERT_NE(b, nullptr);
    EXPECT_NEAR(b->t20 / b->t20_measured, 1.0, 0.10);
}

}  // namespace
}  // namespace ardent::test
