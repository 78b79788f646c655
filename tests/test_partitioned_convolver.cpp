// The real-time partitioned convolver: output equal to double-precision direct-form convolution
// within -120 dB re peak for blocks of 64-512 samples, uniform and multi-stage layouts and several
// channels; IR changes while running that never jump further from one sample to the next than the
// two convolutions being cross-faded allow (and a hard switch, for contrast, does); no heap
// allocation or lock in process(); set_ir() from another thread while processing.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <shared_mutex>
#include <span>
#include <thread>
#include <vector>

#include "ardent/auralize/fft_convolution.h"
#include "ardent/auralize/partitioned_convolver.h"
#include "signal_tools.h"

// Counts heap allocations and lock acquisitions made by this thread while `counting` is set: the
// test for "no allocation or locks in process()". Replacing the global operator new is the
// standard hook for allocations; for locks, this executable's own pthread_mutex_lock and
// pthread_rwlock_*lock (which std::mutex, std::shared_mutex and condition variables call)
// count, then forward to the C library's.
namespace {
thread_local bool counting = false;
thread_local size_t allocations = 0;
thread_local size_t locks = 0;

template <typename Fn>
Fn next_symbol(const char* name) {
    return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}
}  // namespace

extern "C" int pthread_mutex_lock(pthread_mutex_t* m) noexcept {
    if (counting) ++locks;
    static const auto real = next_symbol<int (*)(pthread_mutex_t*)>("pthread_mutex_lock");
    return real(m);
}
extern "C" int pthread_mutex_trylock(pthread_mutex_t* m) noexcept {
    if (counting) ++locks;
    static const auto real = next_symbol<int (*)(pthread_mutex_t*)>("pthread_mutex_trylock");
    return real(m);
}
extern "C" int pthread_rwlock_rdlock(pthread_rwlock_t* l) noexcept {
    if (counting) ++locks;
    static const auto real = next_symbol<int (*)(pthread_rwlock_t*)>("pthread_rwlock_rdlock");
    return real(l);
}
extern "C" int pthread_rwlock_wrlock(pthread_rwlock_t* l) noexcept {
    if (counting) ++locks;
    static const auto real = next_symbol<int (*)(pthread_rwlock_t*)>("pthread_rwlock_wrlock");
    return real(l);
}

void* operator new(size_t n) {
    if (counting) ++allocations;
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
// GCC sees free() on memory from (this) operator new once both are inlined and warns; they match.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, size_t) noexcept {
    std::free(p);
}
#pragma GCC diagnostic pop

