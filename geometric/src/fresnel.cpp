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

std::optional<ReflectionZone> reflection_zone(const Room& room, const Plane& plane, Vec3 at,
                                              Vec3 dir, double s, double d, double speed_of_sound,
                                              bool centre_required) {
    const double tol = 1e3 * room.epsilon();
    const double n_dir = dot(plane.normal, dir);
    // Towards the side the path comes from; grazing paths stretch the zone at most tenfold.
    const Vec3 side = plane.normal * (n_dir < 0 ? 1.0 : -1.0);
    const double n_dir_kept = std::copysign(std::max(std::abs(n_dir), 0.1), n_dir);
    const auto on_plane = [&](Vec3 p) -> std::optional<uint32_t> {
        const auto probe = room.intersect(p + side * tol, side * -1.0, 2 * tol);
        if (!probe) return std::nullopt;
        const Plane& q = room.plane(room.plane_of(probe->triangle));
        if (std::abs(dot(q.normal, plane.normal)) < 1 - 1e-6 ||
            std::abs(q.offset * dot(q.normal, plane.normal) - plane.offset) > tol)
            return std::nullopt;
        return probe->triangle;
    };
    ReflectionZone zone;
    const auto centre = on_plane(at);
    zone.centre_on_plane = centre.has_value();
    if (centre_required && !centre) return std::nullopt;
    bool found = zone.centre_on_plane;
    if (found) zone.triangle = *centre;
    const Vec3 lifted = at + side * tol;
    const auto [e1, e2] = basis_around(dir);
    static const auto points = disk_points();
    // Lowest band first: its zone is the widest, and once a zone has nothing uncovered in the air
    // (or, off the plane, nothing covered) the narrower zones of higher bands have neither.
    for (int band = 0; band < kBands; ++band) {
        const double lambda = speed_of_sound / kBandHz[static_cast<size_t>(band)];
        const double radius = std::sqrt(lambda * s * std::max(d - s, 0.0) / d);
        int covered = 0, open = 0;
        for (const DiskPoint& q : points) {
            const Vec3 off = e1 * (radius * q.u) + e2 * (radius * q.v);
            Vec3 p = at + off - dir * (dot(plane.normal, off) / n_dir_kept);
            p = p - plane.normal * dot(plane.normal, p - at);  // on the plane where stretch is kept
            if (const auto t = on_plane(p)) {
                ++covered;
                if (!found) zone.triangle = *t, found = true;
            } else if (!room.occluded(lifted, p + side * tol)) {
                ++open;
            }
        }
        const double share = covered + open > 0 ? static_cast<double>(covered) / (covered + open)
                                                : (zone.centre_on_plane ? 1.0 : 0.0);
        const bool settled = zone.centre_on_plane ? open == 0 : covered == 0;
        for (int b = band; b < (settled ? kBands : band + 1); ++b)
            zone.share[static_cast<size_t>(b)] = share;
        if (settled) break;
    }
    if (!found) return std::nullopt;
    return zone;
}

}  // namespace ardent::geometric
