#include "ardent/geometric/ray_tracer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>

#include "ardent/geometric/directions.h"
#include "parallel.h"
#include "random.h"
#include "ray_state.h"
#include "smoothing.h"

namespace ardent::geometric {
namespace {

struct Tracer {
    const Room& room;
    const std::vector<Vec3>& receivers;
    const RayTracingSettings& s;
    std::vector<EnergyHistogram>& out;  // this thread's
    RayTracingStats& stats;
    double max_length;
    double sphere_volume;
    double late_length;  // path length from which on the field counts as mixed
    double room_span;    // the model's bounding-box diagonal

    // `from`: the unit vector from the receiver towards where the energy arrives from.
    void add(size_t r, double length, const BandValues& e, double weight, Vec3 from) {
        const double t = length / s.speed_of_sound;
        const auto k = static_cast<size_t>(t / s.bin);
        auto& bins = out[r].bins;
        if (k >= bins.size()) return;
        for (size_t b = 0; b < kBands; ++b)
            bins[k][b] += e[b] * weight;
        auto& directional = out[r].directional;
        if (directional.empty()) return;
        const size_t at =
            static_cast<size_t>(t / s.direction_bin) * kDirections + nearest_direction(from);
        if (at >= directional.size()) return;
        for (size_t b = 0; b < kBands; ++b)
            directional[at][b] += e[b] * weight;
    }

    // The specular share crossing the detection spheres along a segment of `len` from `pos`.
    void detect(Vec3 pos, Vec3 dir, double len, double travelled, const BandValues& e) {
        const double r2 = s.receiver_radius * s.receiver_radius;
        for (size_t r = 0; r < receivers.size(); ++r) {
            const Vec3 to = receivers[r] - pos;
            const double along = dot(to, dir);
            const double d2 = dot(to, to) - along * along;
            if (d2 >= r2) continue;
            const double half = std::sqrt(r2 - d2);
            const double t0 = std::max(0.0, along - half), t1 = std::min(len, along + half);
            if (t1 <= t0) continue;
            add(r, travelled + 0.5 * (t0 + t1), e, (t1 - t0) / sphere_volume, dir * -1.0);
        }
    }

    // Diffuse rain from the reflection point x (normal n facing the arriving ray).
    void rain(Vec3 x, Vec3 n, double travelled, const BandValues& scattered) {
        // The receivers in front of the wall and within the IR, then their visibility at once.
        rain_to.clear();
        rain_at.clear();
        for (size_t r = 0; r < receivers.size(); ++r) {
            const Vec3 to = receivers[r] - x;
            const double d = norm(to);
            const double cos_theta = dot(to, n) / d;
            if (cos_theta <= 0 || travelled + d > max_length) continue;
            rain_to.push_back(r);
            rain_at.push_back(receivers[r]);
        }
        stats.rain_queries += rain_to.size();
        rain_hidden.resize(rain_to.size());
        room.occluded_from(x, rain_at.data(), rain_at.size(), rain_hidden.data());
        for (size_t i = 0; i < rain_to.size(); ++i) {
            if (rain_hidden[i]) continue;
            const size_t r = rain_to[i];
            const Vec3 to = receivers[r] - x;
            const double d = norm(to);
            add(r, travelled + d, scattered, dot(to, n) / d / (std::numbers::pi * d * d),
                to * (-1 / d));
        }
    }
    std::vector<size_t> rain_to = {};
    std::vector<Vec3> rain_at = {};
    std::vector<uint8_t> rain_hidden = {};

