// The maps' pictures (grid_maps.h): the layer nearest a height is chosen, each grid point's block
// has the colour of its value on the scale (x to the right, y up), a position without a point or a
// value is grey, and the colour bar runs from the lowest value's colour to the highest's.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <vector>

#include "ardent/auralize/grid_maps.h"
#include "ardent/auralize/ir_grid.h"
#include "grid_fixture.h"
#include "test_support.h"

namespace ardent::test {
namespace {

TEST(GridMaps, LayerAndColoursFollowTheGrid) {
    const unsigned seed = 20261131;
    std::printf("[ case ] seed %u\n", seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    const double d = 0.5;
    const std::array<double, 3> centre = {2 + u(rng), 1 + u(rng), 1.2 + u(rng)};
    auto points = plane_wave_grid({1, 0, 0}, centre, d, 48000, 64);
    // Without the middle layer's (+1, +1) corner: that block must be grey.
    const std::array<double, 3> gone = {centre[0] + d, centre[1] + d, centre[2]};
    std::erase_if(points, [&](const GridPoint& p) { return p.position == gone; });
    ScratchDir dir;
    ASSERT_TRUE(write_grid_file(dir / "g.h5", points, 48000, d));
    const auralize::IrGrid grid(dir / "g.h5");

    // Heights nearer the middle layer than the others choose it.
    const double height = centre[2] + (u(rng) - 0.5) * 0.9 * d;
    const auralize::MapPlane plane = auralize::plane_nearest(grid, height);
    EXPECT_NEAR(plane.z, centre[2], 1e-9);
    EXPECT_EQ(plane.points.size(), 8u);
    EXPECT_NEAR(auralize::plane_nearest(grid, centre[2] + 5).z, centre[2] + d, 1e-9);

    std::vector<std::optional<double>> values(grid.size());
    double lo = 1e9, hi = -1e9;
    for (size_t i : plane.points) {
        values[i] = 10 * u(rng);
        lo = std::min(lo, *values[i]);
        hi = std::max(hi, *values[i]);
    }
    const size_t no_value = plane.points[3];
    values[no_value].reset();
    const RgbImage img = auralize::map_image(grid, plane, values, lo, hi);
    ASSERT_EQ(img.width % 3, 0);
    const int block = img.width / 3;
    ASSERT_GT(img.height, 3 * block);
    const std::array<uint8_t, 3> grey = {150, 150, 150};
    // The middle of the block of lattice position (i, j), i along x from the left, j along y from
    // the bottom.
    const auto at = [&](int i, int j) {
        return img.at(i * block + block / 2, (2 - j) * block + block / 2);
    };
    for (size_t p : plane.points) {
        const auto& pos = grid.positions()[p];
        const int i = static_cast<int>(std::lround((pos[0] - (centre[0] - d)) / d));
        const int j = static_cast<int>(std::lround((pos[1] - (centre[1] - d)) / d));
        SCOPED_TRACE(testing::Message() << "point " << p << " at lattice " << i << ", " << j);
        if (p == no_value)
            EXPECT_EQ(at(i, j), grey);
        else
            EXPECT_EQ(at(i, j), auralize::map_colour((*values[p] - lo) / (hi - lo)));
    }
    EXPECT_EQ(at(2, 2), grey);  // no grid point there
    EXPECT_EQ(img.at(0, img.height - 1), auralize::map_colour(0));
    EXPECT_EQ(img.at(img.width - 1, img.height - 1), auralize::map_colour(1));
    // The scale's ends differ, and lightness rises along it.
    const auto lum = [](std::array<uint8_t, 3> c) {
        return 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2];
    };
    for (int k = 0; k < 10; ++k)
        EXPECT_LT(lum(auralize::map_colour(k / 10.0)), lum(auralize::map_colour((k + 1) / 10.0)));
}

}  // namespace
}  // namespace ardent::test