namespace ardent::test {
namespace {

using auralize::PartitionedConvolver;

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

std::vector<double> direct(std::span<const float> x, std::span<const float> h, size_t n_out) {
    std::vector<double> y(n_out, 0.0);
    for (size_t n = 0; n < n_out; ++n) {
        double s = 0;
        for (size_t k = 0; k < h.size() && k <= n; ++k)
            if (n - k < x.size()) s += static_cast<double>(x[n - k]) * static_cast<double>(h[k]);
        y[n] = s;
    }
    return y;
}

// Runs `x` (padded with zeros to whole blocks of at least `n_out` samples) through the
// convolver; returns channel-major outputs of n_out samples each.
std::vector<std::vector<float>> run(PartitionedConvolver& conv, std::span<const float> x,
                                    size_t n_out) {
    const size_t b = conv.block(), ch = conv.channels();
    std::vector<std::vector<float>> y(ch, std::vector<float>(n_out));
    std::vector<float> in(b), out(b * ch);
    for (size_t t = 0; t < n_out; t += b) {
        for (size_t i = 0; i < b; ++i)
            in[i] = t + i < x.size() ? x[t + i] : 0.0f;
        conv.process(in, out);
        for (size_t c = 0; c < ch; ++c)
            for (size_t i = 0; i < b && t + i < n_out; ++i)
                y[c][t + i] = out[c * b + i];
    }
    return y;
}

double d(float v) {
    return static_cast<double>(v);
}

// |v[n] - v[n - 1]|
double step(const std::vector<float>& v, size_t n) {
    return std::fabs(d(v[n]) - d(v[n - 1]));
}

double error_db(std::span<const float> y, std::span<const double> ref) {
    double err = 0, peak = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        err = std::max(err, std::fabs(static_cast<double>(y[i]) - ref[i]));
        peak = std::max(peak, std::fabs(ref[i]));
    }
    return 20 * std::log10(std::max(err, 1e-300) / peak);
}

TEST(PartitionedConvolver, LayoutCoversTheIrWithGrowingStages) {
    const auto stages = PartitionedConvolver::layout(144000, 128, 8192);
    ASSERT_GE(stages.size(), 2u);
    EXPECT_EQ(stages[0].block, 128u);
    EXPECT_EQ(stages[0].offset, 0u);
    size_t end = 0;
    for (size_t i = 0; i < stages.size(); ++i) {
        EXPECT_EQ(stages[i].offset, end) << "stage " << i;
        if (i > 0) {
            EXPECT_EQ(stages[i].block, 4 * stages[i - 1].block);
            // Two of its blocks of lead time for the work spread over the calls.
            EXPECT_EQ(stages[i].offset, 2 * stages[i].block);
        }
        EXPECT_LE(stages[i].block, 8192u);
        end = stages[i].offset + stages[i].partitions * stages[i].block;
    }
    EXPECT_GE(end, 144000u);
    EXPECT_LT(end - stages.back().block, 144000u);
    const auto uniform = PartitionedConvolver::layout(144000, 128, 128);
    ASSERT_EQ(uniform.size(), 1u);
    EXPECT_EQ(uniform[0].partitions, 1125u);
}

struct Config {
    size_t block, ir_len, max_partition;
};

TEST(PartitionedConvolver, MatchesDirectFormWithinMinus120Db) {
    const Config configs[] = {
        {64, 1, 8192},     {64, 64, 8192},     {64, 65, 64},       {128, 1000, 8192},
        {128, 30000, 128}, {128, 30000, 8192}, {256, 20000, 8192}, {512, 24000, 8192},
        {512, 9000, 512},  {64, 48000, 1024},
    };
    double worst = -400;
    std::vector<double> blocks, lens, partitions, errors;
    for (const Config& c : configs) {
        SCOPED_TRACE(testing::Message() << "block " << c.block << ", IR " << c.ir_len
                                        << ", max partition " << c.max_partition);
        PartitionedConvolver conv;
        conv.prepare(c.ir_len, c.block, 1, {.max_partition = c.max_partition});
        const auto h = noise(c.ir_len, 11, static_cast<double>(c.ir_len) / 4 + 1);
        conv.set_ir(h);
        const auto x = noise(c.ir_len + 3000, 12);
        const size_t n_out = x.size() + c.ir_len - 1;
        const auto y = run(conv, x, n_out);
        const auto ref = direct(x, h, n_out);
        const double db = error_db(y[0], ref);
        EXPECT_LE(db, -120.0);
        worst = std::max(worst, db);
        blocks.push_back(static_cast<double>(c.block));
        lens.push_back(static_cast<double>(c.ir_len));
        partitions.push_back(static_cast<double>(c.max_partition));
        errors.push_back(db);
        if (c.block == 128 && c.ir_len == 30000 && c.max_partition == 8192) {
            // The error over time, its largest value per chunk of the output (for the figure).
            double peak = 0;
            for (double v : ref)
                peak = std::max(peak, std::fabs(v));
            const size_t chunk = n_out / 300;
            std::vector<double> at, trace;
            for (size_t i0 = 0; i0 < n_out; i0 += chunk) {
                double e = 0;
                for (size_t i = i0; i < std::min(n_out, i0 + chunk); ++i)
                    e = std::max(e, std::fabs(static_cast<double>(y[0][i]) - ref[i]));
                at.push_back(static_cast<double>(i0));
                trace.push_back(20 * std::log10(std::max(e, 1e-300) / peak));
            }
            write_validation_csv("convolution_partitioned_trace.csv", {"sample", "error_db"},
                                 {at, trace});
        }
    }
    RecordProperty("worst_error_db", std::to_string(worst));
    write_validation_csv("convolution_partitioned.csv",
                         {"block", "ir_samples", "max_partition", "error_db"},
                         {blocks, lens, partitions, errors});
}

TEST(PartitionedConvolver, EachChannelHasItsOwnIr) {
    PartitionedConvolver conv;
    conv.prepare(20000, 128, 3);
    const std::vector<std::vector<float>> hs = {noise(20000, 21, 4000), noise(5, 22),
                                                noise(12000, 23, 3000)};
    const std::span<const float> spans[] = {hs[0], hs[1], hs[2]};
    conv.set_ir(spans);
    const auto x = noise(50000, 24);
    const auto y = run(conv, x, x.size() + 20000);
    for (size_t c = 0; c < 3; ++c)
        EXPECT_LE(error_db(y[c], direct(x, hs[c], y[c].size())), -120.0) << "channel " << c;
}

// After reset() the output is that of a fresh convolver: an impulse gives back the IR, with
// nothing left of the earlier input in any stage.
TEST(PartitionedConvolver, ResetForgetsTheHistory) {
    PartitionedConvolver conv;
    conv.prepare(20000, 64, 1);
    const auto h = noise(20000, 71, 4000);
    conv.set_ir(h);
    run(conv, noise(30016, 72), 30016);  // a length that leaves the stages mid-period
    conv.reset();
    std::vector<float> impulse(1, 1.0f);
    const auto y = run(conv, impulse, 20032);
    std::vector<double> ref(h.begin(), h.end());
    ref.resize(20032, 0.0);
    EXPECT_LE(error_db(y[0], ref), -120.0);
}

TEST(PartitionedConvolver, RejectsWrongSizes) {
    PartitionedConvolver conv;
    const std::vector<float> h(100, 0.1f), too_long(101, 0.1f);
    EXPECT_THROW(conv.set_ir(h), std::invalid_argument);  // not prepared
    EXPECT_THROW(conv.prepare(0, 128), std::invalid_argument);
    conv.prepare(100, 64);
    EXPECT_THROW(conv.set_ir(too_long), std::invalid_argument);
    std::vector<float> in(63), out(64);
    EXPECT_THROW(conv.process(in, out), std::invalid_argument);
}

// The largest sample-to-sample step of the output while the IR changes from h1 to h2 must not
// exceed what the cross-fade of the two steady-state convolutions y1 = x*h1 and y2 = x*h2 allows.
// Each stage s fades its own part (IR taps of the stage) linearly over L_s samples, so with
// y = sum_s y1_s + g_s (y2_s - y1_s):
//   |y[n] - y[n-1]| <= sum_s max(|dy1_s[n]|, |dy2_s[n]|) + |y2_s[n-1] - y1_s[n-1]| / L_s.
// The signal is a low sine and h2 = -h1 plus a little noise, so a hard switch would jump by about
// twice the amplitude, far beyond this bound; the test checks that it would.
TEST(PartitionedConvolver, IrSwapNeverJumpsMoreThanTheSignalsAllow) {
    for (size_t max_partition : {size_t{128}, size_t{8192}}) {
        SCOPED_TRACE(testing::Message() << "max partition " << max_partition);
        const size_t block = 128, ir_len = 40000, fade_blocks = 2;
        PartitionedConvolver conv;
        conv.prepare(ir_len, block, 1,
                     {.fade_blocks = fade_blocks, .max_partition = max_partition});
        const auto h1 = noise(ir_len, 31, 8000);
        auto h2 = noise(ir_len, 32, 8000);
        for (size_t i = 0; i < ir_len; ++i)
            h2[i] = -h1[i] + 0.05f * h2[i];
        std::vector<float> x(1600 * block);
        for (size_t i = 0; i < x.size(); ++i)
            x[i] = static_cast<float>(
                0.5 * std::sin(2 * 3.14159265358979 * 110.0 * static_cast<double>(i) / 48000.0));
        conv.set_ir(h1);
        const size_t switch_block = 600;  // 1.6 s: long past the IR's build-up
        std::vector<float> y(x.size()), in(block), out(block);
        for (size_t t = 0, k = 0; t < x.size(); t += block, ++k) {
            if (k == switch_block) conv.set_ir(h2);
            std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(t), block, in.begin());
            conv.process(in, out);
            std::copy(out.begin(), out.end(), y.begin() + static_cast<std::ptrdiff_t>(t));
        }
        EXPECT_FALSE(conv.fading());

        // Per-stage parts of both convolutions.
        const size_t t0 = switch_block * block;
        std::vector<double> bound(x.size(), 0.0);
        for (const auto& st : conv.stages()) {
            const size_t a = st.offset, b = std::min(ir_len, st.offset + st.partitions * st.block);
            if (a >= b) continue;
            std::vector<float> p1(b, 0.0f), p2(b, 0.0f);
            std::copy(h1.begin() + static_cast<std::ptrdiff_t>(a),
                      h1.begin() + static_cast<std::ptrdiff_t>(b),
                      p1.begin() + static_cast<std::ptrdiff_t>(a));
            std::copy(h2.begin() + static_cast<std::ptrdiff_t>(a),
                      h2.begin() + static_cast<std::ptrdiff_t>(b),
                      p2.begin() + static_cast<std::ptrdiff_t>(a));
            const auto y1 = auralize::convolve(x, p1), y2 = auralize::convolve(x, p2);
            const double fade_len = static_cast<double>(std::max(st.block, fade_blocks * block));
            for (size_t n = t0; n < x.size(); ++n)
                bound[n] += std::max(step(y1, n), step(y2, n)) +
                            std::fabs(d(y2[n - 1]) - d(y1[n - 1])) / fade_len;
        }
        const auto y1 = auralize::convolve(x, h1), y2 = auralize::convolve(x, h2);
        double worst = 0, worst_hard = 0;
        for (size_t n = t0; n < x.size(); ++n) {
            const double tol = 1e-5 * 0.5;  // float rounding of the outputs
            worst = std::max(worst, step(y, n) - bound[n] - tol);
            // A hard switch at t0: y1 before, y2 from t0 on.
            const double hard_prev = n - 1 < t0 ? d(y1[n - 1]) : d(y2[n - 1]);
            worst_hard = std::max(worst_hard, std::fabs(d(y2[n]) - hard_prev) - bound[n] - tol);
        }
        EXPECT_LE(worst, 0.0) << "a step exceeds the bound by " << worst;
        EXPECT_GT(worst_hard, 0.1) << "the hard switch should break the bound";
        // After the fades: exactly the new convolution, with the full history.
        std::vector<double> tail(y2.begin(), y2.begin() + static_cast<std::ptrdiff_t>(x.size()));
        std::vector<float> y_end(y.end() - 20000, y.end());
        std::vector<double> ref_end(tail.end() - 20000, tail.end());
        EXPECT_LE(error_db(y_end, ref_end), -110.0);
    }
}

