// The geometric engine (geometric/): image sources against the exact image-source sum of a rigid
// shoebox, ray tracing against the diffuse-field decay of a uniformly absorbing room, and the
// synthesis's energy calibration. Boxes, positions and absorption are drawn from printed seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "ardent/geometric/geometric.h"
#include "ardent/geometric/image_sources.h"
#include "ardent/geometric/ray_tracer.h"
#include "ardent/geometric/room.h"
#include "ardent/geometric/synthesis.h"
#include "ardent/preprocess/mesh_import.h"

namespace {

using ardent::Vec3;
namespace geo = ardent::geometric;

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
    const auto paths = geo::specular_paths(*box.room, c.source, c.receiver, cand);
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

// T20 of an energy histogram's band (Schroeder's backward integral, fitted -5 to -25 dB).
double histogram_t20(const geo::EnergyHistogram& h, size_t band) {
    std::vector<double> tail(h.bins.size() + 1, 0.0);
    for (size_t k = h.bins.size(); k-- > 0;)
        tail[k] = tail[k + 1] + h.bins[k][band];
    std::vector<double> t, db;
    for (size_t k = 0; k < h.bins.size(); ++k) {
        const double level = 10 * std::log10(tail[k] / tail[0]);
        if (level <= -5 && level >= -25) {
            t.push_back((static_cast<double>(k) + 0.5) * h.bin);
            db.push_back(level);
        }
    }
    double mt = 0, md = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        mt += t[i] / static_cast<double>(t.size());
        md += db[i] / static_cast<double>(t.size());
    }
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        sxy += (t[i] - mt) * (db[i] - md);
        sxx += (t[i] - mt) * (t[i] - mt);
    }
    return -60 / (sxy / sxx);
}

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
    geo::RayTracingSettings rt;
    rt.rays = 20000;
    rt.max_time = 1.2 * eyring;
    rt.speed_of_sound = speed;
    rt.receiver_radius = 0.3;
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
        "  T20 %.3f s, Eyring %.3f s (%+.1f %%); late fluence %.4g, diffuse field %.4g "
        "(%+.1f %%)\n",
        t20, eyring, 100 * (t20 / eyring - 1), late, want, 100 * (late / want - 1));
    EXPECT_NEAR(t20 / eyring, 1, 0.05);
    EXPECT_NEAR(late / want, 1, 0.10);
}

INSTANTIATE_TEST_SUITE_P(Seeds, DiffuseShoebox, testing::Values(11u, 12u, 13u));

}  // namespace
