#include "image_source.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ardent::test {
namespace {

constexpr double kPi = 3.14159265358979323846;

// G tabulated on [0, length] with step dt / oversample, two guard points either side.
class SignalTable {
  public:
    SignalTable(const std::function<double(double)>& g, double length, double step)
        : step_(step), length_(length) {
        const auto n = static_cast<size_t>(std::ceil(length / step)) + 1;
        values_.resize(n + 4);
        for (size_t i = 0; i < values_.size(); ++i) {
            const double t = (static_cast<double>(i) - 2.0) * step;
            values_[i] = (t < 0 || t > length) ? 0.0 : g(t);
        }
    }
    double length() const { return length_; }
    // Catmull-Rom interpolation at t (0 outside [0, length]).
    double operator()(double t) const {
        if (t < 0 || t > length_) return 0.0;
        const double x = t / step_ + 2.0;
        const auto i = static_cast<size_t>(x);
        if (i < 1 || i + 2 >= values_.size()) return 0.0;
        const double u = x - static_cast<double>(i);
        const double p0 = values_[i - 1], p1 = values_[i], p2 = values_[i + 1], p3 = values_[i + 2];
        return p1 +
               0.5 * u *
                   (p2 - p0 + u * (2 * p0 - 5 * p1 + 4 * p2 - p3 + u * (3 * (p1 - p2) + p3 - p0)));
    }

  private:
    double step_, length_;
    std::vector<double> values_;
};

void check(const ImageSourceSetup& s) {
    if (!s.signal || s.signal_length <= 0 || s.dt <= 0 || s.c <= 0)
        throw std::invalid_argument("image_source_ir: signal, length, dt and c must be set");
    for (int a = 0; a < 3; ++a)
        if (!(s.box[a] > 0) || s.source[a] < 0 || s.source[a] > s.box[a] || s.receiver[a] < 0 ||
            s.receiver[a] > s.box[a])
            throw std::invalid_argument("image_source_ir: source and receiver must be in the box");
}

// Adds G(t - r / c) / (4 pi r) for one image at distance r.
void add_image(std::vector<double>& p, const SignalTable& g, const ImageSourceSetup& s, double r) {
    const double delay = r / s.c;
    const double amp = 1.0 / (4 * kPi * r);
    const double first = std::ceil((delay - s.t0) / s.dt);
    const double last = std::floor((delay + g.length() - s.t0) / s.dt);
    if (last < 0 || first >= static_cast<double>(p.size())) return;
    const auto n0 = static_cast<size_t>(std::max(0.0, first));
    const auto n1 = static_cast<size_t>(std::min(last, static_cast<double>(p.size() - 1)));
    for (size_t n = n0; n <= n1; ++n)
        p[n] += amp * g(s.t0 + static_cast<double>(n) * s.dt - delay);
}

}  // namespace

ImageSourceResult image_source_ir(const ImageSourceSetup& s, int oversample) {
    check(s);
    const SignalTable g(s.signal, s.signal_length, s.dt / std::max(1, oversample));
    ImageSourceResult result;
    result.p.assign(s.samples, 0.0);
    if (s.samples == 0) return result;
    // Images farther than this arrive after the last sample.
    const double t_end = s.t0 + static_cast<double>(s.samples - 1) * s.dt;
    const double reach = s.c * t_end;
    if (reach <= 0) return result;

    // Per axis, the offsets (image coordinate - receiver coordinate) within reach.
    std::vector<double> offsets[3];
    for (int a = 0; a < 3; ++a) {
        const double L = s.box[a], src = s.source[a], rcv = s.receiver[a];
        const auto lmax = static_cast<long>(std::ceil((reach + L) / (2 * L))) + 1;
        for (long l = -lmax; l <= lmax; ++l)
            for (double sign : {1.0, -1.0}) {
                const double d = sign * src + 2.0 * static_cast<double>(l) * L - rcv;
                if (std::abs(d) <= reach) offsets[a].push_back(d);
            }
        std::sort(offsets[a].begin(), offsets[a].end(),
                  [](double x, double y) { return std::abs(x) < std::abs(y); });
    }
    const double reach2 = reach * reach;
    for (double dx : offsets[0]) {
        const double rx2 = dx * dx;
        if (rx2 > reach2) break;
        for (double dy : offsets[1]) {
            const double rxy2 = rx2 + dy * dy;
            if (rxy2 > reach2) break;
            for (double dz : offsets[2]) {
                const double r2 = rxy2 + dz * dz;
                if (r2 > reach2) break;
                const double r = std::sqrt(r2);
                if (r <= 0) throw std::invalid_argument("image_source_ir: receiver on an image");
                add_image(result.p, g, s, r);
                ++result.images;
            }
        }
    }
    return result;
}

std::vector<double> free_field_ir(const ImageSourceSetup& s, int oversample) {
    if (!s.signal || s.signal_length <= 0 || s.dt <= 0 || s.c <= 0)
        throw std::invalid_argument("free_field_ir: signal, length, dt and c must be set");
    const SignalTable g(s.signal, s.signal_length, s.dt / std::max(1, oversample));
    std::vector<double> p(s.samples, 0.0);
    const double r = norm(s.source - s.receiver);
    if (r <= 0) throw std::invalid_argument("free_field_ir: receiver at the source");
    if (!p.empty()) add_image(p, g, s, r);
    return p;
}

}  // namespace ardent::test