TEST(PartitionedConvolver, ProcessDoesNotAllocateOrLock) {
    PartitionedConvolver conv;
    conv.prepare(48000, 128, 2);
    const auto h = noise(48000, 41, 8000);
    const std::span<const float> two[] = {h, h};
    conv.set_ir(two);
    std::vector<float> in = noise(128, 42), out(256);
    // The hooks themselves must see allocations and locks, or this test could not fail.
    counting = true;
    allocations = locks = 0;
    auto probe = std::make_unique<std::vector<float>>(10);
    {
        std::mutex m;
        const std::lock_guard lock(m);
    }
    {
        std::shared_mutex m;
        const std::shared_lock lock(m);
    }
    counting = false;
    ASSERT_GE(allocations, 1u);
    ASSERT_GE(locks, 2u);
    size_t allocs_during = 0, locks_during = 0;
    // IR changes from another thread while this one processes: set_ir() takes its own mutex,
    // which process() must never wait for.
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        while (!stop.load()) {
            conv.set_ir(two);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    });
    for (int k = 0; k < 2000; ++k) {
        if (k == 700) conv.set_ir(two);  // a fade in between
        counting = true;
        allocations = locks = 0;
        conv.process(in, out);
        counting = false;
        allocs_during += allocations;
        locks_during += locks;
    }
    stop = true;
    writer.join();
    EXPECT_EQ(allocs_during, 0u);
    EXPECT_EQ(locks_during, 0u);
}

