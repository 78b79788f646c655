#include "ardent/geometric/synthesis.h"

#include <fftw3.h>

#include <cmath>
#include <complex>
#include <mutex>
#include <numbers>

#include "random.h"

namespace ardent::geometric {
namespace {

// Each band edge's transition spans half an octave, centred on the edge.
constexpr double kTransitionOctaves = 0.5;
// The fractional-delay impulse: a Kaiser-windowed sinc of this many samples each side.
constexpr int kSincHalf = 32;
constexpr double kSincBeta = 8.0;

// 0 below the transition around `edge`, 1 above it, a raised cosine in log frequency between.
double step_up(double edge, double hz) {
    if (hz <= 0) return 0;
    const double x = std::log2(hz / edge) / kTransitionOctaves;  // -0.5 .. 0.5 in the transition
    if (x <= -0.5) return 0;
    if (x >= 0.5) return 1;
    return 0.5 - 0.5 * std::cos(std::numbers::pi * (x + 0.5));
}

double bessel_i0(double x) {
    double sum = 1, term = 1;
    for (int k = 1; k < 50; ++k) {
        term *= (x / (2 * k)) * (x / (2 * k));
        sum += term;
        if (term < 1e-17 * sum) break;
    }
    return sum;
}

// Adds amplitude a at fractional sample position t to x.
void add_impulse(std::vector<double>& x, double t, double a) {
    const auto centre = static_cast<long>(std::floor(t));
    const double i0_beta = bessel_i0(kSincBeta);
    for (long k = centre - kSincHalf + 1; k <= centre + kSincHalf; ++k) {
        if (k < 0 || k >= static_cast<long>(x.size())) continue;
        const double u = static_cast<double>(k) - t;
        const double w = u / kSincHalf;
        if (std::abs(w) >= 1) continue;
        const double sinc = u == 0 ? 1 : std::sin(std::numbers::pi * u) / (std::numbers::pi * u);
        x[static_cast<size_t>(k)] +=
            a * sinc * bessel_i0(kSincBeta * std::sqrt(1 - w * w)) / i0_beta;
    }
}

double gaussian(Random& rng) {
    const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

// A transform size at least n with no prime factor above 5 (fast in FFTW).
size_t fft_size(size_t n) {
    for (size_t m = n;; ++m) {
        size_t r = m;
        for (size_t p : {2, 3, 5})
            while (r % p == 0)
                r /= p;
        if (r == 1) return m;
    }
}

// FFTW's planner has global state, and other libraries (auralize) plan from their own threads:
// FFTW's own lock (libfftw3_threads) serialises every planner call in the process.
std::mutex& planner_mutex() {
    static std::mutex m;
    static std::once_flag once;
    std::call_once(once, [] { fftw_make_planner_thread_safe(); });
    return m;
}

}  // namespace

double band_weight(int b, double hz) {
    const double above_lower = b == 0 ? 1.0 : step_up(band_edge_hz(b - 1), hz);
    const double above_upper = b == kBands - 1 ? 0.0 : step_up(band_edge_hz(b), hz);
    return above_lower - above_upper;
}

std::vector<float> synthesize_ir(const std::vector<SpecularPath>& paths,
                                 const EnergyHistogram& diffuse, const SynthesisSettings& s) {
    const double fs = s.sample_rate;
    // Room for the band filters' responses before time zero and after the end, which wrap.
    const size_t n = fft_size(s.samples + static_cast<size_t>(0.1 * fs) + 4 * kSincHalf);
    const size_t bins = n / 2 + 1;
    std::vector<double> x(n);
    std::vector<std::complex<double>> spectrum(bins), sum(bins);
    fftw_plan forward, inverse;
    {
        std::lock_guard<std::mutex> lock(planner_mutex());
        forward =
            fftw_plan_dft_r2c_1d(static_cast<int>(n), x.data(),
                                 reinterpret_cast<fftw_complex*>(spectrum.data()), FFTW_ESTIMATE);
        inverse =
            fftw_plan_dft_c2r_1d(static_cast<int>(n), reinterpret_cast<fftw_complex*>(sum.data()),
                                 x.data(), FFTW_ESTIMATE);
    }
    // One noise sequence for every band, so that equal envelopes sum to plain white noise.
    std::vector<double> noise(s.samples);
    Random rng(s.seed, 0x6e6f697365ull);
    for (double& v : noise)
        v = gaussian(rng);
    const double per_sample = 1.0 / (diffuse.bin * fs * 4 * std::numbers::pi);
    for (int b = 0; b < kBands; ++b) {
        std::fill(x.begin(), x.end(), 0.0);
        for (const SpecularPath& p : paths) {
            const double t = p.length / s.speed_of_sound * fs;
            if (p.length > 0 && t < static_cast<double>(s.samples + kSincHalf))
                add_impulse(x, t,
                            p.factor[static_cast<size_t>(b)] / (4 * std::numbers::pi * p.length));
        }
        // The envelope: the bins' energy density, linear between bin centres.
        const auto& h = diffuse.bins;
        for (size_t k = 0; k < s.samples && !h.empty(); ++k) {
            const double pos = static_cast<double>(k) / fs / diffuse.bin - 0.5;
            const auto i = static_cast<long>(std::floor(pos));
            const double f = pos - static_cast<double>(i);
            const auto at = [&](long j) {
                return j < 0 || j >= static_cast<long>(h.size())
                           ? 0.0
                           : h[static_cast<size_t>(j)][static_cast<size_t>(b)];
            };
            const double energy = (1 - f) * at(std::max(0L, i)) + f * at(i + 1);
            x[k] += std::sqrt(std::max(0.0, energy) * per_sample) * noise[k];
        }
        fftw_execute(forward);
        for (size_t k = 0; k < bins; ++k) {
            const double hz = static_cast<double>(k) * fs / static_cast<double>(n);
            const std::complex<double> add = spectrum[k] * band_weight(b, hz);
            sum[k] = b == 0 ? add : sum[k] + add;
        }
    }
    fftw_execute(inverse);
    {
        std::lock_guard<std::mutex> lock(planner_mutex());
        fftw_destroy_plan(forward);
        fftw_destroy_plan(inverse);
    }
    std::vector<float> ir(s.samples);
    for (size_t k = 0; k < s.samples; ++k)
        ir[k] = static_cast<float>(x[k] / static_cast<double>(n));
    return ir;
}

}  // namespace ardent::geometric