    // One reflection at `hit`: absorption, rain, and the next direction (specular or Lambert).
    // `imaged`: the path so far is specular and this reflection within the image-source order, so
    // the image sources carry its specular share towards the receivers.
    void reflect_at(const Hit& hit, Vec3 pos, double travelled, bool imaged, Random& rng,
                    RayState& ray, Vec3& dir, bool& diffuse) {
        const SurfaceBands& sb = room.surface(hit.triangle);
        ray.absorb(sb);
        // In the late field every reflection rains all it reflects (the header says why).
        const bool late = travelled > late_length && !imaged;
        BandValues scattered = ray.energy();
        if (!late)
            for (size_t b = 0; b < kBands; ++b)
                scattered[b] *= sb.scattering[b];
        rain(pos, hit.normal, travelled, scattered);
        diffuse = ray.choose_diffuse(sb, rng);
        dir = diffuse ? rng.lambert(hit.normal) : reflect(dir, hit.normal);
    }

    // A ray in flight: its own random stream (so that its path does not depend on the batch it
    // flies in), where it is, where it heads and what it carries.
    struct Flight {
        Random rng;
        Vec3 pos, dir;
        RayState ray;
        double travelled = 0;
        int order = 0;
        bool all_specular = true, came_diffuse = false, done = false;
    };

    Flight launch(size_t index, Vec3 source, double e0) const {
        Random rng(s.seed, index);
        const Vec3 dir = rng.sphere();
        return Flight{rng, source, dir, RayState(e0, index)};
    }

    void finish(Flight& f) {
        f.done = true;
        ++stats.rays;
    }

    // Follows the ray until it has travelled `until` metres, or ends.
    void advance(Flight& f, double until, double e0) {
        while (!f.done && f.travelled < until) {
            if (f.travelled >= max_length) return finish(f);
            const auto hit = room.intersect(f.pos, f.dir, max_length - f.travelled);
            ++stats.segments;
            const double len = hit ? hit->distance : max_length - f.travelled;
            if (!f.came_diffuse && f.travelled <= late_length &&
                !(f.all_specular && f.order <= s.image_source_order))
                detect(f.pos, f.dir, len, f.travelled, f.ray.energy());
            if (!hit) {
                // Nothing ahead for longer than the model is wide: the ray left through a gap.
                stats.escaped += max_length - f.travelled > room_span;
                return finish(f);
            }
            f.travelled += len;
            f.pos = f.pos + f.dir * len;
            stats.incident[2 * size_t{hit->triangle} + (dot(f.dir, room.normal(hit->triangle)) >
                                                        0)] += f.ray.absorbed[f.ray.band];
            reflect_at(*hit, f.pos, f.travelled, f.all_specular && f.order < s.image_source_order,
                       f.rng, f.ray, f.dir, f.came_diffuse);
            f.all_specular = f.all_specular && !f.came_diffuse;
            ++f.order;
            if (!f.ray.survives(e0, f.rng)) return finish(f);
        }
    }

    // Rays [first, first + count), advanced together a slice of path length at a time: each ray
    // alone swept the whole of every receiver's histograms (megabytes) in its life, so nearly
    // every bin it added to came from main memory; together, the bins of one slice stay in the
    // cache while all of them add there.
    void trace_batch(size_t first, size_t count, Vec3 source, double e0) {
        std::vector<Flight> batch;
        batch.reserve(count);
        for (size_t i = 0; i < count; ++i)
            batch.push_back(launch(first + i, source, e0));
        const double slice = kSliceSeconds * s.speed_of_sound;
        for (double until = slice;; until += slice) {
            const double to = until > max_length ? std::numeric_limits<double>::infinity() : until;
            bool flying = false;
            for (Flight& f : batch) {
                advance(f, to, e0);
                flying = flying || !f.done;
            }
            if (!flying) break;
        }
    }

