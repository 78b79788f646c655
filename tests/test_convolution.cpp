// Offline FFT convolution (ardent::auralize::convolve) against double-precision direct-form
// convolution: the error must stay at or below -120 dB re the output's peak, for short and long
// signals and filters, filters longer than the signal, several filters at once and several
// threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ardent/auralize/fft_convolution.h"

namespace ardent::test {
namespace {

using auralize::convolve;

std::vector<float> noise(size_t n, unsigned seed, double decay_samples = 0) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> g;
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) {
        const double env =
            decay_samples > 0 ? std::exp(-static_cast<double>(i) / decay_samples) : 1.0;
        v[i] = static_cast<float>(0.3 * g(rng) * env);
    }
    return v;
}

// One output sample of the direct form, in double precision.
double direct_at(std::span<const float> x, std::span<const float> h, size_t n) {
    double s = 0;
    const size_t k0 = n >= x.size() ? n - x.size() + 1 : 0;
    for (size_t k = k0; k < h.size() && k <= n; ++k)
        s += static_cast<double>(x[n - k]) * static_cast<double>(h[k]);
    return s;
}

std::vector<double> direct(std::span<const float> x, std::span<const float> h) {
    std::vector<double> y(x.size() + h.size() - 1);
    for (size_t n = 0; n < y.size(); ++n)
        y[n] = direct_at(x, h, n);
    return y;
}

// max |y - ref| / max |ref|, in dB.
double error_db(std::span<const float> y, std::span<const double> ref) {
    double err = 0, peak = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        err = std::max(err, std::fabs(static_cast<double>(y[i]) - ref[i]));
        peak = std::max(peak, std::fabs(ref[i]));
    }
    return 20 * std::log10(std::max(err, 1e-300) / peak);
}

struct Case {
    size_t nx, nh;
};

TEST(FftConvolution, MatchesDirectFormWithinMinus120Db) {
    const Case cases[] = {{1, 1},       {1, 1000},     {1000, 1},    {7, 5},       {4096, 4096},
                          {5000, 3000}, {20000, 7001}, {100, 20000}, {30011, 2049}};
    double worst = -400;
    for (const Case& c : cases) {
        SCOPED_TRACE(testing::Message() << "x " << c.nx << " samples, h " << c.nh);
        const auto x = noise(c.nx, 1);
        const auto h = noise(c.nh, 2, static_cast<double>(c.nh) / 5);
        const auto y = convolve(x, h);
        const auto ref = direct(x, h);
        ASSERT_EQ(y.size(), ref.size());
        const double db = error_db(y, ref);
        EXPECT_LE(db, -120.0);
        worst = std::max(worst, db);
    }
    RecordProperty("worst_error_db", std::to_string(worst));
}

// Measured FFTW plans are other algorithms: the same accuracy is required of them.
TEST(FftConvolution, MeasuredPlansAreAsAccurate) {
    const auto x = noise(20000, 9);
    const auto h = noise(3000, 10, 600);
    EXPECT_LE(error_db(convolve(x, h, {.measure_fft = true}), direct(x, h)), -120.0);
}

TEST(FftConvolution, EmptyInputGivesEmptyOutput) {
    const std::vector<float> some(10, 1.0f), none;
    EXPECT_TRUE(convolve(none, some).empty());
    EXPECT_TRUE(convolve(some, none).empty());
}

TEST(FftConvolution, SeveralFiltersAndThreadsGiveTheSameResults) {
    const auto x = noise(40000, 3);
    const std::vector<std::vector<float>> hs = {
        noise(3000, 4, 600), noise(11, 5), noise(9000, 6, 2000), {}};
    std::vector<std::span<const float>> spans(hs.begin(), hs.end());
    for (int threads : {1, 2, 3}) {
        SCOPED_TRACE(testing::Message() << threads << " threads");
        const auto ys = convolve(x, spans, {.threads = threads});
        ASSERT_EQ(ys.size(), hs.size());
        EXPECT_TRUE(ys[3].empty());
        for (size_t f = 0; f < 3; ++f) {
            ASSERT_EQ(ys[f].size(), x.size() + hs[f].size() - 1);
            EXPECT_LE(error_db(ys[f], direct(x, hs[f])), -120.0) << "filter " << f;
        }
    }
}

// The size of the benchmark (3 s IR at 48 kHz) with a 10 s signal: the direct form is too slow
// for every sample, so it is evaluated at 300 spread-out samples and at the FFT result's peak.
TEST(FftConvolution, ThreeSecondIrStaysWithinMinus120Db) {
    const auto x = noise(480000, 7);
    const auto h = noise(144000, 8, 144000 / 6.9);
    const auto y = convolve(x, h, {.threads = 2});
    ASSERT_EQ(y.size(), x.size() + h.size() - 1);
    std::vector<size_t> at;
    for (size_t i = 0; i < 300; ++i)
        at.push_back(i * (y.size() - 1) / 299);
    at.push_back(static_cast<size_t>(
        std::max_element(y.begin(), y.end(),
                         [](float a, float b) { return std::fabs(a) < std::fabs(b); }) -
        y.begin()));
    double err = 0, peak = 0;
    for (size_t n : at) {
        const double ref = direct_at(x, h, n);
        err = std::max(err, std::fabs(static_cast<double>(y[n]) - ref));
        peak = std::max(peak, std::fabs(ref));
    }
    const double db = 20 * std::log10(err / peak);
    RecordProperty("error_db", std::to_string(db));
    EXPECT_LE(db, -120.0);
}

TEST(FftConvolution, ChoosesSizesThatHoldTheFilter) {
    EXPECT_EQ(auralize::choose_fft_size(0, 10), 0u);
    for (size_t nh : {1u, 63u, 64u, 1000u, 144000u})
        for (size_t nx : {1u, 100u, 2880000u}) {
            const size_t n = auralize::choose_fft_size(nx, nh);
            EXPECT_GE(n, nh);
            EXPECT_GE(n, 64u);
            // Never beyond the size that holds the whole output in one block, doubled.
            EXPECT_LE(n, 4 * std::max<size_t>(64, nx + nh));
        }
}

}  // namespace
}  // namespace ardent::test
