// The measured BRAS CR2 seminar room, 125 Hz-1 kHz (tests/support/bras_cr2.h), label `long`:
// ARD on the CPU to 2 kHz (about 6 minutes on 2 cores). T20 within 15 % at 250 Hz and 10 % at
// 500 Hz and 1 kHz, EDT within 10 % at 500 Hz and 1 kHz; 125 Hz (below the Schroeder frequency)
// and the 250 Hz EDT are reported. The full band (ARD to 700 Hz, the geometric engine above):
// T20 and EDT within 10 %, C80 within 1 dB, 250 Hz-8 kHz. Skips without ../shared.
#include <gtest/gtest.h>

#include "bras_cr2.h"

namespace ardent::test {
namespace {

TEST(BrasCr2Long, ArdReverberationMatchesTheMeasurement) {
    if (!std::filesystem::exists(bras_cr2_dir())) GTEST_SKIP() << "no " << bras_cr2_dir();
    ScratchDir dir;
    const auto bands = bras_cr2_decays("ard", 2000, dir);
    for (const auto& [hz, bar] : {std::pair{250.0, 0.15}, {500.0, 0.10}, {1000.0, 0.10}}) {
        const Cr2Band* b = find_band(bands, hz);
        ASSERT_NE(b, nullptr) << hz << " Hz";
        EXPECT_NEAR(b->t20 / b->t20_measured, 1.0, bar) << "T20 at " << hz << " Hz";
        if (hz >= 500) {
            EXPECT_NEAR(b->edt / b->edt_measured, 1.0, bar) << "EDT at " << hz << " Hz";
        }
    }
}

// Full band (docs/full-band.md): ARD to 700 Hz below its crossover (420 Hz), the geometric engine
// above with BRAS's own scattering coefficients. Each octave is the mean of its third octaves, as
// the measured values are (bras_cr2.h).
TEST(BrasCr2Long, FullBandMatchesTheMeasurement) {
    if (!std::filesystem::exists(bras_cr2_dir())) GTEST_SKIP() << "no " << bras_cr2_dir();
    ScratchDir dir;
    const auto bands = bras_cr2_decays("ard", 700, dir, 2.2, true);
    // Issue 20's targets: T20 and EDT within 10 %, C80 within 1 dB, 250 Hz-8 kHz (the 250 Hz EDT
    // was +14 % before thin faces, +0.7 % since: docs/validation.md check 5e).
    for (double hz : {250.0, 500.0, 1000.0, 2000.0, 4000.0, 8000.0}) {
        const Cr2Band* b = find_band(bands, hz);
        ASSERT_NE(b, nullptr) << hz << " Hz";
        EXPECT_NEAR(b->c80, b->c80_measured, 1.0) << "C80 at " << hz << " Hz";
        EXPECT_NEAR(b->t20 / b->t20_measured, 1.0, 0.10) << "T20 at " << hz << " Hz";
        EXPECT_NEAR(b->edt / b->edt_measured, 1.0, 0.10) << "EDT at " << hz << " Hz";
    }
}

}  // namespace
}  // namespace ardent::test
