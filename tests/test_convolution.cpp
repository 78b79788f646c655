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
#include <stdexcept>
#include <string>
#include <vector>

#include "ardent/auralize/fft_convolution.h"
#include "signal_tools.h"

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

// The error of y against ref re ref's peak, as its largest value in each of about 300 chunks of
// the output, in dB (for the figure in docs/validation.md).
void write_error_trace(const std::string& name, std::span<const float> y,
                       std::span<const double> ref) {
    double peak = 0;
    for (double v : ref)
        peak = std::max(peak, std::fabs(v));
    const size_t chunk = std::max<size_t>(1, ref.size() / 300);
    std::vector<double> at, db;
    for (size_t i0 = 0; i0 < ref.size(); i0 += chunk) {
        double e = 0;
        for (size_t i = i0; i < std::min(ref.size(), i0 + chunk); ++i)
            e = std::max(e, std::fabs(static_cast<double>(y[i]) - ref[i]));
        at.push_back(static_cast<double>(i0));
        db.push_back(20 * std::log10(std::max(e, 1e-300) / peak));
    }
    write_validation_csv(name, {"sample", "error_db"}, {at, db});
}

TEST(FftConvolution, MatchesDirectFormWithinMinus120Db) {
    const Case cases[] = {{1, 1},       {1, 1000},     {1000, 1},    {7, 5},       {4096, 4096},
                          {5000, 3000}, {20000, 7001}, {100, 20000}, {30011, 2049}};
    double worst = -400;
    std::vector<double> nxs, nhs, errors;
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
        nxs.push_back(static_cast<double>(c.nx));
        nhs.push_back(static_cast<double>(c.nh));
        errors.push_back(db);
        if (c.nx == 20000 && c.nh == 7001)
            write_error_trace("convolution_offline_trace.csv", y, ref);
    }
    RecordProperty("worst_error_db", std::to_string(worst));
    write_validation_csv("convolution_offline.csv",
                         {"signal_samples", "filter_samples", "error_db"}, {nxs, nhs, errors});
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

// Interleaved input and output, several signals and filters in one pass, signals and filters of
// different lengths (so outputs of different lengths), one and three threads: every output equals
// the direct form, and nothing outside the outputs' samples is written.
TEST(FftConvolution, ConvolveIntoReadsAndWritesInterleavedAudio) {
    const size_t frames = 30000;
    const auto left = noise(frames, 11), right = noise(frames, 12), mono = noise(7000, 13);
    std::vector<float> stereo(2 * frames);
    for (size_t i = 0; i < frames; ++i) {
        stereo[2 * i] = left[i];
        stereo[2 * i + 1] = right[i];
    }
    const std::vector<std::vector<float>> hs = {noise(5000, 14, 1000), noise(300, 15),
                                                noise(9000, 16, 2000)};
    const std::vector<std::span<const float>> filters(hs.begin(), hs.end());
    const std::vector<auralize::StridedSignal> signals = {
        {stereo.data(), frames, 2}, {stereo.data() + 1, frames, 2}, {mono.data(), mono.size(), 1}};
    // Output channels (interleaved, 4 wide): left * h0, right * h0, mono * h1, mono * h2.
    const struct {
        size_t signal, filter;
        const std::vector<float>* x;
    } wanted[] = {{0, 0, &left}, {1, 0, &right}, {2, 1, &mono}, {2, 2, &mono}};
    const size_t len = frames + 5000 - 1;
    for (int threads : {1, 3}) {
        SCOPED_TRACE(testing::Message() << threads << " threads");
        std::vector<float> out(4 * len + 4, 99.0f);  // one spare frame: must stay untouched
        std::vector<auralize::ConvolutionOutput> outputs;
        for (size_t c = 0; c < 4; ++c)
            outputs.push_back({wanted[c].signal, wanted[c].filter, out.data() + c, 4});
        auralize::convolve_into(signals, filters, outputs, {.threads = threads});
        for (size_t c = 0; c < 4; ++c) {
            const auto ref = direct(*wanted[c].x, hs[wanted[c].filter]);
            std::vector<float> y(ref.size());
            for (size_t i = 0; i < y.size(); ++i)
                y[i] = out[4 * i + c];
            EXPECT_LE(error_db(y, ref), -120.0) << "channel " << c;
            // Past its own length a channel is left as it was.
            EXPECT_EQ(out[4 * ref.size() + c], 99.0f) << "channel " << c;
        }
        for (size_t c = 0; c < 4; ++c)
            EXPECT_EQ(out[4 * len + c], 99.0f);
    }
}

TEST(FftConvolution, ConvolveIntoRejectsBadOutputs) {
    const std::vector<float> x(100, 1.0f), h(10, 1.0f);
    std::vector<float> out(200);
    const auralize::StridedSignal sig{x.data(), x.size(), 1};
    const std::span<const float> filter(h);
    const auto run = [&](auralize::ConvolutionOutput o) {
        auralize::convolve_into(std::span<const auralize::StridedSignal>(&sig, 1),
                                std::span<const std::span<const float>>(&filter, 1),
                                std::span<const auralize::ConvolutionOutput>(&o, 1));
    };
    EXPECT_THROW(run({1, 0, out.data(), 1}), std::invalid_argument);
    EXPECT_THROW(run({0, 1, out.data(), 1}), std::invalid_argument);
    EXPECT_THROW(run({0, 0, nullptr, 1}), std::invalid_argument);
    EXPECT_NO_THROW(run({0, 0, out.data(), 1}));
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
