#include "ardent/geometric/gap_absorption.h"

#include <algorithm>
#include <cmath>

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
                for (size_t b = 0; b < kBands; ++b)
                    exposed[b] += exposure(hit->distance, speed_of_sound / kBandHz[b]);
            }
            const SurfaceBands& sb = room.surface(tri);
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

void apply_gap_absorption(EnergyHistogram& h, const BandValues& rate_per_s,
                          const BandValues& gain) {
    for (size_t k = 0; k < h.bins.size(); ++k) {
        const double t = (static_cast<double>(k) + 0.5) * h.bin;
        for (size_t b = 0; b < kBands; ++b)
            h.bins[k][b] *= gain[b] * std::exp(-rate_per_s[b] * t);
    }
    // The directional bins are shares per direction (the synthesis normalises them per bin).
}

}  // namespace ardent::geometric
