#include "ardent/geometric/gap_absorption.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "parallel.h"
#include "random.h"

namespace ardent::geometric {
namespace {

// Points sampled per square metre of a triangle (at least one, at most kMaxPoints): a gap is
// found where its points are, and a floor under a table is a gap only there.
constexpr double kPointsPerM2 = 25;
constexpr size_t kMaxPoints = 256;

// A surface that gets less than this share of a diffuse field's energy is taken as sealed off
// from the room: the inside of a wall's two skins that a few rays leaked into, a slot whose
// absorbing sides take all that enters it within centimetres.
constexpr double kLeastReached = 0.05;

// 1 up to a quarter wavelength, 0 from half a wavelength (the gap's first cross mode) on.
double exposure(double gap, double wavelength) {
    return std::clamp((wavelength / 2 - gap) / (wavelength / 4), 0.0, 1.0);
}

// The normalised conductance of a locally reacting face with normal-incidence absorption a (a
// real impedance): a = 1 - ((1 - g) / (1 + g))^2.
double conductance(double a) {
    const double r = std::sqrt(std::max(0.0, 1 - a));
    return (1 - r) / (1 + r);
}

// The plane wave in a gap of width w between faces of conductances g1 + g2 = g loses amplitude as
// exp(-kappa x) along it: its wavenumber squared is k^2 + i k g / w.
double attenuation(double k, double g, double w) {
    const double re = k * k, im = k * g / w;
    const double mod = std::hypot(re, im);
    return im / (2 * std::sqrt((mod + re) / 2));
}

// How far the point p (on a surface, its gap `w` wide along n) lies from the gap's mouth: along
// four directions in the surface, the first place where either side of the mid-gap opens
// (nothing within 1.5 w), or where the gap is closed (something across the way): no mouth that
// way. At most kDeepest.
constexpr double kDeepest = 2.0;
double depth(const Room& room, Vec3 p, Vec3 n, double w) {
    const auto [t1, t2] = basis_around(n);
    const Vec3 mid = p + n * (w / 2);
    double best = kDeepest;
    for (const Vec3 u : {t1, t1 * -1.0, t2, t2 * -1.0}) {
        const auto wall = room.intersect(mid, u, best);
        const double reach = wall ? wall->distance : best;
        for (double s = std::max(0.02, w / 2); s < reach; s *= 1.25) {
            const Vec3 q = mid + u * s;
            const auto up = room.intersect(q, n, 1.5 * w),
                       down = room.intersect(q, n * -1.0, 1.5 * w);
            if (!up || !down) {
                best = std::min(best, s);
                break;
            }
        }
    }
    return best;
}

}  // namespace

GapAbsorption gap_absorption(const Room& room, const std::vector<double>& incident,
                             double speed_of_sound, int threads) {
    GapAbsorption out;
    const size_t n = room.triangle_count();
    if (incident.size() != 2 * n || !(room.volume() > 0)) return out;
    double total = 0;
    for (double e : incident)
        total += e;
    if (!(total > 0)) return out;
    const double per_m2 = total / room.area();  // what a diffuse field would bring per m^2
    const double widest = speed_of_sound / kBandHz[0] / 2;

    const int t_count = thread_count(threads);
    std::vector<GapAbsorption> part(static_cast<size_t>(t_count));
    parallel_ranges(n, t_count, [&](size_t begin, size_t end, int t) {
        GapAbsorption& mine = part[static_cast<size_t>(t)];
        for (size_t i = begin; i < end; ++i) {
            const auto tri = static_cast<uint32_t>(i);
            const double front = incident[2 * i], back = incident[2 * i + 1];
            if (!(front + back > 0)) continue;
            const auto& c = room.corners(tri);
            const double area = 0.5 * norm(cross(c[1] - c[0], c[2] - c[0]));
            if (!(area > 0)) continue;
            // The side the rays came from faces the air; what they missed of it.
            const double reached = std::max(front, back) / (area * per_m2);
            if (reached < kLeastReached || reached >= 1) continue;
            const double missed = 1 - reached;
            const Vec3 n_air = room.normal(tri) * (front >= back ? 1.0 : -1.0);
            const size_t points = std::clamp<size_t>(
                static_cast<size_t>(std::ceil(area * kPointsPerM2)), 1, kMaxPoints);
            Random rng(0x67617073ull, i);
            const SurfaceBands& sb = room.surface(tri);
            BandValues exposed{};
            for (size_t k = 0; k < points; ++k) {
                double u = rng.uniform(), v = rng.uniform();
                if (u + v > 1) {
                    u = 1 - u;
                    v = 1 - v;
                }
                const Vec3 p = c[0] + (c[1] - c[0]) * u + (c[2] - c[0]) * v;
                const auto hit = room.intersect(p, n_air, widest);
                if (!hit) continue;
                const double w = hit->distance;
                // Both faces' losses attenuate the gap's plane wave from its mouth inwards.
                const double d = depth(room, p, n_air, w);
                const SurfaceBands& across = room.surface(hit->triangle);
                for (size_t b = 0; b < kBands; ++b) {
                    const double wavenumber = 2 * std::numbers::pi * kBandHz[b] / speed_of_sound;
                    const double g =
                        conductance(sb.absorption[b]) + conductance(across.absorption[b]);
                    exposed[b] += exposure(w, speed_of_sound / kBandHz[b]) *
                                  std::exp(-2 * attenuation(wavenumber, g, w) * d);
                }
            }
            for (size_t b = 0; b < kBands; ++b)
                mine.area_m2[b] +=
                    missed * exposed[b] / static_cast<double>(points) * sb.absorption[b] * area;
            if (exposed[0] > 0)
                mine.gap_surface_m2 += area * exposed[0] / static_cast<double>(points);
        }
    });
    for (const GapAbsorption& p : part) {
        for (size_t b = 0; b < kBands; ++b)
            out.area_m2[b] += p.area_m2[b];
        out.gap_surface_m2 += p.gap_surface_m2;
    }
    for (size_t b = 0; b < kBands; ++b)
        out.rate_per_s[b] = speed_of_sound * out.area_m2[b] / (4 * room.volume());
    return out;
}

BandValues diffuse_factor(const BandValues& rate_per_s, const BandValues& gain, double t) {
    BandValues f;
    for (size_t b = 0; b < kBands; ++b)
        f[b] = gain[b] * std::exp(-rate_per_s[b] * t);
    return f;
}

void apply_gap_absorption(EnergyHistogram& h, const BandValues& rate_per_s,
                          const BandValues& gain) {
    for (size_t k = 0; k < h.bins.size(); ++k) {
        const BandValues f =
            diffuse_factor(rate_per_s, gain, (static_cast<double>(k) + 0.5) * h.bin);
        for (size_t b = 0; b < kBands; ++b)
            h.bins[k][b] *= f[b];
    }
    // The directional bins are shares per direction (the synthesis normalises them per bin).
}

}  // namespace ardent::geometric