// A writer thread keeps replacing the IR while the audio thread runs; afterwards the output
// settles on the last IR exactly.
TEST(PartitionedConvolver, SetIrFromAnotherThreadWhileProcessing) {
    const size_t block = 64, ir_len = 20000;
    PartitionedConvolver conv;
    conv.prepare(ir_len, block, 1);
    std::vector<std::vector<float>> irs;
    for (unsigned i = 0; i < 5; ++i)
        irs.push_back(noise(ir_len, 50 + i, 3000));
    conv.set_ir(irs[0]);
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        for (size_t i = 0; !stop.load(); ++i)
            conv.set_ir(irs[i % 4]);
    });
    const auto x = noise(400000, 60);
    std::vector<float> in(block), out(block), y(x.size());
    for (size_t t = 0; t < x.size(); t += block) {
        if (t == 200000) {
            stop = true;
            writer.join();
            conv.set_ir(irs[4]);
        }
        std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(t), block, in.begin());
        conv.process(in, out);
        std::copy(out.begin(), out.end(), y.begin() + static_cast<std::ptrdiff_t>(t));
    }
    for (float v : y)
        ASSERT_TRUE(std::isfinite(v));
    const auto ref = auralize::convolve(x, irs[4]);
    std::vector<float> y_end(y.end() - 50000, y.end());
    std::vector<double> ref_end(ref.begin() + static_cast<std::ptrdiff_t>(x.size() - 50000),
                                ref.begin() + static_cast<std::ptrdiff_t>(x.size()));
    EXPECT_LE(error_db(y_end, ref_end), -110.0);
}

}  // namespace
}  // namespace ardent::test
