// Reflections at a surface's edge in the geometric engine (geometric/fresnel.h, reflection_zone):
// a 3 x 3 m plate hung level in a large rigid room, a source and a receiver above it placed so
// that the plate's specular point lies a drawn distance inside or outside its edge (positions from
// printed seeds). Per band where the zone fits the plate's other edges: the reflection keeps the
// share of its first Fresnel zone on the plate, so a point just inside and one just outside the
// edge add to one reflection, one inside by more than the zone keeps all of it, one outside by
// more has none. A reflection beside a concave corner (the floor at a wall) keeps all of it, as
// image sources in a box must.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <random>

#include "ardent/geometric/image_sources.h"
#include "ardent/geometric/room.h"
#include "mesh_builders.h"
#include "rigid_room.h"

namespace {

using ardent::Vec3;
namespace geo = ardent::geometric;
constexpr double kSpeed = 343;
constexpr double kEdge = 7, kMidY = 4.5, kTop = 1.02;  // the plate: x 4-7, y 3-6, top at kTop

struct EdgeCase {
    double delta = 0;  // the specular point's distance inside the edge (m)
    double height_s = 0, height_r = 0, spread = 0;  // above the plate; apart along y
};

EdgeCase draw(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    EdgeCase c;
    c.delta = 0.05 + 0.25 * u(rng);
    c.height_s = 0.5 + 0.7 * u(rng);
    c.height_r = 0.5 + 0.7 * u(rng);
    c.spread = 0.6 + 0.9 * u(rng);
    std::printf(
        "seed %u: specular point %.3f m from the edge; source %.3f m, receiver %.3f m "
        "above the plate, %.3f m apart\n",
        seed, c.delta, c.height_s, c.height_r, c.spread);
    return c;
}

struct PlateRoom {
    ardent::TriangleMesh mesh;
    std::unique_ptr<geo::Room> room;
    PlateRoom() {
        ardent::test::add_box(mesh, {0, 0, 0}, {12, 10, 6}, "room", true);
        ardent::test::add_box(mesh, {4, 3, kTop - 0.04}, {kEdge, 6, kTop}, "plate");
        room = ardent::test::rigid_room(mesh);
    }
    uint32_t plane_below(Vec3 p) const {
        const auto hit = room->intersect(p, {0, 0, -1}, 10);
        EXPECT_TRUE(hit.has_value());
        return room->plane_of(hit->triangle);
    }
};

struct Pair {
    Vec3 source, receiver;
};

// Source and receiver whose specular point on the plane z = `level` is (x, kMidY).
Pair place(const EdgeCase& c, double x, double level) {
    const double ys = kMidY - c.spread * c.height_s / (c.height_s + c.height_r);
    return {{x, ys, level + c.height_s}, {x, ys + c.spread, level + c.height_r}};
}

// The factor of the first-order path off `plane`, if there is one.
std::optional<geo::BandValues> reflection(const geo::Room& room, const Pair& p, uint32_t plane) {
    const Vec3 image = room.plane(plane).mirror(p.source);
    for (const auto& path : geo::specular_paths(room, p.source, p.receiver, {{plane}}, kSpeed))
        if (path.order == 1 && std::abs(path.length - norm(image - p.receiver)) < 1e-9)
            return path.factor;
    return std::nullopt;
}

class ReflectionEdge : public testing::TestWithParam<unsigned> {};

TEST_P(ReflectionEdge, PointsEitherSideOfAFreeEdgeShareOneReflection) {
    const EdgeCase c = draw(GetParam());
    const PlateRoom plate;
    const uint32_t top = plate.plane_below({5.5, kMidY, 3});
    const Pair in = place(c, kEdge - c.delta, kTop), out = place(c, kEdge + c.delta, kTop);
    const auto f_in = reflection(*plate.room, in, top);
    const auto f_out = reflection(*plate.room, out, top);
    ASSERT_TRUE(f_in.has_value());
    const double d = std::hypot(c.spread, c.height_s + c.height_r);  // the unfolded path
    const double s = d * c.height_r / (c.height_s + c.height_r);     // receiver to the plate
    const double cosine = (c.height_s + c.height_r) / d;
    int fitted = 0;
    for (int b = 0; b < geo::kBands; ++b) {
        const size_t i = static_cast<size_t>(b);
        const double radius = std::sqrt(kSpeed / geo::kBandHz[i] * s * (d - s) / d);
        const double inside = (*f_in)[i], outside = f_out ? (*f_out)[i] : 0.0;
        std::printf("%5.0f Hz: zone %.3f x %.3f m; inside %.3f, outside %.3f, sum %.3f\n",
                    geo::kBandHz[i], radius, radius / cosine, inside, outside, inside + outside);
        if (radius / cosine > 1.4) continue;  // the zone reaches the plate's other edges
        ++fitted;
        EXPECT_NEAR(inside + outside, 1.0, 0.1) << b;
        EXPECT_GE(inside, 0.5) << b;
        if (radius < c.delta) {
            EXPECT_EQ(inside, 1.0) << b;
            EXPECT_EQ(outside, 0.0) << b;
        } else {
            EXPECT_LT(inside, 1.0) << b;   // the edge takes some of it ...
            EXPECT_GT(outside, 0.0) << b;  // ... and gives it past the edge
        }
    }
    EXPECT_GE(fitted, 4);

    // Farther out than the widest zone reaches, the plate reflects nothing.
    EXPECT_FALSE(reflection(*plate.room, place(c, kEdge + 3, kTop), top).has_value());
}

TEST_P(ReflectionEdge, ABoxsCornerKeepsTheWholeReflection) {
    const EdgeCase c = draw(GetParam());
    const PlateRoom plate;
    // The floor's specular point `delta` from the wall x = 12: every band's zone reaches the
    // wall, and all of it is reflected (the wall's own image sources carry the rest).
    const uint32_t floor = plate.plane_below({10, kMidY, 3});
    const auto f = reflection(*plate.room, place(c, 12 - c.delta, 0), floor);
    ASSERT_TRUE(f.has_value());
    for (double v : *f)
        EXPECT_EQ(v, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, ReflectionEdge, testing::Values(381u, 382u, 383u));

}  // namespace
