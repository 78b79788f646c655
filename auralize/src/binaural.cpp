#include "ardent/auralize/binaural.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <numbers>
#include <span>
#include <stdexcept>

#include "ardent/auralize/fft_convolution.h"
#include "ardent/preprocess/ambix.h"
#include "fftw_plan.h"

namespace ardent::auralize {
namespace {

using Spectrum = std::vector<std::complex<double>>;

constexpr double kMaxBoostDb = 24.0;
constexpr size_t kDiffuseDirections = 600;

struct PlanFree {
    void operator()(fftw_plan_s* p) const noexcept {
        std::lock_guard lock(detail::planner_mutex());
        fftw_destroy_plan(p);
    }
};
using Plan = std::unique_ptr<fftw_plan_s, PlanFree>;

Spectrum spectrum(const std::vector<float>& x, size_t n) {
    std::vector<double> buf(n, 0.0);
    std::copy(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(std::min(n, x.size())),
              buf.begin());
    Spectrum s(n / 2 + 1);
    Plan p;
    {
        std::lock_guard lock(detail::planner_mutex());
        p.reset(fftw_plan_dft_r2c_1d(static_cast<int>(n), buf.data(),
                                     reinterpret_cast<fftw_complex*>(s.data()), FFTW_ESTIMATE));
    }
    fftw_execute(p.get());
    return s;
}

std::vector<double> inverse(Spectrum s, size_t n) {
    std::vector<double> out(n);
    Plan p;
    {
        std::lock_guard lock(detail::planner_mutex());
        p.reset(fftw_plan_dft_c2r_1d(static_cast<int>(n), reinterpret_cast<fftw_complex*>(s.data()),
                                     out.data(), FFTW_ESTIMATE));
    }
    fftw_execute(p.get());
    for (double& v : out)
        v /= static_cast<double>(n);
    return out;
}

// Evenly spread unit vectors (Fibonacci sphere).
std::vector<Point> sphere(size_t count) {
    std::vector<Point> out;
    const double golden = std::numbers::pi * (3 - std::sqrt(5.0));
    for (size_t i = 0; i < count; ++i) {
        const double z = 1 - (2 * static_cast<double>(i) + 1) / static_cast<double>(count);
        const double r = std::sqrt(1 - z * z), phi = golden * static_cast<double>(i);
        out.push_back({r * std::cos(phi), r * std::sin(phi), z});
    }
    return out;
}

// Plane-wave encoding gains of a direction in ACN order up to `channels` (SN3D, ambix.h).
std::vector<double> encode(const Point& u, size_t channels) {
    std::vector<double> e(channels);
    for (size_t acn = 0; acn < channels; ++acn)
        e[acn] = ambix_gain(acn, Vec3{u[0], u[1], u[2]});
    return e;
}

// Legendre polynomial P_n(x), n <= 3.
double legendre(int n, double x) {
    switch (n) {
        case 0:
            return 1;
        case 1:
            return x;
        case 2:
            return 0.5 * (3 * x * x - 1);
        default:
            return 0.5 * (5 * x * x * x - 3 * x);
    }
}

// The decoder's loudspeakers and max-rE order weights: first order the cube's corners with the
// dipoles weighted by 1/sqrt(3); order N >= 2 a Fibonacci sphere of 2 (N + 1)^2 points (enough
// for the order's spherical harmonics to be sampled without aliasing; (N + 1)^2 of them and their
// mirror images across the median plane) with weights P_n(r_E),
// r_E = cos(137.9 degrees / (N + 1.51)) (Zotter and Frank, Ambisonics, 2019, section 4.7).
struct Layout {
    std::vector<Point> speakers;
    std::vector<double> order_weight;  // per order n
};

Layout layout_for(int order) {
    Layout l;
    if (order == 1) {
        const double c = 1 / std::sqrt(3.0);
        for (double x : {c, -c})
            for (double y : {c, -c})
                for (double z : {c, -c})
                    l.speakers.push_back({x, y, z});
        l.order_weight = {1.0, 1 / std::sqrt(3.0)};
        return l;
    }
    // Left-right symmetric (each point and its mirror across the median plane), so that a source
    // in front is decoded the same at both ears.
    for (const Point& p : sphere(ambisonic_channels(order))) {
        l.speakers.push_back(p);
        l.speakers.push_back({p[0], -p[1], p[2]});
    }
    const double re = std::cos(137.9 * std::numbers::pi / 180 / (order + 1.51));
    for (int n = 0; n <= order; ++n)
        l.order_weight.push_back(legendre(n, re));
    return l;
}

}  // namespace

AmbisonicBinauralDecoder make_binaural_decoder(const HrtfSet& hrtf, int order) {
    if (order < 1 || order > kMaxAmbisonicOrder)
        throw std::invalid_argument("make_binaural_decoder: order must be 1 to 3");
    const Layout layout = layout_for(order);
    const std::vector<Point>& speakers = layout.speakers;
    const size_t channels = ambisonic_channels(order);
    const double count = static_cast<double>(speakers.size());

    std::vector<std::array<std::vector<float>, 2>> hrirs;
    size_t longest = 0;
    for (const Point& u : speakers) {
        hrirs.push_back(hrtf.hrir(u));
        longest = std::max({longest, hrirs.back()[0].size(), hrirs.back()[1].size()});
    }
    size_t n = 2048;
    while (n < 4 * longest)
        n *= 2;
    const size_t bins = n / 2 + 1;

    // Decoder responses D[acn][ear](f) = sum_l gain(acn, l) H_l,ear(f) with the speaker feeds
    // s_l = sum_acn (2n + 1) g_n Y_acn(u_l) a_acn / L (first order: (W + 3 g1 u_l . (X, Y, Z)) /
    // L).
    std::vector<std::array<Spectrum, 2>> d(channels);
    for (auto& acn : d)
        for (auto& ear : acn)
            ear.assign(bins, 0.0);
    for (size_t l = 0; l < speakers.size(); ++l) {
        const auto e = encode(speakers[l], channels);
        for (size_t ear = 0; ear < 2; ++ear) {
            const Spectrum h = spectrum(hrirs[l][ear], n);
            for (size_t acn = 0; acn < channels; ++acn) {
                const int on = ambisonic_order_of_channel(acn);
                const double gain =
                    (acn == 0
                         ? 1.0
                         : (2 * on + 1) * layout.order_weight[static_cast<size_t>(on)] * e[acn]) /
                    count;
                for (size_t k = 0; k < bins; ++k)
                    d[acn][ear][k] += gain * h[k];
            }
        }
    }
    // Diffuse-field response of the whole decoder: mean power over directions and ears.
    std::vector<double> power(bins, 0.0);
    const auto dirs = sphere(kDiffuseDirections);
    for (const Point& u : dirs) {
        const auto e = encode(u, channels);
        for (size_t ear = 0; ear < 2; ++ear)
            for (size_t k = 0; k < bins; ++k) {
                std::complex<double> r = 0;
                for (size_t acn = 0; acn < channels; ++acn)
                    r += e[acn] * d[acn][ear][k];
                power[k] += std::norm(r);
            }
    }
    for (double& p : power)
        p /= 2 * static_cast<double>(dirs.size());
    const double fs = hrtf.sample_rate();
    double mid = 0;
    size_t mid_count = 0;
    for (size_t k = 0; k < bins; ++k) {
        const double f = static_cast<double>(k) * fs / static_cast<double>(n);
        if (f >= 200 && f <= 2000) {
            mid += power[k];
            ++mid_count;
        }
    }
    const double floor_amp = std::sqrt(mid / static_cast<double>(std::max<size_t>(mid_count, 1))) *
                             std::pow(10.0, -kMaxBoostDb / 20);

    AmbisonicBinauralDecoder out;
    out.sample_rate = fs;
    out.order = order;
    out.lead = n / 4;
    out.filters.resize(channels);
    for (size_t acn = 0; acn < channels; ++acn)
        for (size_t ear = 0; ear < 2; ++ear) {
            Spectrum s = d[acn][ear];
            for (size_t k = 0; k < bins; ++k) {
                const double eq = 1 / std::max(std::sqrt(power[k]), floor_amp);
                // Zero-phase equaliser, then a delay of `lead` samples to keep it causal.
                const double phase = -2 * std::numbers::pi * static_cast<double>(k) *
                                     static_cast<double>(out.lead) / static_cast<double>(n);
                s[k] *= eq * std::polar(1.0, phase);
            }
            const auto t = inverse(std::move(s), n);
            out.filters[acn][ear].assign(t.begin(), t.end());
        }
    return out;
}

FoaBinauralDecoder make_foa_binaural_decoder(const HrtfSet& hrtf) {
    AmbisonicBinauralDecoder d = make_binaural_decoder(hrtf, 1);
    FoaBinauralDecoder out;
    out.sample_rate = d.sample_rate;
    out.lead = d.lead;
    for (size_t acn = 0; acn < 4; ++acn)
        out.filters[acn] = std::move(d.filters[acn]);
    return out;
}

std::array<std::vector<float>, 2> binaural_ir(const FoaIr& foa, const FoaBinauralDecoder& decoder) {
    AmbisonicBinauralDecoder d;
    d.sample_rate = decoder.sample_rate;
    d.order = 1;
    d.lead = decoder.lead;
    d.filters.assign(decoder.filters.begin(), decoder.filters.end());
    return binaural_ir(std::vector<std::vector<float>>(foa.channels.begin(), foa.channels.end()),
                       foa.sample_rate, d);
}

std::array<std::vector<float>, 2> binaural_ir(const std::vector<std::vector<float>>& channels,
                                              double sample_rate,
                                              const AmbisonicBinauralDecoder& decoder) {
    if (std::fabs(sample_rate - decoder.sample_rate) > 1e-6 * decoder.sample_rate)
        throw std::invalid_argument("binaural_ir: the ambisonic IR and the decoder rates differ");
    if (channels.size() > decoder.filters.size())
        throw std::invalid_argument("binaural_ir: the IR's order is above the decoder's");
    std::array<std::vector<float>, 2> out;
    for (size_t acn = 0; acn < channels.size(); ++acn) {
        const std::span<const float> filters[] = {decoder.filters[acn][0], decoder.filters[acn][1]};
        const auto y = convolve(channels[acn], std::span<const std::span<const float>>(filters));
        for (size_t ear = 0; ear < 2; ++ear) {
            if (out[ear].empty()) out[ear].assign(y[ear].size(), 0.0f);
            for (size_t i = 0; i < y[ear].size(); ++i)
                out[ear][i] += y[ear][i];
        }
    }
    for (auto& ear : out) {
        const size_t drop = std::min(decoder.lead, ear.size());
        ear.erase(ear.begin(), ear.begin() + static_cast<std::ptrdiff_t>(drop));
    }
    return out;
}

}  // namespace ardent::auralize
