// First-order AmbiX from a listener grid: a plane wave sampled on a fine synthetic grid must come
// out with the dipole channels equal to the direction cosines times W (SN3D), in the listener's
// frame (front, left, up), within the band the grid spacing allows; grid files are checked and a
// listener off the grid is refused with a message naming the file.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "ardent/auralize/ambisonics.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/preprocess/errors.h"
#include "grid_fixture.h"
#include "test_support.h"

namespace ardent::test {
namespace {

using auralize::Acn;
using auralize::IrGrid;

constexpr double kFs = 48000;

// Least-squares gain of b against a: sum(a b) / sum(a a).
double gain(const std::vector<float>& a, const std::vector<float>& b) {
    double ab = 0, aa = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        ab += static_cast<double>(a[i]) * static_cast<double>(b[i]);
        aa += static_cast<double>(a[i]) * static_cast<double>(a[i]);
    }
    return ab / aa;
}

std::array<double, 3> direction(double azimuth_deg, double elevation_deg) {
    const double az = azimuth_deg * std::numbers::pi / 180,
                 el = elevation_deg * std::numbers::pi / 180;
    return {std::cos(az) * std::cos(el), std::sin(az) * std::cos(el), std::sin(el)};
}

TEST(Ambisonics, PlaneWaveGivesItsDirectionCosines) {
    ScratchDir dir;
    const double d = 0.01;  // directions valid to c / (2 pi d) = 5.5 kHz; the pulse stops at 2 kHz
    for (const auto& [az, el] : std::vector<std::pair<double, double>>{
             {0, 0}, {90, 0}, {180, 0}, {-90, 0}, {30, 20}, {-135, -40}, {0, 90}}) {
        SCOPED_TRACE(testing::Message() << "azimuth " << az << ", elevation " << el);
        const auto u = direction(az, el);
        const auto file = dir / "g.h5";
        ASSERT_TRUE(write_grid_file(file, plane_wave_grid(u, {2, 3, 1.5}, d, kFs, 4800), kFs, d));
        const IrGrid grid(file);
        const auto foa = auralize::encode_foa(grid, {2.001, 3.002, 1.5}, {});
        EXPECT_EQ(foa.difference, (std::array<int, 3>{2, 2, 2}));
        const auto& w = foa.channels[Acn::kW];
        // Default orientation: front +x, up +z, so left is +y: X = u_x W, Y = u_y W, Z = u_z W.
        EXPECT_NEAR(gain(w, foa.channels[Acn::kX]), u[0], 0.02);
        EXPECT_NEAR(gain(w, foa.channels[Acn::kY]), u[1], 0.02);
        EXPECT_NEAR(gain(w, foa.channels[Acn::kZ]), u[2], 0.02);
    }
}

TEST(Ambisonics, DirectionsAreInTheListenersFrame) {
    ScratchDir dir;
    const double d = 0.01;
    const auto file = dir / "g.h5";
    // Sound from model +x; the listener faces model +y with z up, so the sound is on the right.
    ASSERT_TRUE(write_grid_file(file, plane_wave_grid({1, 0, 0}, {0, 0, 0}, d, kFs, 4800), kFs, d));
    const IrGrid grid(file);
    const auto foa = auralize::encode_foa(grid, {0, 0, 0}, {.front = {0, 2, 0}, .up = {0, 0, 1}});
    const auto& w = foa.channels[Acn::kW];
    EXPECT_NEAR(gain(w, foa.channels[Acn::kX]), 0.0, 0.02);
    EXPECT_NEAR(gain(w, foa.channels[Acn::kY]), -1.0, 0.02);
    EXPECT_NEAR(gain(w, foa.channels[Acn::kZ]), 0.0, 0.02);
}

// Above the limit kd = 1 the dipoles are faded out rather than aliased.
TEST(Ambisonics, DipolesStopAtTheGridLimit) {
    ScratchDir dir;
    const double d = 0.1;  // limit 546 Hz
    const auto file = dir / "g.h5";
    ASSERT_TRUE(write_grid_file(
        file, plane_wave_grid({1, 0, 0}, {0, 0, 0}, d, kFs, 9600, 1500, 4000), kFs, d));
    const IrGrid grid(file);
    const auto foa = auralize::encode_foa(grid, {0, 0, 0}, {});
    EXPECT_NEAR(foa.directional_limit_hz, 343 / (2 * std::numbers::pi * d), 1e-9);
    double ew = 0, ex = 0;
    for (size_t i = 0; i < foa.channels[0].size(); ++i) {
        ew += std::pow(static_cast<double>(foa.channels[Acn::kW][i]), 2);
        ex += std::pow(static_cast<double>(foa.channels[Acn::kX][i]), 2);
    }
    EXPECT_LT(ex, 1e-4 * ew);  // a pulse at 1.5-4 kHz: nothing left in X
}

TEST(Ambisonics, OneSidedDifferenceAtTheGridEdge) {
    ScratchDir dir;
    const double d = 0.01;
    const auto file = dir / "g.h5";
    const auto u = direction(60, 0);
    ASSERT_TRUE(write_grid_file(file, plane_wave_grid(u, {0, 0, 0}, d, kFs, 4800), kFs, d));
    const IrGrid grid(file);
    // The corner point has one neighbour per axis.
    const auto foa = auralize::encode_foa(grid, {d, d, d}, {});
    EXPECT_EQ(foa.difference, (std::array<int, 3>{1, 1, 1}));
    const auto& w = foa.channels[Acn::kW];
    EXPECT_NEAR(gain(w, foa.channels[Acn::kX]), u[0], 0.05);
    EXPECT_NEAR(gain(w, foa.channels[Acn::kY]), u[1], 0.05);
}

TEST(Ambisonics, ListenerOutsideTheGridIsRefused) {
    ScratchDir dir;
    const double d = 0.5;
    const auto file = dir / "grid.h5";
    ASSERT_TRUE(write_grid_file(file, plane_wave_grid({1, 0, 0}, {1, 1, 1}, d, kFs, 480), kFs, d));
    const IrGrid grid(file);
    EXPECT_EQ(grid.size(), 27u);
    EXPECT_TRUE(grid.nearest({1.2, 1.1, 0.9}).has_value());
    EXPECT_FALSE(grid.nearest({5, 1, 1}).has_value());
    try {
        auralize::encode_foa(grid, {5, 1, 1}, {});
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("grid.h5"), std::string::npos) << m;
        EXPECT_NE(m.find("outside"), std::string::npos) << m;
    }
}

