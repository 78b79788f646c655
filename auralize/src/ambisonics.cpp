#include "ardent/auralize/ambisonics.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ardent/preprocess/ambix.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/number_text.h"
#include "fftw_plan.h"

namespace ardent::auralize {
namespace {

Point normalised(const Point& v) {
    const double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(n > 1e-12) || !std::isfinite(n))
        throw std::invalid_argument("orientation: a zero or non-finite axis");
    return {v[0] / n, v[1] / n, v[2] / n};
}

double dot(const Point& a, const Point& b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

Point cross(const Point& a, const Point& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// The dipoles in the listener's frame from signals along the model's axes x, y, z (float or
// double): X = front.v, Y = left.v, Z = up.v, summed in double.
template <typename Signal>
void set_dipoles(FoaIr& out, const ListenerAxes& axes, const Signal& x, const Signal& y,
                 const Signal& z) {
    const std::pair<Acn, Point> dipoles[] = {{kY, axes.left}, {kZ, axes.up}, {kX, axes.front}};
    for (const auto& [acn, axis] : dipoles) {
        auto& ch = out.channels[acn];
        ch.resize(x.size());
        for (size_t i = 0; i < ch.size(); ++i)
            ch[i] = static_cast<float>(axis[0] * static_cast<double>(x[i]) +
                                       axis[1] * static_cast<double>(y[i]) +
                                       axis[2] * static_cast<double>(z[i]));
    }
}

// Raised-cosine step from 0 at f0 to 1 at f1.
double rise(double f, double f0, double f1) {
    if (f <= f0) return 0;
    if (f >= f1) return 1;
    return 0.5 - 0.5 * std::cos(std::numbers::pi * (f - f0) / (f1 - f0));
}

// c * integral(g dt) band-limited to [20 Hz, limit]: in the frequency domain c G / (i omega)
// times a window that is 1 from 20 Hz to 0.8 limit and falls to 0 at 10 Hz and at the limit
// (below 20 Hz the integrator would only amplify numerical noise; nothing audible is there),
// times central_difference_gain(kd) when `d` > 0. The signal is zero-padded to twice its length
// so the integral's tail does not wrap around.
std::vector<double> integrate(std::span<const double> g, double fs, double limit_hz, double c,
                              double d) {
    size_t n = 1;
    while (n < 2 * g.size())
        n *= 2;
    std::vector<double> buf(n, 0.0);
    std::copy(g.begin(), g.end(), buf.begin());
    std::vector<std::complex<double>> spec(n / 2 + 1);
    auto* cs = reinterpret_cast<fftw_complex*>(spec.data());
    fftw_execute(detail::plan_r2c(n, buf.data(), cs).get());
    const double low0 = std::min(10.0, 0.25 * limit_hz), low1 = std::min(20.0, 0.5 * limit_hz);
    for (size_t k = 0; k < spec.size(); ++k) {
        const double f = static_cast<double>(k) * fs / static_cast<double>(n);
        const double w = rise(f, low0, low1) * (1 - rise(f, 0.8 * limit_hz, limit_hz));
        if (w == 0) {
            spec[k] = 0;
            continue;
        }
        const double omega = 2 * std::numbers::pi * f;
        const double eq = d > 0 ? central_difference_gain(omega * d / c) : 1.0;
        spec[k] *= std::complex<double>(0, -c * w * eq / (omega * static_cast<double>(n)));
    }
    fftw_execute(detail::plan_c2r(n, cs, buf.data()).get());
    buf.resize(g.size());
    return buf;
}

}  // namespace

ListenerAxes listener_axes(const Orientation& orientation) {
    ListenerAxes axes;
    axes.front = normalised(orientation.front);
    Point up = orientation.up;
    const double along = dot(up, axes.front);
    for (size_t a = 0; a < 3; ++a)
        up[a] -= along * axes.front[a];
    axes.up = normalised(up);
    axes.left = cross(axes.up, axes.front);
    return axes;
}

FoaIr rotate_foa(const FoaIr& model_axes, const Orientation& orientation) {
    const ListenerAxes axes = listener_axes(orientation);
    const auto& ch = model_axes.channels;
    const size_t n = ch[kW].size();
    if (ch[kX].size() != n || ch[kY].size() != n || ch[kZ].size() != n)
        throw std::invalid_argument("rotate_foa: the four channels' lengths differ");
    FoaIr out = model_axes;
    // The identity is a copy, not 1 * X + 0 * Y + 0 * Z, which can turn -0 into +0.
    if (axes.front == Point{1, 0, 0} && axes.left == Point{0, 1, 0} && axes.up == Point{0, 0, 1})
        return out;
    set_dipoles(out, axes, ch[kX], ch[kY], ch[kZ]);
    return out;
}

std::vector<std::vector<float>> rotate_ambix(const std::vector<std::vector<float>>& model_axes,
                                             const Orientation& orientation) {
    int order = -1;
    for (int n = 0; n <= kMaxAmbisonicOrder; ++n)
        if (ambisonic_channels(n) == model_axes.size()) order = n;
    if (order < 0)
        throw std::invalid_argument("rotate_ambix: " + std::to_string(model_axes.size()) +
                                    " channels are not an AmbiX order's (4, 9 or 16)");
    for (const auto& c : model_axes)
        if (c.size() != model_axes[0].size())
            throw std::invalid_argument("rotate_ambix: the channels' lengths differ");
    const ListenerAxes axes = listener_axes(orientation);
    // The identity is a copy (as rotate_foa's), not a quadrature's near-identity.
    if (axes.front == Point{1, 0, 0} && axes.left == Point{0, 1, 0} && axes.up == Point{0, 0, 1})
        return model_axes;
    if (order <= 1) {
        if (order == 0) return model_axes;
        FoaIr foa;
        for (size_t c = 0; c < 4; ++c)
            foa.channels[c] = model_axes[c];
        const FoaIr turned = rotate_foa(foa, orientation);
        return {turned.channels.begin(), turned.channels.end()};
    }
    // M[j][i] = (2n + 1) / Q sum_q Y_j(T u_q) Y_i(u_q) within each order n, T the model-to-
    // listener rotation; SN3D channels of order n have a mean square of 1 / (2n + 1).
    const size_t channels = model_axes.size();
    constexpr size_t kQuadrature = 4000;
    std::vector<double> m(channels * channels, 0.0);
    const double golden = std::numbers::pi * (3 - std::sqrt(5.0));
    std::vector<double> yu(channels), yt(channels);
    for (size_t q = 0; q < kQuadrature; ++q) {
        const double z = 1 - (2 * static_cast<double>(q) + 1) / kQuadrature;
        const double r = std::sqrt(1 - z * z), phi = golden * static_cast<double>(q);
        const Vec3 u{r * std::cos(phi), r * std::sin(phi), z};
        const Vec3 t{axes.front[0] * u.x + axes.front[1] * u.y + axes.front[2] * u.z,
                     axes.left[0] * u.x + axes.left[1] * u.y + axes.left[2] * u.z,
                     axes.up[0] * u.x + axes.up[1] * u.y + axes.up[2] * u.z};
        for (size_t c = 0; c < channels; ++c) {
            yu[c] = ambix_gain(c, u);
            yt[c] = ambix_gain(c, t);
        }
        for (size_t j = 0; j < channels; ++j)
            for (size_t i = 0; i < channels; ++i)
                if (ambisonic_order_of_channel(i) == ambisonic_order_of_channel(j))
                    m[j * channels + i] += yt[j] * yu[i];
    }
    std::vector<std::vector<float>> out(channels, std::vector<float>(model_axes[0].size(), 0.0f));
    for (size_t j = 0; j < channels; ++j) {
        const double scale = (2.0 * ambisonic_order_of_channel(j) + 1) / kQuadrature;
        for (size_t i = 0; i < channels; ++i) {
            const double g = m[j * channels + i] * scale;
            if (std::abs(g) < 1e-9) continue;
            for (size_t k = 0; k < out[j].size(); ++k)
                out[j][k] += static_cast<float>(g * static_cast<double>(model_axes[i][k]));
        }
    }
    return out;
}

double directional_limit_hz(double spacing, double speed_of_sound, double kd_limit) {
    return kd_limit * speed_of_sound / (2 * std::numbers::pi * spacing);
}

double central_difference_gain(double kd) {
    if (kd < 1e-3) return 1.0;  // the series: 1 + (kd)^2 / 10 + ...; avoids cancellation
    return std::sqrt(kd * kd / 3 / (0.5 - std::sin(2 * kd) / (4 * kd)));
}

FoaIr encode_foa(std::span<const float> pressure, const std::array<std::vector<float>, 3>& gradient,
                 double sample_rate, double limit_hz, const Orientation& orientation,
                 double speed_of_sound, double difference_spacing) {
    for (const auto& g : gradient)
        if (g.size() != pressure.size())
            throw std::invalid_argument("encode_foa: gradient and pressure lengths differ");
    if (!(sample_rate > 0) || !(limit_hz > 0))
        throw std::invalid_argument("encode_foa: sample rate and limit must be positive");
    const ListenerAxes axes = listener_axes(orientation);

    // Velocity-like signals c * integral(grad p) along the model axes.
    std::array<std::vector<double>, 3> v;
    for (size_t a = 0; a < 3; ++a) {
        std::vector<double> g(gradient[a].begin(), gradient[a].end());
        v[a] = integrate(g, sample_rate, std::min(limit_hz, 0.5 * sample_rate), speed_of_sound,
                         difference_spacing);
    }
    FoaIr out;
    out.sample_rate = sample_rate;
    out.directional_limit_hz = limit_hz;
    out.channels[kW].assign(pressure.begin(), pressure.end());
    set_dipoles(out, axes, v[0], v[1], v[2]);
    return out;
}

namespace {

// What a grid holds for one point, or a blend of points: the pressure IR and the gradient IRs
// along the model axes, with how each axis's gradient was formed (2 central, 1 one-sided, 0 none).
struct PointSignals {
    std::vector<float> pressure;
    std::array<std::vector<float>, 3> gradient;
    std::array<int, 3> kind{};
};

PointSignals point_signals(const IrGrid& grid, size_t point) {
    PointSignals out;
    out.pressure = grid.ir(point);
    if (grid.has_gradient()) {
        // Format 2: one-cell differences stored by ardent simulate.
        out.gradient = grid.gradient(point);
        out.kind = grid.gradient_kind(point);
        return out;
    }
    const double d = grid.spacing();
    const std::vector<float>& p0 = out.pressure;
    for (int axis = 0; axis < 3; ++axis) {
        const auto plus = grid.neighbour(point, axis, +1);
        const auto minus = grid.neighbour(point, axis, -1);
        auto& g = out.gradient[static_cast<size_t>(axis)];
        g.assign(p0.size(), 0.0f);
        if (plus && minus) {
            const auto a = grid.ir(*plus), b = grid.ir(*minus);
            for (size_t i = 0; i < g.size(); ++i)
                g[i] = static_cast<float>((static_cast<double>(a[i]) - static_cast<double>(b[i])) /
                                          (2 * d));
            out.kind[static_cast<size_t>(axis)] = 2;
        } else if (plus || minus) {
            const auto a = plus ? grid.ir(*plus) : p0;
            const auto b = plus ? p0 : grid.ir(*minus);
            for (size_t i = 0; i < g.size(); ++i)
                g[i] =
                    static_cast<float>((static_cast<double>(a[i]) - static_cast<double>(b[i])) / d);
            out.kind[static_cast<size_t>(axis)] = 1;
        }
    }
    return out;
}

// The weighted sum of the points' signals. An axis's gradient is averaged over the points that
// have one along it (weights renormalised over them): a point without one (kind 0, zeros) would
// otherwise pull the blend towards no direction. One-sided if any of them is.
PointSignals blend(const IrGrid& grid, const std::vector<IrGrid::Weight>& weights) {
    const size_t n = grid.samples();
    std::vector<double> p(n, 0.0);
    std::array<std::vector<double>, 3> g;
    std::array<double, 3> axis_weight{};
    std::array<bool, 3> one_sided{};
    for (auto& v : g)
        v.assign(n, 0.0);
    for (const IrGrid::Weight& w : weights) {
        const PointSignals s = point_signals(grid, w.point);
        for (size_t i = 0; i < n; ++i)
            p[i] += w.weight * static_cast<double>(s.pressure[i]);
        for (size_t a = 0; a < 3; ++a) {
            if (s.kind[a] == 0) continue;
            for (size_t i = 0; i < n; ++i)
                g[a][i] += w.weight * static_cast<double>(s.gradient[a][i]);
            axis_weight[a] += w.weight;
            one_sided[a] = one_sided[a] || s.kind[a] == 1;
        }
    }
    PointSignals out;
    out.pressure.assign(p.begin(), p.end());
    for (size_t a = 0; a < 3; ++a) {
        out.gradient[a].assign(n, 0.0f);
        if (!(axis_weight[a] > 0)) continue;
        for (size_t i = 0; i < n; ++i)
            out.gradient[a][i] = static_cast<float>(g[a][i] / axis_weight[a]);
        out.kind[a] = one_sided[a] ? 1 : 2;
    }
    return out;
}

FoaIr encode_signals(const IrGrid& grid, const PointSignals& s, const Orientation& orientation,
                     double speed_of_sound) {
    const double d = grid.has_gradient() ? grid.gradient_spacing() : grid.spacing();
    // Central differences everywhere: kept to kd = 2.4 with the diffuse-field gain; a one-sided
    // one is half a step off centre, so then only to kd = 1, as before.
    const auto& kind = s.kind;
    const bool central = kind[0] != 1 && kind[1] != 1 && kind[2] != 1;
    const double limit =
        directional_limit_hz(d, speed_of_sound, central ? kCentralKdLimit : kOneSidedKdLimit);
    FoaIr out = encode_foa(s.pressure, s.gradient, grid.sample_rate(), limit, orientation,
                           speed_of_sound, central ? d : 0.0);
    out.difference = kind;
    return out;
}

std::string point_name(const Point& p) {
    return point_text(p[0], p[1], p[2], 3);
}

[[noreturn]] void outside(const IrGrid& grid, const Point& listener) {
    throw InputError("listener " + point_name(listener) + " is outside the listener grid of '" +
                     grid.file().string() + "': no grid point within one grid spacing (" +
                     std::to_string(grid.spacing()) + " m); the grid spans " +
                     point_name(grid.lower()) + " to " + point_name(grid.upper()));
}

bool no_direction(const PointSignals& s) {
    return s.kind[0] == 0 && s.kind[1] == 0 && s.kind[2] == 0;
}

}  // namespace

FoaIr encode_foa(const IrGrid& grid, const Point& listener, const Orientation& orientation,
                 double speed_of_sound) {
    const auto centre = grid.nearest(listener);
    if (!centre) outside(grid, listener);
    const PointSignals s = point_signals(grid, *centre);
    if (no_direction(s))
        throw InputError("grid point " + point_name(grid.positions()[*centre]) + " of '" +
                         grid.file().string() +
                         "' has no neighbours in the grid, so the sound's direction is unknown");
    FoaIr out = encode_signals(grid, s, orientation, speed_of_sound);
    out.grid_point = *centre;
    out.position = grid.positions()[*centre];
    out.blend = {{*centre, 1.0}};
    return out;
}

FoaIr encode_foa_interpolated(const IrGrid& grid, const Point& listener,
                              const Orientation& orientation, double speed_of_sound) {
    // The same reach as encode_foa: within one spacing of a grid point.
    if (!grid.nearest(listener)) outside(grid, listener);
    std::vector<IrGrid::Weight> weights = grid.trilinear(listener);
    // No corner of the listener's lattice cell is in the air, but a point of a neighbouring cell
    // is within one spacing: that point alone.
    if (weights.empty()) return encode_foa(grid, listener, orientation, speed_of_sound);
    const PointSignals s = blend(grid, weights);
    if (no_direction(s))
        throw InputError("the grid points around listener " + point_name(listener) + " in '" +
                         grid.file().string() +
                         "' have no neighbours in the grid, so the sound's direction is unknown");
    FoaIr out = encode_signals(grid, s, orientation, speed_of_sound);
    const auto heaviest = std::max_element(
        weights.begin(), weights.end(),
        [](const IrGrid::Weight& a, const IrGrid::Weight& b) { return a.weight < b.weight; });
    out.grid_point = heaviest->point;
    out.position = grid.positions()[heaviest->point];
    out.blend = std::move(weights);
    return out;
}

}  // namespace ardent::auralize