    static constexpr double kSliceSeconds = 0.01;
};

// Rays traced together (Tracer::trace_batch).
constexpr size_t kBatchRays = 64;

}  // namespace

std::vector<EnergyHistogram> trace_rays(const Room& room, Vec3 source,
                                        const std::vector<Vec3>& receivers,
                                        const RayTracingSettings& settings,
                                        RayTracingStats* stats_out, std::atomic<size_t>* rays_done,
                                        const std::atomic<bool>* stop) {
    const auto t0 = std::chrono::steady_clock::now();
    const int t_count = thread_count(settings.threads);
    const size_t n_bins = static_cast<size_t>(std::ceil(settings.max_time / settings.bin));
    EnergyHistogram empty;
    empty.bin = settings.bin;
    empty.bins.assign(n_bins, BandValues{});
    if (settings.directions) {
        empty.direction_bin = settings.direction_bin;
        const auto n_dir =
            static_cast<size_t>(std::ceil(settings.max_time / settings.direction_bin));
        empty.directional.assign(n_dir * kDirections, BandValues{});
    }
    std::vector<std::vector<EnergyHistogram>> per_thread(
        static_cast<size_t>(t_count), std::vector<EnergyHistogram>(receivers.size(), empty));
    std::vector<RayTracingStats> stats(static_cast<size_t>(t_count));
    for (auto& st : stats)
        st.incident.assign(2 * room.triangle_count(), 0.0);
    const double max_length = settings.max_time * settings.speed_of_sound;
    const double rd = settings.receiver_radius;
    const double sphere_volume = 4.0 / 3.0 * std::numbers::pi * rd * rd * rd;
    const double e0 = 1.0 / static_cast<double>(std::max<size_t>(1, settings.rays));

    parallel_ranges(settings.rays, t_count, [&](size_t begin, size_t end, int t) {
        Tracer tr{room,
                  receivers,
                  settings,
                  per_thread[static_cast<size_t>(t)],
                  stats[static_cast<size_t>(t)],
                  max_length,
                  sphere_volume,
                  settings.mixing_time * settings.speed_of_sound,
                  norm(room.bounds().hi - room.bounds().lo)};
        for (size_t i = begin; i < end; i += kBatchRays) {
            if (stop && stop->load(std::memory_order_relaxed)) break;
            const size_t n = std::min(kBatchRays, end - i);
            tr.trace_batch(i, n, source, e0);
            if (rays_done) rays_done->fetch_add(n, std::memory_order_relaxed);
        }
    });

    std::vector<EnergyHistogram> out = std::move(per_thread[0]);
    for (size_t t = 1; t < per_thread.size(); ++t)
        for (size_t r = 0; r < out.size(); ++r) {
            for (size_t k = 0; k < n_bins; ++k)
                for (size_t b = 0; b < kBands; ++b)
                    out[r].bins[k][b] += per_thread[t][r].bins[k][b];
            auto& dir = out[r].directional;
            for (size_t k = 0; k < dir.size(); ++k)
                for (size_t b = 0; b < kBands; ++b)
                    dir[k][b] += per_thread[t][r].directional[k][b];
        }
    if (stats_out) {
        *stats_out = {};
        stats_out->incident.assign(2 * room.triangle_count(), 0.0);
        for (const auto& st : stats) {
            for (size_t i = 0; i < st.incident.size(); ++i)
                stats_out->incident[i] += st.incident[i];
            stats_out->rays += st.rays;
            stats_out->segments += st.segments;
            stats_out->rain_queries += st.rain_queries;
            stats_out->escaped += st.escaped;
        }
        stats_out->seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    return out;
}

void smooth_late_energy(EnergyHistogram& h) {
    // BandValues are kBands doubles with no padding: the bins as one flat array.
    static_assert(sizeof(BandValues) == kBands * sizeof(double));
    const auto edges = [](size_t n, double bin) {
        std::vector<double> e(n + 1);
        for (size_t k = 0; k <= n; ++k)
            e[k] = static_cast<double>(k) * bin;
        return e;
    };
    smooth_decay(h.bins.data()->data(), h.bins.size(), kBands, edges(h.bins.size(), h.bin),
                 kSmoothingFraction, 0.0, true);
    // The directions' shares only (the synthesis normalises them per bin): a plain mean.
    const size_t nd = h.directional.size() / kDirections;
    if (nd > 0)
        smooth_decay(h.directional.data()->data(), nd, kDirections * kBands,
                     edges(nd, h.direction_bin), kSmoothingFraction, 0.0, false);
}

}  // namespace ardent::geometric