TEST(Ambisonics, GridFilesAreChecked) {
    ScratchDir dir;
    const auto expect_refused = [&](const std::filesystem::path& f, const std::string& needle) {
        try {
            const IrGrid g(f);
            ADD_FAILURE() << f << " accepted";
        } catch (const InputError& e) {
            const std::string m = e.what();
            EXPECT_NE(m.find(f.filename().string()), std::string::npos) << m;
            EXPECT_NE(m.find(needle), std::string::npos) << m;
        }
    };
    expect_refused(dir / "missing.h5", "no such file");
    expect_refused(dir.write("text.h5", "hello"), "not an HDF5 file");
    expect_refused(dir.write("trunc.h5", std::string("\x89HDF\r\n\x1a\n", 8) + "garbage"),
                   "HDF5 cannot open it");
    auto pts = plane_wave_grid({1, 0, 0}, {0, 0, 0}, 0.1, kFs, 100);
    ASSERT_TRUE(write_grid_file(dir / "zero_spacing.h5", pts, kFs, 0.0));
    expect_refused(dir / "zero_spacing.h5", "grid_spacing");
    pts[3].position[0] += 0.037;  // off the lattice
    ASSERT_TRUE(write_grid_file(dir / "off.h5", pts, kFs, 0.1));
    expect_refused(dir / "off.h5", "lattice");
    ASSERT_TRUE(write_grid_file(dir / "empty.h5", {}, kFs, 0.1));
    expect_refused(dir / "empty.h5", "no points");
}

}  // namespace
}  // namespace ardent::test
