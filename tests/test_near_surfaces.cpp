// The geometric engine's diffuse part near surfaces: a source or receiver close to a reflecting
// plane (boundary_gain.h, Waterhouse's factor, against its formula with the plane's own
// reflection factor) and absorbers in narrow gaps (gap_absorption.h: a panel 0.1 m off a wall
// absorbs with its back as well, less the gap's own losses; a panel far from the wall needs
// nothing added). Sizes and positions from printed seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>

#include "ardent/geometric/boundary_gain.h"
#include "ardent/geometric/gap_absorption.h"
#include "ardent/geometric/ray_tracer.h"
#include "ardent/geometric/room.h"
#include "histogram_t20.h"
#include "mesh_builders.h"

namespace {

using ardent::Vec3;
namespace geo = ardent::geometric;
using ardent::test::histogram_t20;
constexpr double kSpeed = 343;

ardent::Material material(const std::string& name, double alpha, double scattering) {
    ardent::Material m;
    m.name = name;
    m.set_uniform(alpha);
    m.scattering = {{0, scattering}};
    return m;
}

// Groups: 0 the room, 1 the rest (a plate or a panel).
std::unique_ptr<geo::Room> make_room(ardent::TriangleMesh& mesh, const ardent::Material& walls,
                                     const ardent::Material& other) {
    std::vector<int> groups;
    for (const auto& g : mesh.groups)
        groups.push_back(g.material == "room" ? 0 : 1);
    return std::make_unique<geo::Room>(mesh, groups, std::vector<ardent::Material>{walls, other});
}

class BoundaryGain : public testing::TestWithParam<unsigned> {};

TEST_P(BoundaryGain, FloorAloneGivesWaterhousesFactor) {
    std::mt19937 rng(GetParam());
    std::uniform_real_distribution<double> u(0, 1);
    const double h = 0.05 + 1.45 * u(rng), alpha = 0.6 * u(rng), s = 0.6 * u(rng);
    std::printf("seed %u: %.3f m above a floor of absorption %.3f, scattering %.3f\n", GetParam(),
                h, alpha, s);
    // Walls and ceiling beyond the gain's reach (2kh > 20 at 125 Hz); a plate beside the point,
    // whose plane passes under it but not its triangles.
    ardent::TriangleMesh mesh;
    ardent::test::add_box(mesh, {0, 0, 0}, {24, 24, 14}, "room", true);
    ardent::test::add_box(mesh, {13, 11.8, h / 2 - 0.01}, {13.4, 12.2, h / 2}, "plate");
    const auto room = make_room(mesh, material("floor", alpha, s), material("plate", 0, 0));
    const auto gain = geo::boundary_gain(*room, {12, 12, h}, kSpeed);
    for (int b = 0; b < geo::kBands; ++b) {
        const double x =
            2 * h * 2 * std::numbers::pi * geo::kBandHz[static_cast<size_t>(b)] / kSpeed;
        const double want = std::max(geo::kLeastBoundaryGain,
                                     1 + std::sqrt((1 - alpha) * (1 - s)) * std::sin(x) / x);
        std::printf("  %5.0f Hz: gain %.4f, 1 + R sin(2kh) / 2kh %.4f\n",
                    geo::kBandHz[static_cast<size_t>(b)], gain[static_cast<size_t>(b)], want);
        EXPECT_NEAR(gain[static_cast<size_t>(b)], want, 1e-9) << b;
    }
    // Far from every surface: nothing.
    for (double g : geo::boundary_gain(*room, {12, 12, 7}, kSpeed))
        EXPECT_EQ(g, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, BoundaryGain, testing::Values(361u, 362u, 363u));

struct PanelCase {
    Vec3 size, source, receiver;
    double width = 0, height = 0, x0 = 0, z0 = 0;
};

// A room 7-9 x 5-7 x 3-4 m; a panel 1.2-2.4 m wide, 1-1.5 m high, 0.2 m thick on the wall y = 0.
PanelCase draw_panel(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    PanelCase c;
    c.size = {7 + 2 * u(rng), 5 + 2 * u(rng), 3 + u(rng)};
    c.width = 1.2 + 1.2 * u(rng);
    c.height = 1 + 0.5 * u(rng);
    c.x0 = 1 + (c.size.x - c.width - 2) * u(rng);
    c.z0 = 0.8 + 0.5 * u(rng);
    c.source = {c.size.x * (0.3 + 0.4 * u(rng)), c.size.y * (0.5 + 0.3 * u(rng)), 1.5};
    c.receiver = {c.size.x * (0.3 + 0.4 * u(rng)), c.size.y * (0.4 + 0.3 * u(rng)), 1.2};
    std::printf("seed %u: room %.2f x %.2f x %.2f, panel %.2f x %.2f m at x %.2f, z %.2f\n", seed,
                c.size.x, c.size.y, c.size.z, c.width, c.height, c.x0, c.z0);
    return c;
}

struct PanelRun {
    geo::GapAbsorption gap;
    double t20_raw = 0, t20 = 0;  // 500 Hz, without and with the gap's absorption
};

// The panel with its back `gap` metres off the wall, absorbing 0.8 on every face, in a room of
// hard, scattering walls.
PanelRun run_panel(const PanelCase& c, double gap) {
    ardent::TriangleMesh mesh;
    ardent::test::add_box(mesh, {0, 0, 0}, c.size, "room", true);
    ardent::test::add_box(mesh, {c.x0, gap, c.z0}, {c.x0 + c.width, gap + 0.2, c.z0 + c.height},
                          "panel");
    const auto room = make_room(mesh, material("wall", 0.05, 0.6), material("panel", 0.8, 0.3));
    geo::RayTracingSettings rt;
    rt.rays = 40000;
    rt.max_time = 1.5;
    rt.speed_of_sound = kSpeed;
    rt.receiver_radius = 0.5;
    rt.mixing_time = 0.01;
    geo::RayTracingStats stats;
    auto h = geo::trace_rays(*room, c.source, {c.receiver}, rt, &stats);
    PanelRun out;
    out.gap = geo::gap_absorption(*room, stats.incident, kSpeed, 0);
    out.t20_raw = histogram_t20(h[0], 2);
    geo::BandValues one;
    one.fill(1.0);
    geo::apply_gap_absorption(h[0], out.gap.rate_per_s, one);
    out.t20 = histogram_t20(h[0], 2);
    std::printf("  back %.2f m off the wall: gap absorption", gap);
    for (double a : out.gap.area_m2)
        std::printf(" %.2f", a);
    std::printf(" m^2; T20 at 500 Hz %.3f s, with it %.3f s\n", out.t20_raw, out.t20);
    return out;
}

class GapAbsorption : public testing::TestWithParam<unsigned> {};

TEST_P(GapAbsorption, PanelBackInANarrowGapAbsorbs) {
    const PanelCase c = draw_panel(GetParam());
    const double back = c.width * c.height;
    const PanelRun narrow = run_panel(c, 0.1), wide = run_panel(c, 1.0);
    // The back counts at 125-500 Hz, less the little the rays brought it and less the gap's own
    // losses from its mouth in (the panel absorbs 0.8); from 2 kHz on the 0.1 m gap is wider
    // than half a wavelength.
    for (size_t b = 0; b < 3; ++b) {
        EXPECT_GT(narrow.gap.area_m2[b], 0.2 * 0.8 * back) << b;
        EXPECT_LT(narrow.gap.area_m2[b], 0.8 * back) << b;
    }
    for (size_t b = 4; b < geo::kBands; ++b)
        EXPECT_EQ(narrow.gap.area_m2[b], 0.0) << b;
    // A metre off the wall the back is in the rays' reach from 250 Hz on.
    for (size_t b = 1; b < geo::kBands; ++b)
        EXPECT_EQ(wide.gap.area_m2[b], 0.0) << b;
    // The rays alone decay slower with the narrow gap; its absorption brings the decay towards,
    // not past, that of the back in the open.
    EXPECT_GT(narrow.t20_raw / wide.t20_raw, 1.04);
    EXPECT_LT(narrow.t20, narrow.t20_raw * 0.99);
    EXPECT_GT(narrow.t20, wide.t20);
}

INSTANTIATE_TEST_SUITE_P(Seeds, GapAbsorption, testing::Values(371u, 372u, 373u));

}  // namespace
