#include "ardent/geometric/synthesis.h"

#include <fftw3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <mutex>
#include <numbers>
#include <stdexcept>

#include "ardent/geometric/directions.h"
#include "ardent/preprocess/fftw_planner.h"
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

// A band-limited impulse at fractional sample position t: 2 kSincHalf taps from `first` on.
struct Impulse {
    long first = 0;
    std::array<double, 2 * kSincHalf> taps{};
};
Impulse impulse_at(double t) {
    Impulse out;
    const auto centre = static_cast<long>(std::floor(t));
    out.first = centre - kSincHalf + 1;
    const double i0_beta = bessel_i0(kSincBeta);
    for (size_t i = 0; i < out.taps.size(); ++i) {
        const double u = static_cast<double>(out.first + static_cast<long>(i)) - t;
        const double w = u / kSincHalf;
        if (std::abs(w) >= 1) continue;
        const double sinc = u == 0 ? 1 : std::sin(std::numbers::pi * u) / (std::numbers::pi * u);
        out.taps[i] = sinc * bessel_i0(kSincBeta * std::sqrt(1 - w * w)) / i0_beta;
    }
    return out;
}

// Adds amplitude a times the impulse to x.
void add_impulse(std::vector<double>& x, const Impulse& imp, double a) {
    for (size_t i = 0; i < imp.taps.size(); ++i) {
        const long k = imp.first + static_cast<long>(i);
        if (k >= 0 && k < static_cast<long>(x.size())) x[static_cast<size_t>(k)] += a * imp.taps[i];
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

// FFTW's planner has global state, and other libraries (auralize, the ARD solver) plan from their
// own threads: the process-wide planner lock (fftw_planner.h), and FFTW's own lock
// (libfftw3_threads) around every double-precision planner call besides.
std::mutex& planner_mutex() {
    static std::once_flag once;
    std::call_once(once, [] { fftw_make_planner_thread_safe(); });
    return fftw_planner_mutex();
}

}  // namespace

double band_weight(int b, double hz) {
    const double above_lower = b == 0 ? 1.0 : step_up(band_edge_hz(b - 1), hz);
    const double above_upper = b == kBands - 1 ? 0.0 : step_up(band_edge_hz(b), hz);
    return above_lower - above_upper;
}

namespace {

// The diffuse noise of one direction (or of all, without directions): its samples and, per band,
// the share of the envelope's energy it carries at each sample.
struct DirectionalNoise {
    std::vector<double> samples;
    Vec3 from{};
};

// Per direction d, band b and sample k, the share of the band's diffuse energy arriving from d:
// the directional bins' shares, linear between bin centres (shares sum to 1 at every sample).
class DirectionShares {
  public:
    explicit DirectionShares(const EnergyHistogram& h) : h_(h) {
        const size_t n = h.directional.size() / kDirections;
        shares_.assign(h.directional.size(), BandValues{});
        for (size_t k = 0; k < n; ++k)
            for (size_t b = 0; b < kBands; ++b) {
                double total = 0;
                for (size_t d = 0; d < kDirections; ++d)
                    total += h.directional[k * kDirections + d][b];
                for (size_t d = 0; d < kDirections; ++d)
                    shares_[k * kDirections + d][b] =
                        total > 0 ? h.directional[k * kDirections + d][b] / total
                                  : 1.0 / kDirections;
            }
    }
    // The two bins around a time and the weight of the later one: a sample's 32 directions share
    // them, so the synthesis finds them once per sample.
    struct Between {
        const BandValues* lo = nullptr;
        const BandValues* hi = nullptr;
        double f = 0;
    };
    Between around(double seconds) const {
        const size_t n = shares_.size() / kDirections;
        if (n == 0) return {};
        const double pos = seconds / h_.direction_bin - 0.5;
        const double lo = std::floor(pos);
        const auto clamp = [&](double i) {
            return static_cast<size_t>(std::clamp(i, 0.0, static_cast<double>(n - 1)));
        };
        return {&shares_[clamp(lo) * kDirections], &shares_[clamp(lo + 1) * kDirections], pos - lo};
    }
    static double at(const Between& w, size_t d, size_t b) {
        if (!w.lo) return 1.0 / kDirections;
        return (1 - w.f) * w.lo[d][b] + w.f * w.hi[d][b];
    }

  private:
    const EnergyHistogram& h_;
    std::vector<BandValues> shares_;
};

}  // namespace

std::vector<std::vector<float>> synthesize_ambisonic_ir(const std::vector<SpecularPath>& paths,
                                                        const EnergyHistogram& diffuse,
                                                        const SynthesisSettings& s, int order) {
    if (order < 0 || order > kMaxAmbisonicOrder)
        throw std::invalid_argument("synthesize_ambisonic_ir: order outside 0-3");
    const bool directional = !diffuse.directional.empty();
    if (order > 0 && !directional)
        throw std::invalid_argument(
            "synthesize_ambisonic_ir: directional channels need the ray tracer's directions");
    const size_t channels = ambisonic_channels(order);
    const double fs = s.sample_rate;
    // Room for the band filters' responses before time zero and after the end, which wrap.
    const size_t n = fft_size(s.samples + static_cast<size_t>(0.1 * fs) + 4 * kSincHalf);
    const size_t bins = n / 2 + 1;
    std::vector<double> x(n);
    std::vector<std::vector<double>> xc(channels, std::vector<double>(n));
    std::vector<std::complex<double>> spectrum(bins);
    std::vector<std::vector<std::complex<double>>> sum(channels,
                                                       std::vector<std::complex<double>>(bins));
    fftw_plan forward, inverse;
    {
        std::lock_guard<std::mutex> lock(planner_mutex());
        forward =
            fftw_plan_dft_r2c_1d(static_cast<int>(n), x.data(),
                                 reinterpret_cast<fftw_complex*>(spectrum.data()), FFTW_ESTIMATE);
        inverse = fftw_plan_dft_c2r_1d(static_cast<int>(n),
                                       reinterpret_cast<fftw_complex*>(spectrum.data()), x.data(),
                                       FFTW_ESTIMATE);
    }
    // One noise sequence for every band, so that equal envelopes sum to plain white noise; with
    // directions, one per direction (independent: their energies add).
    std::vector<DirectionalNoise> noises(directional ? kDirections : 1);
    for (size_t d = 0; d < noises.size(); ++d) {
        noises[d].samples.resize(s.samples);
        Random rng(s.seed, 0x6e6f697365ull + (directional ? 1 + d : 0));
        for (double& v : noises[d].samples)
            v = gaussian(rng);
        if (directional) noises[d].from = direction(d);
    }
    const DirectionShares shares(diffuse);  // empty without directional bins
    std::vector<Impulse> impulses;
    std::vector<std::vector<double>> path_gains;
    for (const SpecularPath& p : paths) {
        // Only a path that arrives within the IR has an impulse (below, the others are skipped):
        // a grid file's path may lie far beyond it, where its sample index fits no integer.
        const double t = p.length / s.speed_of_sound * fs;
        const bool arrives = p.length > 0 && t < static_cast<double>(s.samples + kSincHalf);
        impulses.push_back(arrives ? impulse_at(t) : Impulse{});
        std::vector<double> g(channels);
        for (size_t c = 0; c < channels; ++c)
            g[c] = ambix_gain(c, p.direction);
        path_gains.push_back(std::move(g));
    }
    std::vector<std::vector<double>> noise_gains(noises.size(), std::vector<double>(channels));
    for (size_t d = 0; d < noises.size(); ++d)
        for (size_t c = 0; c < channels; ++c)
            noise_gains[d][c] = ambix_gain(c, noises[d].from);
    const double per_sample = 1.0 / (diffuse.bin * fs * 4 * std::numbers::pi);
    for (int b = 0; b < kBands; ++b) {
        const auto ub = static_cast<size_t>(b);
        for (auto& v : xc)
            std::fill(v.begin(), v.end(), 0.0);
        for (size_t i = 0; i < paths.size(); ++i) {
            const SpecularPath& p = paths[i];
            const double t = p.length / s.speed_of_sound * fs;
            if (!(p.length > 0 && t < static_cast<double>(s.samples + kSincHalf))) continue;
            const double a = p.factor[ub] / (4 * std::numbers::pi * p.length);
            for (size_t c = 0; c < channels; ++c)
                add_impulse(xc[c], impulses[i], a * path_gains[i][c]);
        }
        // The envelope: the bins' energy density, linear between bin centres.
        const auto& h = diffuse.bins;
        for (size_t k = 0; k < s.samples && !h.empty(); ++k) {
            const double pos = static_cast<double>(k) / fs / diffuse.bin - 0.5;
            const auto i = static_cast<long>(std::floor(pos));
            const double f = pos - static_cast<double>(i);
            const auto at = [&](long j) {
                return j < 0 || j >= static_cast<long>(h.size()) ? 0.0
                                                                 : h[static_cast<size_t>(j)][ub];
            };
            const double energy = (1 - f) * at(std::max(0L, i)) + f * at(i + 1);
            if (!(energy > 0)) continue;
            const double amplitude = std::sqrt(energy * per_sample);
            // The directions' sum for every channel in registers, then one store per channel
            // (adding into the channels' arrays direction by direction cost 16 scattered
            // read-modify-writes per direction and sample).
            std::array<double, ambisonic_channels(kMaxAmbisonicOrder)> acc{};
            const DirectionShares::Between w = directional
                                                   ? shares.around(static_cast<double>(k) / fs)
                                                   : DirectionShares::Between{};
            for (size_t d = 0; d < noises.size(); ++d) {
                const double share = directional ? std::sqrt(DirectionShares::at(w, d, ub)) : 1.0;
                const double v = amplitude * share * noises[d].samples[k];
                const double* g = noise_gains[d].data();
                for (size_t c = 0; c < channels; ++c)
                    acc[c] += g[c] * v;
            }
            for (size_t c = 0; c < channels; ++c)
                xc[c][k] += acc[c];
        }
        for (size_t c = 0; c < channels; ++c) {
            std::copy(xc[c].begin(), xc[c].end(), x.begin());
            fftw_execute(forward);
            for (size_t k = 0; k < bins; ++k) {
                const double hz = static_cast<double>(k) * fs / static_cast<double>(n);
                const std::complex<double> add = spectrum[k] * band_weight(b, hz);
                sum[c][k] = b == 0 ? add : sum[c][k] + add;
            }
        }
    }
    std::vector<std::vector<float>> out(channels, std::vector<float>(s.samples));
    for (size_t c = 0; c < channels; ++c) {
        std::copy(sum[c].begin(), sum[c].end(), spectrum.begin());
        fftw_execute(inverse);
        for (size_t k = 0; k < s.samples; ++k)
            out[c][k] = static_cast<float>(x[k] / static_cast<double>(n));
    }
    {
        std::lock_guard<std::mutex> lock(planner_mutex());
        fftw_destroy_plan(forward);
        fftw_destroy_plan(inverse);
    }
    return out;
}

std::vector<float> synthesize_ir(const std::vector<SpecularPath>& paths,
                                 const EnergyHistogram& diffuse, const SynthesisSettings& s) {
    return std::move(synthesize_ambisonic_ir(paths, diffuse, s, 0)[0]);
}

}  // namespace ardent::geometric
