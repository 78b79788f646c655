// ISO 3382-1 analysis (ardent::auralize::analyze_ir) on synthetic exponential decays whose
// parameters are known in closed form: single and double slopes, with and without noise floors
// of -40 to -70 dB; Lundeby's noise estimate and truncation point; the measured clap IR end to
// end; and bad input. The accuracy tests print the errors they measured (docs/analysis.md quotes
// them).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ardent/auralize/analysis.h"
#include "ardent/auralize/audio_io.h"
#include "ardent/auralize/filter_bank.h"
#include "ardent/auralize/lundeby.h"
#include "ardent/preprocess/errors.h"
#include "test_support.h"

namespace ardent::auralize {
namespace {

constexpr double kFs = 48000;
constexpr double kPi = std::numbers::pi;
const double kLn10 = std::log(10.0);
constexpr double kInf = std::numeric_limits<double>::infinity();

// Amplitude decay rate (1/s) of a decay whose energy falls 60 dB in t60 seconds.
double amplitude_rate(double t60) {
    return 3 * kLn10 / t60;
}

// h(t) = e^(-a t) sin(2 pi f t): a decay in one band. Its energy integrals have closed forms.
struct DecayingSine {
    double a, w;  // amplitude decay rate, angular frequency

    // Integral of h^2 from t1 to t2 (t2 may be infinite).
    double energy(double t1, double t2) const {
        const std::complex<double> c(-2 * a, 2 * w);
        const double smooth = (std::exp(-2 * a * t1) - std::exp(-2 * a * t2)) / (4 * a);
        const std::complex<double> e2 = std::isinf(t2) ? 0.0 : std::exp(c * t2);
        return smooth - 0.5 * ((e2 - std::exp(c * t1)) / c).real();
    }
    // Integral of (t - t0) h^2 from t0 to infinity.
    double moment(double t0) const {
        const std::complex<double> c(-2 * a, 2 * w);
        return std::exp(-2 * a * t0) / (8 * a * a) - 0.5 * (std::exp(c * t0) / (c * c)).real();
    }
};

std::vector<float> decaying_sine(double t60, double f, double seconds) {
    const auto n = static_cast<size_t>(seconds * kFs);
    std::vector<float> ir(n);
    const double a = amplitude_rate(t60);
    for (size_t i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) / kFs;
        ir[i] = static_cast<float>(std::exp(-a * t) * std::sin(2 * kPi * f * t));
    }
    return ir;
}

double rel_error(const std::optional<double>& v, double truth) {
    return v ? std::fabs(*v / truth - 1) : kInf;
}

// --- single slope, no noise: every parameter against its closed form ---------------------------

TEST(Analysis, SingleSlopeMatchesClosedForms) {
    double worst_t = 0, worst_c = 0, worst_d = 0, worst_ts = 0;
    for (double t60 : {0.5, 1.0, 2.0}) {
        for (const BandFilter& band : filter_bank(Bands::Octave, kFs)) {
            SCOPED_TRACE("T = " + std::to_string(t60) + " s, band " +
                         std::to_string(band.nominal_hz) + " Hz");
            const std::vector<float> ir =
                decaying_sine(t60, band.exact_hz, std::max(2.0, 2.5 * t60));
            const Analysis a = analyze_ir(ir, kFs, Bands::Octave);
            const BandResult* r = nullptr;
            for (const BandResult& b : a.results)
                if (b.nominal_hz == band.nominal_hz) r = &b;
            ASSERT_NE(r, nullptr);
            for (const auto* v : {&r->edt_s, &r->t20_s, &r->t30_s}) {
                EXPECT_LT(rel_error(*v, t60), 0.01) << "got " << v->value_or(NAN);
                worst_t = std::max(worst_t, rel_error(*v, t60));
            }
            EXPECT_TRUE(r->t20_reliable && r->t30_reliable);

            // Closed forms of the same IR, with the analysis's own time zero (the ISO onset).
            const DecayingSine h{amplitude_rate(t60), 2 * kPi * band.exact_hz};
            const double t0 = a.onset_s, total = h.energy(0, kInf);
            const double c50 = 10 * std::log10(h.energy(0, t0 + 0.05) / h.energy(t0 + 0.05, kInf));
            const double c80 = 10 * std::log10(h.energy(0, t0 + 0.08) / h.energy(t0 + 0.08, kInf));
            const double d50 = h.energy(0, t0 + 0.05) / total;
            const double ts = h.moment(t0) / total;
            ASSERT_TRUE(r->c50_db && r->c80_db && r->d50 && r->ts_s);
            EXPECT_NEAR(*r->c50_db, c50, 0.1);
            EXPECT_NEAR(*r->c80_db, c80, 0.1);
            EXPECT_NEAR(*r->d50, d50, 0.005);
            EXPECT_LT(rel_error(r->ts_s, ts), 0.01);
            worst_c = std::max({worst_c, std::fabs(*r->c50_db - c50), std::fabs(*r->c80_db - c80)});
            worst_d = std::max(worst_d, std::fabs(*r->d50 - d50));
            worst_ts = std::max(worst_ts, rel_error(r->ts_s, ts));
        }
    }
    std::printf(
        "single slope, no noise, octaves 63 Hz-8 kHz, T = 0.5/1/2 s: worst EDT/T20/T30 "
        "%.3f %%, C50/C80 %.3f dB, D50 %.4f, Ts %.3f %%\n",
        100 * worst_t, worst_c, worst_d, 100 * worst_ts);
}

}  // namespace
}  // namespace ardent::auralize
