#include "ardent/geometric/image_sources.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ardent/geometric/fresnel.h"
#include "parallel.h"
#include "random.h"

namespace ardent::geometric {

std::vector<std::vector<uint32_t>> candidate_sequences(const Room& room, Vec3 source, int max_order,
                                                       size_t rays, uint64_t seed, int threads) {
    if (max_order <= 0) return {};
    const int t_count = thread_count(threads);
    std::vector<std::set<std::vector<uint32_t>>> found(static_cast<size_t>(t_count));
    const double reach = 4 * norm(room.bounds().size()) * max_order + 1;
    parallel_ranges(rays, t_count, [&](size_t begin, size_t end, int t) {
        auto& mine = found[static_cast<size_t>(t)];
        std::vector<uint32_t> seq;
        for (size_t r = begin; r < end; ++r) {
            Random rng(seed, r);
            Vec3 pos = source, dir = rng.sphere();
            seq.clear();
            for (int order = 1; order <= max_order; ++order) {
                const auto hit = room.intersect(pos, dir, reach);
                if (!hit) break;
                seq.push_back(room.plane_of(hit->triangle));
                mine.insert(seq);
                pos = pos + dir * hit->distance;
                dir = reflect(dir, hit->normal);
            }
        }
    });
    std::set<std::vector<uint32_t>> all;
    for (auto& s : found)
        all.merge(s);
    return {all.begin(), all.end()};
}

namespace {

// The path of one plane sequence, cast back from the receiver towards each image in turn; its
// reflection points must lie on the sequence's planes, in order. A reflection keeps the share of
// its Fresnel zone that its plane covers (reflection_zone: a point just past a free edge still
// reflects a little, one just inside it a little less than all); a segment that something
// blocks keeps what gets round it (fresnel_share), where its reflection point itself lies on the
// plane. A path with nothing left in any band is no path.
bool trace_back(const Room& room, Vec3 receiver, const std::vector<Vec3>& images,
                const std::vector<uint32_t>& seq, double speed_of_sound, SpecularPath& path) {
    const double tol = 1e3 * room.epsilon();
    const double total = norm(images.back() - receiver);
    double travelled = 0;
    Vec3 x = receiver;
    path.factor.fill(1.0);
    const auto keep = [&](const BandValues& share) {
        for (size_t b = 0; b < kBands; ++b)
            path.factor[b] *= share[b];
    };
    for (size_t j = seq.size(); j-- > 0;) {
        const Plane& p = room.plane(seq[j]);
        const Vec3 to = images[j + 1] - x;
        const double len = norm(to);
        if (len <= 0) return false;
        const Vec3 dir = to * (1.0 / len);
        const double denom = dot(p.normal, dir);
        if (std::abs(denom) < 1e-9) return false;
        const double t_plane = (p.offset - dot(p.normal, x)) / denom;
        if (t_plane <= room.epsilon()) return false;
        const Vec3 at = x + dir * t_plane;
        travelled += t_plane;
        const auto hit = room.intersect(x, dir, t_plane + tol);
        // Where the path meets a surface on the way or at the plane (an obstacle, another wall
        // across the plane), its reflection point must lie on the plane's triangles; where it
        // meets none, the point is in the air past the plane's edge.
        const auto zone =
            reflection_zone(room, p, at, dir, travelled, total, speed_of_sound, hit.has_value());
        if (!zone) return false;
        if (hit && hit->distance < t_plane - tol) keep(fresnel_share(room, x, at, speed_of_sound));
        keep(zone->share);
        if (j + 1 == seq.size()) path.direction = dir;
        const SurfaceBands& s = room.surface(zone->triangle);
        for (size_t b = 0; b < kBands; ++b)
            path.factor[b] *= std::sqrt((1 - s.absorption[b]) * (1 - s.scattering[b]));
        if (*std::max_element(path.factor.begin(), path.factor.end()) <= 0) return false;
        x = at;
    }
    keep(fresnel_share(room, x, images[0], speed_of_sound));
    return *std::max_element(path.factor.begin(), path.factor.end()) > 0;
}

}  // namespace

std::vector<SpecularPath> specular_paths(const Room& room, Vec3 source, Vec3 receiver,
                                         const std::vector<std::vector<uint32_t>>& candidates,
                                         double speed_of_sound) {
    std::vector<SpecularPath> out;
    if (const BandValues share = fresnel_share(room, receiver, source, speed_of_sound);
        *std::max_element(share.begin(), share.end()) > 0) {
        SpecularPath direct;
        direct.length = norm(source - receiver);
        direct.factor = share;
        direct.direction = direct.length > 0 ? unit(source - receiver) : Vec3{0, 0, 1};
        out.push_back(direct);
    }
    std::vector<Vec3> images;
    std::vector<std::pair<Vec3, size_t>> seen;  // image position, index in out
    for (const auto& seq : candidates) {
        images.assign(1, source);
        bool ok = true;
        for (size_t j = 0; j < seq.size() && ok; ++j) {
            ok = j == 0 || seq[j] != seq[j - 1];
            images.push_back(room.plane(seq[j]).mirror(images.back()));
        }
        SpecularPath path;
        if (!ok || !trace_back(room, receiver, images, seq, speed_of_sound, path)) continue;
        path.order = static_cast<int>(seq.size());
        path.length = norm(images.back() - receiver);
        const double tol = 1e3 * room.epsilon();
        const bool duplicate = std::any_of(seen.begin(), seen.end(), [&](const auto& s) {
            return norm(s.first - images.back()) < tol && out[s.second].order == path.order;
        });
        if (duplicate) continue;
        seen.emplace_back(images.back(), out.size());
        out.push_back(path);
    }
    std::sort(out.begin(), out.end(),
              [](const SpecularPath& a, const SpecularPath& b) { return a.length < b.length; });
    return out;
}

}  // namespace ardent::geometric
