#include "ardent/geometric/fresnel.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "random.h"

namespace ardent::geometric {
namespace {

struct DiskPoint {
    double u, v;  // in the unit disk
};

// Vogel's sunflower spiral: point k at radius sqrt((k + 1/2) / n), turned by the golden angle.
std::array<DiskPoint, kFresnelSamples> disk_points() {
    std::array<DiskPoint, kFresnelSamples> p{};
    const double golden = std::numbers::pi * (3 - std::sqrt(5.0));
    for (int k = 0; k < kFresnelSamples; ++k) {
        const double r = std::sqrt((k + 0.5) / kFresnelSamples), t = golden * k;
        p[static_cast<size_t>(k)] = {r * std::cos(t), r * std::sin(t)};
    }
    return p;
}

}  // namespace

BandValues fresnel_share(const Room& room, Vec3 a, Vec3 b, double speed_of_sound) {
    BandValues share;
    share.fill(1.0);
    const Vec3 ab = b - a;
    const double d = norm(ab);
    if (!(d > 2 * room.epsilon())) return share;
    const Vec3 dir = ab * (1 / d);
    const auto hit = room.intersect(a, dir, d - room.epsilon());
    if (!hit) return share;
    // The zone is widest mid-way; where the first obstacle stands it is narrower, and an
    // obstacle right at an end (a source against a cabinet) leaves little room to get round.
    const double s = std::clamp(hit->distance, 0.0, d);
    const Vec3 centre = a + dir * s;
    const auto [e1, e2] = basis_around(dir);
    static const auto points = disk_points();
    for (int band = 0; band < kBands; ++band) {
        const double lambda = speed_of_sound / kBandHz[static_cast<size_t>(band)];
        const double radius = std::sqrt(lambda * s * (d - s) / d);
        int clear = 0;
        for (const DiskPoint& q : points) {
            const Vec3 p = centre + e1 * (radius * q.u) + e2 * (radius * q.v);
            if (!room.occluded(a, p) && !room.occluded(p, b)) ++clear;
        }
        share[static_cast<size_t>(band)] = static_cast<double>(clear) / kFresnelSamples;
    }
    return share;
}

}  // namespace ardent::geometric
