// The geometric engine (geometric/): image sources against the exact image-source sum of a rigid
// shoebox, ray tracing against the diffuse-field decay of a uniformly absorbing room, and the
// synthesis's energy calibration, and the directions kept for ambisonic rendering. Boxes, positions
// and absorption are drawn from printed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "ardent/geometric/directions.h"
#include "ardent/geometric/geometric.h"
#include "ardent/geometric/image_sources.h"
#include "ardent/geometric/ray_tracer.h"
#include "ardent/geometric/room.h"
#include "ardent/geometric/synthesis.h"
#include "ardent/preprocess/mesh_import.h"
#include "histogram_t20.h"

namespace {

using ardent::Vec3;
namespace geo = ardent::geometric;
using ardent::test::histogram_t20;

struct BoxCase {
    Vec3 size, source, receiver;
};

BoxCase draw_box(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    BoxCase c;
    c.size = {3 + 5 * u(rng), 2.5 + 4 * u(rng), 2.2 + 2 * u(rng)};
    for (int a = 0; a < 3; ++a) {
        c.source[a] = c.size[a] * (0.15 + 0.7 * u(rng));
        c.receiver[a] = c.size[a] * (0.15 + 0.7 * u(rng));
    }
    std::printf(
        "seed %u: box %.3f x %.3f x %.3f, source (%.3f, %.3f, %.3f), receiver (%.3f, "
        "%.3f, %.3f)\n",
        seed, c.size.x, c.size.y, c.size.z, c.source.x, c.source.y, c.source.z, c.receiver.x,
        c.receiver.y, c.receiver.z);
    return c;
}

ardent::Material material(double alpha, double scattering) {
    ardent::Material m;
    m.name = "wall";
    m.set_uniform(alpha);
    m.scattering = {{0, scattering}};
    return m;
}

struct BoxRoom {
    ardent::TriangleMesh mesh;
    std::vector<int> groups;
    std::unique_ptr<geo::Room> room;
    BoxRoom(Vec3 size, const ardent::Material& m) : mesh(ardent::make_box_mesh(size)) {
        groups.assign(mesh.groups.size(), 0);
        room = std::make_unique<geo::Room>(mesh, groups, std::vector<ardent::Material>{m});
    }
};

// Exact image sources of a rigid box up to `max_order` reflections: along each axis the images
// are 2 n L + x (|2n| reflections) and 2 n L - x (|2n - 1| reflections).
std::vector<std::pair<double, int>> exact_images(const BoxCase& c, int max_order) {
    std::vector<std::pair<double, int>> out;  // length, order
    const int n_max = max_order;
    for (int nx = -n_max; nx <= n_max; ++nx)
        for (int sx = 0; sx < 2; ++sx)
            for (int ny = -n_max; ny <= n_max; ++ny)
                for (int sy = 0; sy < 2; ++sy)
                    for (int nz = -n_max; nz <= n_max; ++nz)
                        for (int sz = 0; sz < 2; ++sz) {
                            const int n[3] = {nx, ny, nz}, sg[3] = {sx, sy, sz};
                            int order = 0;
                            double d2 = 0;
                            for (int a = 0; a < 3; ++a) {
                                const double L = c.size[a], x = c.source[a];
                                const double img = sg[a] == 0 ? 2 * n[a] * L + x : 2 * n[a] * L - x;
                                order += sg[a] == 0 ? std::abs(2 * n[a]) : std::abs(2 * n[a] - 1);
                                d2 += (img - c.receiver[a]) * (img - c.receiver[a]);
                            }
                            if (order <= max_order) out.push_back({std::sqrt(d2), order});
                        }
    return out;
}

class RigidShoebox : public testing::TestWithParam<unsigned> {};

// The image-source part alone equals the exact image-source IR, through the synthesised IR:
// its spectrum against sum 1/(4 pi L) e^{-i w L / c}, relative L2 over 125 Hz-8 kHz.
TEST_P(RigidShoebox, ImageSourcesEqualTheExactImageSourceIr) {
    const BoxCase c = draw_box(GetParam());
    const int order = 4;
    BoxRoom box(c.size, material(0, 0));
    const auto cand = geo::candidate_sequences(*box.room, c.source, order, 200000, 7, 0);
    const auto paths = geo::specular_paths(*box.room, c.source, c.receiver, cand, 343);
    const auto exact = exact_images(c, order);
    EXPECT_EQ(paths.size(), exact.size());

    const double fs = 48000, speed = 343;
    geo::SynthesisSettings s;
    s.sample_rate = fs;
    s.samples = 8192;
    s.speed_of_sound = speed;
    const auto ir = geo::synthesize_ir(paths, geo::EnergyHistogram{}, s);
    double err = 0, ref = 0;
    for (double f = 125; f <= 8000; f *= std::pow(2.0, 1.0 / 48)) {
        const double w = 2 * std::numbers::pi * f;
        std::complex<double> got = 0, want = 0;
        for (size_t n = 0; n < ir.size(); ++n)
            got += static_cast<double>(ir[n]) * std::polar(1.0, -w * static_cast<double>(n) / fs);
        for (const auto& [len, o] : exact)
            want += std::polar(1 / (4 * std::numbers::pi * len), -w * len / speed);
        err += std::norm(got - want);
        ref += std::norm(want);
    }
    const double rel = std::sqrt(err / ref);
    std::printf("  %zu candidates, %zu paths (exact %zu), relative L2 in band %.2e\n", cand.size(),
                paths.size(), exact.size(), rel);
    EXPECT_LE(rel, 0.01);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RigidShoebox, testing::Values(1u, 2u, 3u));

class DiffuseShoebox : public testing::TestWithParam<unsigned> {};

// Scattering walls (s 0.3-1) of one, low absorption (0.03-0.12) in a nearly cubic box (sides
// within 1.5 of each other), where the diffuse-field theory holds: the decay is Eyring's, and
// the late fluence is the diffuse field's. After n = c t S / (4 V) reflections the room holds
// (1 - a)^n of a unit emission, spread evenly over V, so the fluence from t0 to t1 is
// 4 / (S (-ln(1 - a))) [(1 - a)^n(t0) - (1 - a)^n(t1)]. (At higher absorption both the decay and
// the level drift above Eyring's, as the spread of free path lengths predicts: Kuttruff, Room
// Acoustics, 5th ed., section 5.5; docs/full-band.md.)
TEST_P(DiffuseShoebox, DecayAndLevelAreEyrings) {
    std::mt19937 rng(GetParam());
    std::uniform_real_distribution<double> u(0, 1);
    BoxCase c;
    c.size = {4 + 2 * u(rng), 4 + 2 * u(rng), 4 + 2 * u(rng)};
    for (int a = 0; a < 3; ++a) {
        c.source[a] = c.size[a] * (0.25 + 0.5 * u(rng));
        c.receiver[a] = c.size[a] * (0.25 + 0.5 * u(rng));
    }
    const double alpha = 0.03 + 0.09 * u(rng), scattering = 0.3 + 0.7 * u(rng);
    std::printf(
        "seed %u: box %.3f x %.3f x %.3f, source (%.3f, %.3f, %.3f), receiver (%.3f, "
        "%.3f, %.3f), alpha %.3f, scattering %.3f\n",
        GetParam(), c.size.x, c.size.y, c.size.z, c.source.x, c.source.y, c.source.z, c.receiver.x,
        c.receiver.y, c.receiver.z, alpha, scattering);
    BoxRoom box(c.size, material(alpha, scattering));
    const double speed = 343;
    const double v = c.size.x * c.size.y * c.size.z;
    const double area = 2 * (c.size.x * c.size.y + c.size.y * c.size.z + c.size.z * c.size.x);
    const double a = -std::log(1 - alpha);
    const double eyring = 24 * std::log(10.0) * v / (speed * area * a);
    // Both estimators of the late field: detection spheres throughout, and rain of all that is
    // reflected after the mixing time (sqrt(V) ms, as the engine sets it).
    for (const double mixing : {std::numeric_limits<double>::infinity(), std::sqrt(v) * 1e-3}) {
        geo::RayTracingSettings rt;
        rt.rays = 20000;
        rt.max_time = 1.2 * eyring;
        rt.speed_of_sound = speed;
        rt.receiver_radius = 0.3;
        rt.mixing_time = mixing;
        const auto h = geo::trace_rays(*box.room, c.source, {c.receiver}, rt);
        const double t20 = histogram_t20(h[0], 3);
        // The late part: from four mean free paths on.
        const double t0 = 4 * (4 * v / area) / speed;
        const auto k0 = static_cast<size_t>(std::ceil(t0 / rt.bin));
        double late = 0;
        for (size_t k = k0; k < h[0].bins.size(); ++k)
            late += h[0].bins[k][3];
        const auto remaining = [&](double t) { return std::exp(-a * speed * t * area / (4 * v)); };
        const double t1 = static_cast<double>(h[0].bins.size()) * rt.bin;
        const double want =
            4 / (area * a) * (remaining(static_cast<double>(k0) * rt.bin) - remaining(t1));
        std::printf(
            "  mixing time %.4f s: T20 %.3f s, Eyring %.3f s (%+.1f %%); late fluence %.4g, "
            "diffuse field %.4g (%+.1f %%)\n",
            mixing, t20, eyring, 100 * (t20 / eyring - 1), late, want, 100 * (late / want - 1));
        EXPECT_NEAR(t20 / eyring, 1, 0.05) << "mixing time " << mixing;
        EXPECT_NEAR(late / want, 1, 0.10) << "mixing time " << mixing;
    }
}

// A hall-like box (5 000-10 000 m^3, an absorbing audience floor under hard walls, scattering
// 0.4): the receivers' late decay from few rays. The detection spheres' counts are rare there;
// the rain after the mixing time reaches every receiver. Over four ray seeds the T20s of each
// receiver spread several times less with it, around the same mean.
TEST(RayTracing, LateRainSteadiesEachReceiversDecay) {
    const unsigned seed = 21;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    const Vec3 size{25 + 10 * u(rng), 16 + 6 * u(rng), 13 + 4 * u(rng)};
    const Vec3 source{size.x * 0.15, size.y * 0.5, 1.5};
    std::vector<Vec3> receivers;
    for (int i = 0; i < 6; ++i)
        receivers.push_back({size.x * (0.3 + 0.6 * u(rng)), size.y * (0.1 + 0.8 * u(rng)), 1.2});
    std::printf("seed %u: box %.2f x %.2f x %.2f, %zu receivers at 1.2 m\n", seed, size.x, size.y,
                size.z, receivers.size());
    const ardent::TriangleMesh mesh = ardent::make_box_mesh(size);
    std::vector<int> groups(mesh.groups.size(), 0);
    groups[0] = 1;  // the floor: "floor" is make_box_mesh's first group
    const geo::Room room(mesh, groups, {material(0.05, 0.4), material(0.85, 0.4)});
    const double v = size.x * size.y * size.z;
    const double radius = std::clamp(std::cbrt(v) / 10, 0.1, 1.0);  // as the engine sets it
    struct Spread {
        double worst = 0, mean = 0;
    };
    auto spread = [&](double mixing) {
        std::vector<std::vector<double>> t20(receivers.size());
        for (uint64_t s = 1; s <= 4; ++s) {
            geo::RayTracingSettings rt;
            rt.rays = 5000;
            rt.max_time = 2.0;
            rt.receiver_radius = radius;
            rt.mixing_time = mixing;
            rt.seed = s;
            auto h = geo::trace_rays(room, source, receivers, rt);
            for (size_t r = 0; r < receivers.size(); ++r) {
                geo::smooth_late_energy(h[r]);
                t20[r].push_back(histogram_t20(h[r], 3));
            }
        }
        Spread out;
        for (const auto& t : t20) {
            double m = 0;
            for (double x : t)
                m += x / static_cast<double>(t.size());
            for (double x : t)
                out.worst = std::max(out.worst, std::abs(x / m - 1));
            out.mean += m / static_cast<double>(t20.size());
        }
        return out;
    };
    const Spread spheres = spread(std::numeric_limits<double>::infinity());
    const Spread rain = spread(std::sqrt(v) * 1e-3);
    std::printf(
        "  1 kHz T20 over 4 seeds of 5 000 rays, worst deviation from a receiver's mean: spheres "
        "%.1f %%, late rain %.1f %%; mean T20 %.3f s and %.3f s\n",
        100 * spheres.worst, 100 * rain.worst, spheres.mean, rain.mean);
    EXPECT_LT(rain.worst, 0.5 * spheres.worst);
    EXPECT_NEAR(rain.mean / spheres.mean, 1, 0.05);
}

// The AmbiX gains are SN3D real spherical harmonics: over the sphere, channels of order n have a
// mean square of 1 / (2n + 1) and distinct channels are orthogonal (a quadrature on 40 000 points
// of a Fibonacci lattice, exact to ~1e-4 for these degrees).
// A model with a gap lets rays out; the tracer counts them (result.json's escaped_rays), and a
// closed one keeps them all but a few that slip through edges in float arithmetic.
TEST(RayTracing, RaysThatLeaveAnOpenModelAreCounted) {
    const unsigned seed = 23;
    const BoxCase c = draw_box(seed);
    ardent::TriangleMesh closed = ardent::make_box_mesh(c.size);
    ardent::TriangleMesh open = closed;
    std::erase_if(open.triangles, [](const ardent::Triangle& t) { return t.group == 1; });
    ASSERT_LT(open.triangles.size(), closed.triangles.size());  // group 1: the ceiling
    geo::RayTracingSettings rt;
    rt.rays = 4000;
    rt.max_time = 0.5;
    rt.receiver_radius = 0.3;
    rt.mixing_time = 0.02;
    std::size_t escaped[2] = {};
    for (int k = 0; k < 2; ++k) {
        const ardent::TriangleMesh& mesh = k == 0 ? closed : open;
        const geo::Room room(mesh, std::vector<int>(mesh.groups.size(), 0), {material(0.1, 0.4)});
        geo::RayTracingStats stats;
        geo::trace_rays(room, c.source, {c.receiver}, rt, &stats);
        escaped[k] = stats.escaped;
    }
    // Without its ceiling a box of walls absorbing 0.1 loses a ray at most reflections that go up:
    // most of them within the 0.5 s.
    std::printf("[ measured ] %zu rays: escaped %zu from the closed box, %zu without its ceiling\n",
                rt.rays, escaped[0], escaped[1]);
    EXPECT_LE(escaped[0], rt.rays / 200);
    EXPECT_GE(escaped[1], rt.rays / 2);
}

TEST(Directions, AmbixGainsAreSn3dSphericalHarmonics) {
    const size_t n = 40000, channels = geo::ambisonic_channels(geo::kMaxAmbisonicOrder);
    std::vector<double> gram(channels * channels, 0.0);
    const double golden = std::numbers::pi * (3 - std::sqrt(5.0));
    for (size_t i = 0; i < n; ++i) {
        const double z = 1 - (2.0 * static_cast<double>(i) + 1) / static_cast<double>(n);
        const double r = std::sqrt(1 - z * z), phi = golden * static_cast<double>(i);
        const Vec3 u{r * std::cos(phi), r * std::sin(phi), z};
        for (size_t a = 0; a < channels; ++a)
            for (size_t b = 0; b < channels; ++b)
                gram[a * channels + b] += geo::ambix_gain(a, u) * geo::ambix_gain(b, u) / n;
    }
    for (size_t a = 0; a < channels; ++a) {
        const auto order = static_cast<int>(std::floor(std::sqrt(static_cast<double>(a))));
        for (size_t b = 0; b < channels; ++b)
            EXPECT_NEAR(gram[a * channels + b], a == b ? 1.0 / (2 * order + 1) : 0.0, 2e-4)
                << "ACN " << a << " x ACN " << b;
    }
    // First order is the direction itself: Y, Z, X.
    const Vec3 u{0.48, -0.6, 0.64};
    EXPECT_DOUBLE_EQ(geo::ambix_gain(1, u), u.y);
    EXPECT_DOUBLE_EQ(geo::ambix_gain(2, u), u.z);
    EXPECT_DOUBLE_EQ(geo::ambix_gain(3, u), u.x);
}

// The arrival directions cover the sphere evenly: each is its own nearest, and random directions
// (seed printed) fall into every cell in about equal numbers.
TEST(Directions, CellsAreNearlyEqualAreas) {
    for (size_t d = 0; d < geo::kDirections; ++d) {
        EXPECT_NEAR(ardent::norm(geo::direction(d)), 1.0, 1e-12);
        EXPECT_EQ(geo::nearest_direction(geo::direction(d)), d);
    }
    const unsigned seed = 2026;
    std::printf("seed %u\n", seed);
    std::mt19937 rng(seed);
    std::normal_distribution<double> g;
    std::vector<size_t> count(geo::kDirections);
    const size_t n = 320000;
    for (size_t i = 0; i < n; ++i) {
        Vec3 v{g(rng), g(rng), g(rng)};
        v = v * (1 / ardent::norm(v));
        ++count[geo::nearest_direction(v)];
    }
    const double mean = static_cast<double>(n) / geo::kDirections;
    for (size_t d = 0; d < geo::kDirections; ++d)
        EXPECT_NEAR(static_cast<double>(count[d]) / mean, 1.0, 0.25) << "direction " << d;
}

// The lookup behind nearest_direction gives the full search's answer: random directions, the
// axes, the cube map's face and cell edges (where the lookup switches cells), and points halfway
// between two directions (ties, broken alike by index).
TEST(Directions, NearestDirectionIsTheFullSearchs) {
    const auto full = [](Vec3 u) {
        size_t best = 0;
        double best_dot = -2;
        for (size_t d = 0; d < geo::kDirections; ++d)
            if (const double c = ardent::dot(geo::direction(d), u); c > best_dot) {
                best_dot = c;
                best = d;
            }
        return best;
    };
    std::vector<Vec3> probes;
    const unsigned seed = 2027;
    std::printf("seed %u\n", seed);
    std::mt19937 rng(seed);
    std::normal_distribution<double> g;
    for (int i = 0; i < 200000; ++i)
        probes.push_back({g(rng), g(rng), g(rng)});
    for (int a = -8; a <= 8; ++a)
        for (int b = -8; b <= 8; ++b)
            for (const double e : {-1.0, 1.0}) {
                const double s = a / 8.0, t = b / 8.0;
                probes.push_back({e, s, t});
                probes.push_back({t, e, s});
                probes.push_back({s, t, e});
            }
    for (size_t d = 0; d < geo::kDirections; ++d)
        for (size_t k = d + 1; k < geo::kDirections; ++k)
            probes.push_back(geo::direction(d) + geo::direction(k));
    size_t differ = 0;
    for (Vec3 v : probes) {
        if (ardent::norm(v) == 0) continue;
        v = v * (1 / ardent::norm(v));
        differ += geo::nearest_direction(v) != full(v);
    }
    std::printf("%zu probes, %zu differ from the full search\n", probes.size(), differ);
    EXPECT_EQ(differ, 0u);
}

// A specular path alone: every AmbiX channel is the W channel times the path's gain in its
// direction, and W is synthesize_ir's IR.
TEST(Directions, SpecularPathIsEncodedInItsDirection) {
    geo::SpecularPath p;
    p.length = 3.7;
    p.factor.fill(0.8);
    p.direction = Vec3{-0.36, 0.48, 0.8};
    geo::EnergyHistogram h;
    h.bins.assign(100, geo::BandValues{});
    h.direction_bin = 0.01;
    h.directional.assign(10 * geo::kDirections, geo::BandValues{});
    geo::SynthesisSettings s;
    s.samples = 4800;
    const auto ch = geo::synthesize_ambisonic_ir({p}, h, s, 3);
    ASSERT_EQ(ch.size(), 16u);
    const auto mono = geo::synthesize_ir({p}, h, s);
    double w2 = 0, diff = 0;
    for (size_t k = 0; k < s.samples; ++k) {
        w2 += double(ch[0][k]) * double(ch[0][k]);
        diff += std::pow(double(ch[0][k]) - double(mono[k]), 2);
    }
    EXPECT_LT(std::sqrt(diff / w2), 1e-6);
    for (size_t c = 1; c < ch.size(); ++c) {
        double dot = 0, err = 0;
        const double g = geo::ambix_gain(c, p.direction);
        for (size_t k = 0; k < s.samples; ++k) {
            dot += double(ch[c][k]) * double(ch[0][k]);
            err += std::pow(double(ch[c][k]) - g * double(ch[0][k]), 2);
        }
        EXPECT_NEAR(dot / w2, g, 1e-5) << "ACN " << c;
        EXPECT_LT(std::sqrt(err / w2), 1e-5) << "ACN " << c;
    }
}

// In a diffuse field the late sound arrives from everywhere alike: SN3D first-order channels
// each carry a third of W's energy and no net intensity (W and the dipoles uncorrelated); the
// W channel is the engine's omnidirectional IR.
TEST_P(DiffuseShoebox, LateFieldArrivesFromEveryDirection) {
    std::mt19937 rng(GetParam());
    std::uniform_real_distribution<double> u(0, 1);
    const Vec3 size{4 + 2 * u(rng), 4 + 2 * u(rng), 4 + 2 * u(rng)};
    Vec3 source, receiver;
    for (int a = 0; a < 3; ++a) {
        source[a] = size[a] * (0.25 + 0.5 * u(rng));
        receiver[a] = size[a] * (0.25 + 0.5 * u(rng));
    }
    std::printf("seed %u: box %.3f x %.3f x %.3f\n", GetParam(), size.x, size.y, size.z);
    ardent::Scene scene;
    scene.materials = {material(0.08, 0.8)};
    scene.simulation.duration = 0.6;
    scene.geometric.rays = 20000;
    ardent::TriangleMesh mesh = ardent::make_box_mesh(size);
    const geo::Engine engine(mesh, std::vector<int>(mesh.groups.size(), 0), scene, 0);
    const auto r = engine.run(0, source, {receiver}, 16000, 9600, nullptr, nullptr, 1);
    ASSERT_EQ(r.ambisonics.size(), 1u);
    const auto& ch = r.ambisonics[0];
    ASSERT_EQ(ch.size(), 4u);
    EXPECT_EQ(ch[0], r.irs[0]);
    // From 100 ms on (past the image sources' orders), band-limited to the synthesis's full band.
    double e[4] = {0, 0, 0, 0}, cross[4] = {0, 0, 0, 0};
    for (size_t k = 1600; k < ch[0].size(); ++k)
        for (size_t c = 0; c < 4; ++c) {
            e[c] += double(ch[c][k]) * double(ch[c][k]);
            cross[c] += double(ch[c][k]) * double(ch[0][k]);
        }
    for (size_t c = 1; c < 4; ++c) {
        std::printf("  ACN %zu: energy %.3f of W's, correlation with W %+.3f\n", c, e[c] / e[0],
                    cross[c] / std::sqrt(e[c] * e[0]));
        EXPECT_NEAR(e[c] / e[0], 1.0 / 3, 0.06) << "ACN " << c;
        EXPECT_LT(std::abs(cross[c]) / std::sqrt(e[c] * e[0]), 0.12) << "ACN " << c;
    }
}

INSTANTIATE_TEST_SUITE_P(Seeds, DiffuseShoebox, testing::Values(11u, 12u, 13u));

}  // namespace
