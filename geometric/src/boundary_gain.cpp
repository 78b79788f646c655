#include "ardent/geometric/boundary_gain.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace ardent::geometric {
namespace {

// Beyond 2kh = 20 at the lowest band the term is below 0.05 and averages out.
constexpr double kFarthest = 20;

}  // namespace

BandValues boundary_gain(const Room& room, Vec3 point, double speed_of_sound) {
    BandValues gain;
    gain.fill(1.0);
    const double k_low = 2 * std::numbers::pi * kBandHz[0] / speed_of_sound;
    const double tol = 1e3 * room.epsilon();
    for (uint32_t id = 0; id < room.plane_count(); ++id) {
        const Plane& p = room.plane(id);
        const double signed_h = dot(p.normal, point) - p.offset;
        const double h = std::abs(signed_h);
        if (!(h > room.epsilon()) || 2 * h * k_low > kFarthest) continue;
        const Vec3 dir = p.normal * (signed_h > 0 ? -1.0 : 1.0);
        const auto hit = room.intersect(point, dir, h + tol);
        if (!hit || std::abs(hit->distance - h) > tol || room.plane_of(hit->triangle) != id)
            continue;
        const SurfaceBands& s = room.surface(hit->triangle);
        for (size_t b = 0; b < kBands; ++b) {
            const double x = 2 * h * 2 * std::numbers::pi * kBandHz[b] / speed_of_sound;
            gain[b] += std::sqrt((1 - s.absorption[b]) * (1 - s.scattering[b])) * std::sin(x) / x;
        }
    }
    for (double& g : gain)
        g = std::max(g, kLeastBoundaryGain);
    return gain;
}

}  // namespace ardent::geometric
