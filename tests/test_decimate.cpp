// The listener grid's decimator (auralize/decimate.h): the IR convention kept (the spectrum per
// sample in the pass band), the time origin kept, aliasing suppressed, designed for the rates
// `ardent simulate` meets. Signals drawn from a printed seed.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "ardent/auralize/decimate.h"

namespace ardent::audio {
namespace {

constexpr double kPi = std::numbers::pi;

// A pulse band-limited to `band` Hz (a Blackman-windowed sinc) centred at time t0, sampled at fs.
std::vector<float> pulse(double fs, double band, double t0, size_t n) {
    std::vector<float> x(n);
    const double width = 8 / band;  // seconds either side
    for (size_t i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) / fs - t0;
        if (std::abs(t) >= width) continue;
        const double a = 2 * kPi * band * t;
        const double sinc = t == 0 ? 1.0 : std::sin(a) / a;
        const double w =
            0.42 + 0.5 * std::cos(kPi * t / width) + 0.08 * std::cos(2 * kPi * t / width);
        x[i] = static_cast<float>(sinc * w);
    }
    return x;
}

// The DTFT of x (sample rate fs) at f Hz.
std::complex<double> dtft(const std::vector<float>& x, double fs, double f) {
    std::complex<double> s = 0;
    for (size_t n = 0; n < x.size(); ++n)
        s +=
            static_cast<double>(x[n]) * std::polar(1.0, -2 * kPi * f * static_cast<double>(n) / fs);
    return s;
}

TEST(IrDecimator, KeepsTheSpectrumPerSampleAndTheTimeOrigin) {
    // The rates of ARD and FDTD runs: 1 / dt about 6.5 and 17 max_frequency.
    const unsigned seed = 7;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> fmax_d(300, 2000), ratio_d(6.0, 18.0), t0_d(0.02, 0.05);
    for (int c = 0; c < 6; ++c) {
        const double f_max = fmax_d(rng), fs = ratio_d(rng) * f_max, t0 = t0_d(rng);
        const size_t factor = decimation_factor(fs, 2.5 * f_max);
        const IrDecimator d(fs, factor, f_max);
        std::printf(
            "[ case ] seed %u #%d: f_max %.0f Hz, fs %.0f Hz, factor %zu (%.0f Hz), %zu taps\n",
            seed, c, f_max, fs, factor, d.rate_out(), d.taps().size());
        EXPECT_GE(d.rate_out(), 2.5 * f_max);
        EXPECT_LT(fs / static_cast<double>(factor + 1), 2.5 * f_max);  // the largest such factor
        const auto n = static_cast<size_t>(0.1 * fs);
        const std::vector<float> x = pulse(fs, 0.9 * f_max, t0, n);
        const std::vector<float> y =
            d.apply(x, static_cast<size_t>(std::llround(0.1 * d.rate_out())));
        // Spectrum per sample within 1e-3 across the pass band (the convention resample_ir keeps).
        double worst = 0, peak = 0;
        for (double f = 0; f <= 0.85 * f_max; f += 0.05 * f_max) {
            const auto a = dtft(x, fs, f), b = dtft(y, d.rate_out(), f);
            peak = std::max(peak, std::abs(a));
            worst = std::max(worst, std::abs(a - b));
        }
        EXPECT_LT(worst, 1e-3 * peak) << "case " << c;
        // Time origin: the pulse's phase matches (checked above, complex), and its peak lands on
        // the output sample nearest t0.
        size_t at = 0;
        for (size_t i = 0; i < y.size(); ++i)
            if (std::abs(y[i]) > std::abs(y[at])) at = i;
        EXPECT_LE(std::abs(static_cast<double>(at) / d.rate_out() - t0), 0.5 / d.rate_out());
    }
}

TEST(IrDecimator, SuppressesWhatWouldAlias) {
    // A sine at the stop band's edge (fs_out - pass) folds onto the pass band's edge.
    const double fs = 10725, f_max = 1650;
    const IrDecimator d(fs, decimation_factor(fs, 2.5 * f_max), f_max);
    ASSERT_EQ(d.factor(), 2u);
    for (double f : {d.rate_out() - f_max, 0.5 * fs - 1}) {
        std::vector<float> x(4000);
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = static_cast<float>(std::sin(2 * kPi * f * static_cast<double>(i) / fs));
        const std::vector<float> y = d.apply(x, 2000);
        double mx = 0;
        for (size_t i = 200; i < 1800; ++i)
            mx = std::max(mx, std::abs(static_cast<double>(y[i])));
        // Relative to the factor's gain on a pass-band sine.
        const double db = 20 * std::log10(mx / static_cast<double>(d.factor()));
        std::printf("[ measured ] %.0f Hz at %.0f Hz -> %.0f Hz: %.1f dB\n", f, fs, d.rate_out(),
                    db);
        EXPECT_LT(db, -80) << f << " Hz";
    }
}

TEST(IrDecimator, FactorOneIsACopyAndBadArgumentsThrow) {
    const IrDecimator d(8000, 1, 1000);
    const std::vector<float> x{1, -2, 3, 0.5f};
    EXPECT_EQ(d.apply(x, 6), (std::vector<float>{1, -2, 3, 0.5f, 0, 0}));
    EXPECT_THROW(IrDecimator(8000, 2, 2000), std::invalid_argument);  // pass >= fs_out / 2
    EXPECT_THROW(IrDecimator(0, 2, 100), std::invalid_argument);
    EXPECT_THROW(IrDecimator(8000, 0, 100), std::invalid_argument);
    EXPECT_EQ(decimation_factor(10725, 2.5 * 1650), 2u);
    EXPECT_EQ(decimation_factor(1000, 2000), 1u);
}

// Each output is the defining sum, its terms added in order (apply() sums several outputs side by
// side): the same floats, bit for bit, at the edges and inside, for factors and lengths drawn from
// a printed seed.
TEST(IrDecimator, EveryOutputIsItsSumInOrder) {
    const unsigned seed = 4242;
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0.0, 1.0);
    for (int c = 0; c < 12; ++c) {
        const size_t factor = 1 + rng() % 5;
        const double fs = 8000 + static_cast<double>(rng() % 8000);
        const double pass =
            (0.2 + 0.2 * static_cast<double>(rng() % 100) / 100) * fs / static_cast<double>(factor);
        const IrDecimator d(fs, factor, pass);
        const size_t n_in = 1 + rng() % 3000, samples = n_in / factor + rng() % 40;
        std::vector<float> x(n_in);
        for (float& v : x)
            v = static_cast<float>(noise(rng));
        std::printf(
            "seed %u case %d: factor %zu, fs %.0f Hz, pass %.1f Hz, %zu taps, %zu in, %zu "
            "out\n",
            seed, c, factor, fs, pass, d.taps().size(), n_in, samples);
        const std::vector<float> y = d.apply(x, samples);
        ASSERT_EQ(y.size(), samples);
        const auto half = static_cast<long long>(d.half_length());
        for (size_t n = 0; n < samples; ++n) {
            const auto centre = static_cast<long long>(n * factor);
            double acc = 0;
            for (long long j = -half; j <= half; ++j) {
                const long long i = centre + j;
                if (i < 0 || i >= static_cast<long long>(n_in)) continue;
                acc += d.taps()[static_cast<size_t>(j + half)] *
                       static_cast<double>(x[static_cast<size_t>(i)]);
            }
            ASSERT_EQ(y[n], static_cast<float>(static_cast<double>(factor) * acc))
                << "case " << c << ", output " << n;
        }
    }
}

}  // namespace
}  // namespace ardent::audio
