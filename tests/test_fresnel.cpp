// Sound round small obstacles in the geometric engine (geometric/fresnel.h): a square plate
// across the straight path between a source and a receiver in a large room, its size, the
// positions and where it stands drawn from printed seeds. The share of each band's first Fresnel
// zone that stays clear must follow the plate's cover of the zone, fall to nothing where the zone
// is smaller than the plate, and pass through `specular_paths` as the direct sound's factor; a
// wall across the whole room blocks every band and a clear path keeps every band.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>

#include "ardent/geometric/fresnel.h"
#include "ardent/geometric/image_sources.h"
#include "ardent/geometric/room.h"
#include "mesh_builders.h"
#include "rigid_room.h"

namespace {

using ardent::Vec3;
namespace geo = ardent::geometric;
constexpr double kSpeed = 343;

struct PlateCase {
    Vec3 source, receiver;
    double side = 0, at = 0;  // plate side (m); its distance from the source along the path (m)
};

// A 12 x 10 x 6 m room; source and receiver 4-7 m apart at the same height, the plate square
// to the path at 30-70 % of the way.
PlateCase draw(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    PlateCase c;
    const double d = 4 + 3 * u(rng), y = 4 + 2 * u(rng), z = 2.5 + u(rng), x0 = 2 + 2 * u(rng);
    c.source = {x0, y, z};
    c.receiver = {x0 + d, y, z};
    c.side = 0.4 + 0.6 * u(rng);
    c.at = d * (0.3 + 0.4 * u(rng));
    std::printf("seed %u: path %.3f m, plate %.3f m square at %.3f m from the source\n", seed, d,
                c.side, c.at);
    return c;
}

struct PlateRoom {
    ardent::TriangleMesh mesh;
    std::unique_ptr<geo::Room> room;
    // `wall`: the plate spans the whole room's cross-section instead.
    PlateRoom(const PlateCase& c, bool wall) {
        ardent::test::add_box(mesh, {0, 0, 0}, {12, 10, 6}, "room", true);
        const double x = c.source.x + c.at, h = c.side / 2;
        if (wall)
            ardent::test::add_box(mesh, {x - 0.01, 0, 0}, {x + 0.01, 10, 6}, "plate");
        else
            ardent::test::add_box(mesh, {x - 0.01, c.source.y - h, c.source.z - h},
                                  {x + 0.01, c.source.y + h, c.source.z + h}, "plate");
        room = ardent::test::rigid_room(mesh);
    }
};

class FresnelPlate : public testing::TestWithParam<unsigned> {};

TEST_P(FresnelPlate, ClearShareFollowsThePlatesCoverOfTheZone) {
    const PlateCase c = draw(GetParam());
    const PlateRoom plate(c, false);
    const double d = norm(c.receiver - c.source);
    const auto share = geo::fresnel_share(*plate.room, c.source, c.receiver, kSpeed);
    for (int b = 0; b < geo::kBands; ++b) {
        const double lambda = kSpeed / geo::kBandHz[static_cast<size_t>(b)];
        const double radius = std::sqrt(lambda * c.at * (d - c.at) / d);
        // The plate's cover of the zone's disk, where the zone holds the whole plate.
        const double h = c.side / 2;
        const double cover = std::min(1.0, c.side * c.side / (std::numbers::pi * radius * radius));
        std::printf("%5.0f Hz: zone radius %.3f m, clear share %.3f, 1 - plate's cover %.3f\n",
                    geo::kBandHz[static_cast<size_t>(b)], radius, share[static_cast<size_t>(b)],
                    1 - cover);
        if (radius >= h * std::numbers::sqrt2) {  // the zone holds the whole plate
            EXPECT_NEAR(share[static_cast<size_t>(b)], 1 - cover, 0.1) << b;
        }
        if (radius <= h) {  // the plate holds the whole zone
            EXPECT_EQ(share[static_cast<size_t>(b)], 0.0) << b;
        }
    }
    EXPECT_GT(share[0], 0.75);  // 125 Hz gets round a plate of at most 1 m
    EXPECT_EQ(share[geo::kBands - 1], 0.0);

    // Through the image-source stage: the direct sound keeps the same factor.
    const auto paths = geo::specular_paths(*plate.room, c.source, c.receiver, {}, kSpeed);
    ASSERT_EQ(paths.size(), 1u);
    EXPECT_NEAR(paths[0].length, d, 1e-9);
    for (int b = 0; b < geo::kBands; ++b)
        EXPECT_EQ(paths[0].factor[static_cast<size_t>(b)], share[static_cast<size_t>(b)]);
}

TEST_P(FresnelPlate, AWallBlocksEveryBandAndAClearPathKeepsEvery) {
    const PlateCase c = draw(GetParam());
    const PlateRoom wall(c, true);
    const auto blocked = geo::fresnel_share(*wall.room, c.source, c.receiver, kSpeed);
    for (double s : blocked)
        EXPECT_EQ(s, 0.0);
    EXPECT_TRUE(geo::specular_paths(*wall.room, c.source, c.receiver, {}, kSpeed).empty());

    // A path the plate does not block keeps every band (its lit side stays geometric).
    const PlateRoom plate(c, false);
    const Vec3 up{0, 0, 2};
    const auto clear = geo::fresnel_share(*plate.room, c.source + up, c.receiver + up, kSpeed);
    for (double s : clear)
        EXPECT_EQ(s, 1.0);
}

INSTANTIATE_TEST_SUITE_P(Seeds, FresnelPlate, testing::Values(351u, 352u, 353u));

}  // namespace
