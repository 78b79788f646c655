// First-order AmbiX from a listener grid: a plane wave sampled on a fine synthetic grid must come
// out with the dipole channels equal to the direction cosines times W (SN3D), in the listener's
// frame (front, left, up), within the band the grid spacing allows; between grid points the IRs
// are blended trilinearly; grid files are checked and a listener off the grid is refused with a
// message naming the file. An AmbiX IR with its dipoles
// along the model's axes is turned to the listener's frame.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ardent/auralize/ambisonics.h"
#include "ardent/auralize/ir_grid.h"
#include "ardent/preprocess/errors.h"
#include "grid_fixture.h"
#include "signal_tools.h"
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

// An AmbiX IR file's dipoles lie along the model's axes; rotate_foa turns them to the listener's
// frame. A plane wave from model direction v (W = s, (X, Y, Z) = v s) must come out as the
// listener-frame encoding (X, Y, Z) = (front.v, left.v, up.v) s, the axes formed here
// independently of the library.
TEST(Ambisonics, RotationGivesTheListenerFrameEncoding) {
    const unsigned seed = 20240611;
    std::printf("[ case ] seed %u\n", seed);
    std::mt19937 rng(seed);
    std::normal_distribution<double> g;
    const auto dot = [](const std::array<double, 3>& a, const std::array<double, 3>& b) {
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    };
    const auto unit = [&](std::array<double, 3> a) {
        const double n = std::sqrt(dot(a, a));
        return std::array<double, 3>{a[0] / n, a[1] / n, a[2] / n};
    };
    std::vector<float> s(64);
    for (auto& x : s)
        x = static_cast<float>(g(rng));
    for (int c = 0; c < 8; ++c) {
        const auto v = unit({g(rng), g(rng), g(rng)});
        // Neither axis of unit length, `up` not perpendicular to `front`.
        const std::array<double, 3> facing{3 * g(rng), 3 * g(rng), 3 * g(rng)},
            up_given{g(rng), g(rng), g(rng)};
        const auto f = unit(facing);
        const double along = dot(up_given, f);
        const auto u = unit(
            {up_given[0] - along * f[0], up_given[1] - along * f[1], up_given[2] - along * f[2]});
        const std::array<double, 3> l{u[1] * f[2] - u[2] * f[1], u[2] * f[0] - u[0] * f[2],
                                      u[0] * f[1] - u[1] * f[0]};
        SCOPED_TRACE(testing::Message() << "seed " << seed << " #" << c << ": v (" << v[0] << ", "
                                        << v[1] << ", " << v[2] << "), facing (" << facing[0]
                                        << ", " << facing[1] << ", " << facing[2] << ")");
        auralize::FoaIr model;
        model.sample_rate = kFs;
        model.channels[Acn::kW] = s;
        const std::pair<Acn, double> dipoles[] = {
            {Acn::kX, v[0]}, {Acn::kY, v[1]}, {Acn::kZ, v[2]}};
        for (const auto& [acn, cosine] : dipoles) {
            auto& ch = model.channels[acn];
            ch.resize(s.size());
            for (size_t i = 0; i < s.size(); ++i)
                ch[i] = static_cast<float>(cosine * static_cast<double>(s[i]));
        }
        const auto foa = auralize::rotate_foa(model, {.front = facing, .up = up_given});
        EXPECT_EQ(foa.channels[Acn::kW], s);
        EXPECT_EQ(foa.sample_rate, kFs);
        const std::pair<Acn, double> expected[] = {
            {Acn::kX, dot(f, v)}, {Acn::kY, dot(l, v)}, {Acn::kZ, dot(u, v)}};
        for (const auto& [acn, cosine] : expected) {
            ASSERT_EQ(foa.channels[acn].size(), s.size());
            for (size_t i = 0; i < s.size(); ++i)
                ASSERT_NEAR(foa.channels[acn][i], cosine * static_cast<double>(s[i]),
                            1e-6 * (1 + std::fabs(static_cast<double>(s[i]))))
                    << "ACN " << acn << ", sample " << i;
        }
    }
    // Facing model +y, z up: a sound from model +x is on the right (Y = -W).
    auralize::FoaIr from_x;
    from_x.channels = {s, std::vector<float>(s.size(), 0.0f), std::vector<float>(s.size(), 0.0f),
                       s};
    const auto turned = auralize::rotate_foa(from_x, {.front = {0, 1, 0}, .up = {0, 0, 1}});
    EXPECT_NEAR(gain(s, turned.channels[Acn::kY]), -1.0, 1e-12);
    EXPECT_NEAR(gain(s, turned.channels[Acn::kX]), 0.0, 1e-12);
    EXPECT_NEAR(gain(s, turned.channels[Acn::kZ]), 0.0, 1e-12);
}

// The default orientation (and any that normalises to it) leaves every channel bit for bit,
// signed zeros included: a 4-channel IR rendered as before the rotation existed.
TEST(Ambisonics, IdentityRotationIsExact) {
    std::mt19937 rng(3);
    std::normal_distribution<double> g;
    auralize::FoaIr model;
    model.sample_rate = kFs;
    model.directional_limit_hz = 1234;
    for (auto& ch : model.channels) {
        ch.resize(200);
        for (auto& x : ch)
            x = static_cast<float>(g(rng) * 1e-3);
        ch[7] = -0.0f;
        ch[8] = 1e-42f;  // subnormal
    }
    for (const auralize::Orientation& o :
         {auralize::Orientation{},
          auralize::Orientation{.front = {2.5, 0, 0}, .up = {0, 0, 0.1}}}) {
        const auto foa = auralize::rotate_foa(model, o);
        EXPECT_EQ(foa.directional_limit_hz, 1234);
        for (size_t c = 0; c < 4; ++c) {
            ASSERT_EQ(foa.channels[c].size(), model.channels[c].size());
            EXPECT_EQ(std::memcmp(foa.channels[c].data(), model.channels[c].data(),
                                  model.channels[c].size() * sizeof(float)),
                      0)
                << "channel " << c;
        }
    }
    // Mismatched channels and a degenerate orientation are refused.
    auto short_x = model;
    short_x.channels[Acn::kX].pop_back();
    EXPECT_THROW(auralize::rotate_foa(short_x, {}), std::invalid_argument);
    EXPECT_THROW(auralize::rotate_foa(model, {.front = {0, 0, 0}, .up = {0, 0, 1}}),
                 std::invalid_argument);
}

// Above the limit kd = 2.4 the dipoles are faded out rather than aliased.
TEST(Ambisonics, DipolesStopAtTheGridLimit) {
    ScratchDir dir;
    const double d = 0.1;  // limit 1310 Hz
    const auto file = dir / "g.h5";
    ASSERT_TRUE(write_grid_file(
        file, plane_wave_grid({1, 0, 0}, {0, 0, 0}, d, kFs, 9600, 1500, 4000), kFs, d));
    const IrGrid grid(file);
    const auto foa = auralize::encode_foa(grid, {0, 0, 0}, {});
    EXPECT_NEAR(foa.directional_limit_hz, 2.4 * 343 / (2 * std::numbers::pi * d), 1e-9);
    double ew = 0, ex = 0;
    for (size_t i = 0; i < foa.channels[0].size(); ++i) {
        ew += std::pow(static_cast<double>(foa.channels[Acn::kW][i]), 2);
        ex += std::pow(static_cast<double>(foa.channels[Acn::kX][i]), 2);
    }
    EXPECT_LT(ex, 1e-4 * ew);  // a pulse at 1.5-4 kHz: nothing left in X
}

// The diffuse-field gain: 1 for small kd, and it restores the mean square of the difference over
// the sphere (checked by averaging over many directions).
TEST(Ambisonics, CentralDifferenceGainRestoresTheDiffuseFieldLevel) {
    EXPECT_NEAR(auralize::central_difference_gain(0.0), 1.0, 1e-12);
    EXPECT_NEAR(auralize::central_difference_gain(1e-4), 1.0, 1e-6);
    for (double kd : {0.3, 1.0, 1.93, 2.4}) {
        double num = 0, den = 0;
        const int n = 20000;
        for (int i = 0; i < n; ++i) {
            const double mu = (i + 0.5) / n;  // cos(theta), uniform on the sphere
            num += std::pow(kd * mu, 2);
            den += std::pow(std::sin(kd * mu), 2);
        }
        EXPECT_NEAR(auralize::central_difference_gain(kd), std::sqrt(num / den), 1e-6) << kd;
    }
}

// Directions well above the old limit kd = 1, from central differences: a pulse at 300-800 Hz
// through a 10 cm lattice reaches kd = 1.47; directions within 7 degrees (the bound for a plane
// wave at that kd is 7.1), levels within 1.5 dB.
TEST(Ambisonics, DirectionsHoldUpToKdOfTwo) {
    ScratchDir dir;
    const double d = 0.1;
    for (const auto& [az, el] :
         std::vector<std::pair<double, double>>{{0, 0}, {30, 0}, {45, 0}, {-120, 20}, {75, -35}}) {
        SCOPED_TRACE(testing::Message() << "azimuth " << az << ", elevation " << el);
        const auto u = direction(az, el);
        const auto file = dir / "g.h5";
        ASSERT_TRUE(write_grid_file(
            file, plane_wave_grid(u, {0, 0, 0}, d, kFs, 9600, 300, 800, 0.05), kFs, d));
        const IrGrid grid(file);
        const auto foa = auralize::encode_foa(grid, {0, 0, 0}, {});
        const auto& w = foa.channels[Acn::kW];
        const double x = gain(w, foa.channels[Acn::kX]), y = gain(w, foa.channels[Acn::kY]),
                     z = gain(w, foa.channels[Acn::kZ]);
        const double norm = std::sqrt(x * x + y * y + z * z);
        const double cosine = (x * u[0] + y * u[1] + z * u[2]) / norm;
        EXPECT_LT(std::acos(std::min(1.0, cosine)) * 180 / std::numbers::pi, 7.0);
        EXPECT_NEAR(20 * std::log10(norm), 0.0, 1.5);
    }
}

// End to end: `ardent simulate` writes the gradient from the cells next to each listener-grid
// point (grid format 2), so a point source's direction at 500 Hz, ten times the old limit of a grid
// every 8 cells at 1 kHz (c / (2 pi d) = 52 Hz, d = 1.06 m), comes out of the W/X/Y/Z ratios at
// every grid point 1.5 m or more from the source. Walls fully absorbing, and only the direct
// sound weighed: the absorbing layer reflects more at grazing incidence than its -40 dB normal.
TEST(Ambisonics, SimulatedPointSourceHasItsDirectionAt500Hz) {
    ScratchDir dir;
    dir.write("room.json", R"({"format": "ardent-scene/1", "name": "anechoic box",
  "geometry": {"box": [6.0, 4.0, 3.0]},
  "materials": {"absorber": {"absorption": 1.0}},
  "surfaces": {"*": "absorber"},
  "sources": [{"name": "S1", "position": [1.5, 1.2, 1.4]}],
  "listener_grid": {"every": 8},
  "simulation": {"max_frequency": 1000, "duration": 0.05}})");
    const auto r = run_ardent("simulate room.json -o out --threads 1 --quiet", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(dir / "out" / "result.json");
    const auto result = nlohmann::json::parse(in);
    const auto src = result["sources"][0]["cell_centre"].get<std::array<double, 3>>();
    const IrGrid grid(dir / "out" / "grid" / "S1.h5");
    ASSERT_TRUE(grid.has_gradient());
    EXPECT_NEAR(grid.gradient_spacing(), result["grid"]["h"].get<double>(), 1e-12);
    size_t checked = 0;
    double worst = 0, worst_level = 0;
    for (size_t i = 0; i < grid.size(); ++i) {
        const auto& p = grid.positions()[i];
        const std::array<double, 3> to_src = {src[0] - p[0], src[1] - p[1], src[2] - p[2]};
        const double dist =
            std::sqrt(to_src[0] * to_src[0] + to_src[1] * to_src[1] + to_src[2] * to_src[2]);
        if (dist < 1.5 || grid.gradient_kind(i) != std::array<int, 3>{2, 2, 2}) continue;
        SCOPED_TRACE(testing::Message() << "grid point " << p[0] << ", " << p[1] << ", " << p[2]);
        const auto foa = auralize::encode_foa(grid, p, {});
        // An octave band at 500 Hz (kh = 0.85-1.71, h = 0.132 m), weighted in time around the
        // direct sound (a Hann window of +-4 ms), before the walls' residual reflections arrive.
        std::array<std::vector<double>, 4> band;
        for (size_t c = 0; c < 4; ++c) {
            std::vector<double> v(foa.channels[c].begin(), foa.channels[c].end());
            band[c] = bandpass(v, foa.sample_rate, 354, 707, 0.1);
        }
        const double t_direct = dist / 343.0, half = 0.004;
        double ww = 0, wx = 0, wy = 0, wz = 0;
        for (size_t n = 0; n < band[0].size(); ++n) {
            const double t = static_cast<double>(n) / foa.sample_rate - t_direct;
            if (std::fabs(t) >= half) continue;
            const double hann = 0.5 + 0.5 * std::cos(std::numbers::pi * t / half);
            ww += hann * band[Acn::kW][n] * band[Acn::kW][n];
            wx += hann * band[Acn::kW][n] * band[Acn::kX][n];
            wy += hann * band[Acn::kW][n] * band[Acn::kY][n];
            wz += hann * band[Acn::kW][n] * band[Acn::kZ][n];
        }
        const std::array<double, 3> v = {wx / ww, wy / ww, wz / ww};
        const double norm = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        const double cosine =
            (v[0] * to_src[0] + v[1] * to_src[1] + v[2] * to_src[2]) / (norm * dist);
        const double angle = std::acos(std::min(1.0, cosine)) * 180 / std::numbers::pi;
        EXPECT_LT(angle, 8.0);  // a plane wave at the band's top, kh = 1.71: up to 9.5
        EXPECT_NEAR(20 * std::log10(norm), 0.0, 1.5);
        worst = std::max(worst, angle);
        worst_level = std::max(worst_level, std::fabs(20 * std::log10(norm)));
        ++checked;
    }
    EXPECT_GE(checked, 3u);
    std::printf(
        "[ measured ] %zu grid points, 500 Hz octave: direction error <= %.2f deg, "
        "dipole level within %.2f dB of W\n",
        checked, worst, worst_level);
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

// Between grid points the IR is the trilinear blend of the lattice cell's corners that are in
// the grid, weights renormalised over them (computed here from the lattice, independently of the
// library); at a grid point it is that point's IR, sample for sample.
TEST(Ambisonics, InterpolatesBetweenGridPoints) {
    const unsigned seed = 20261126;
    std::printf("[ case ] seed %u\n", seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uni(0, 1);
    const double d = 0.25;
    const std::array<double, 3> centre = {1 + uni(rng), 2 + uni(rng), 1 + uni(rng)};
    const auto u = direction(360 * uni(rng), 180 * uni(rng) - 90);
    auto points = plane_wave_grid(u, centre, d, kFs, 960, 100, 2000, 0.005);
    // Without the (+1, +1, +1) corner: the upper octant's cell has 7 corners in the grid.
    const std::array<double, 3> gone = {centre[0] + d, centre[1] + d, centre[2] + d};
    std::erase_if(points, [&](const GridPoint& p) { return p.position == gone; });
    ScratchDir dir;
    ASSERT_TRUE(write_grid_file(dir / "g.h5", points, kFs, d));
    const IrGrid grid(dir / "g.h5");
    ASSERT_EQ(grid.size(), 26u);

    for (size_t i = 0; i < grid.size(); ++i) {
        const auto a = auralize::encode_foa_interpolated(grid, grid.positions()[i], {});
        const auto b = auralize::encode_foa(grid, grid.positions()[i], {});
        ASSERT_EQ(a.blend.size(), 1u);
        EXPECT_EQ(a.blend[0].point, i);
        EXPECT_EQ(a.blend[0].weight, 1.0);
        for (size_t c = 0; c < 4; ++c)
            EXPECT_EQ(a.channels[c], b.channels[c]) << "point " << i << ", channel " << c;
    }

    for (const int octant : {-1, +1}) {
        SCOPED_TRACE(octant);
        // A listener inside the cell between the centre and the octant's corner.
        std::array<double, 3> t{}, listener{};
        for (size_t a = 0; a < 3; ++a) {
            t[a] = 0.05 + 0.9 * uni(rng);
            listener[a] = centre[a] + octant * t[a] * d;
        }
        std::vector<double> expected(grid.samples(), 0.0);
        double total = 0;
        size_t corners = 0;
        for (const GridPoint& p : points) {
            double w = 1;
            bool corner = true;
            for (size_t a = 0; a < 3; ++a) {
                const double step = std::round((p.position[a] - centre[a]) / d) * octant;
                if (step == 0)
                    w *= 1 - t[a];
                else if (step == 1)
                    w *= t[a];
                else
                    corner = false;
            }
            if (!corner) continue;
            ++corners;
            total += w;
            for (size_t n = 0; n < expected.size(); ++n)
                expected[n] += w * static_cast<double>(p.ir[n]);
        }
        EXPECT_EQ(corners, octant > 0 ? 7u : 8u);
        const auto foa = auralize::encode_foa_interpolated(grid, listener, {});
        EXPECT_EQ(foa.blend.size(), corners);
        double sum = 0;
        for (const auto& w : foa.blend)
            sum += w.weight;
        EXPECT_NEAR(sum, 1.0, 1e-12);
        double peak = 0, err = 0;
        for (size_t n = 0; n < expected.size(); ++n) {
            peak = std::max(peak, std::fabs(expected[n] / total));
            err = std::max(err, std::fabs(expected[n] / total -
                                          static_cast<double>(foa.channels[Acn::kW][n])));
        }
        EXPECT_LT(err, 1e-6 * peak);
    }
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
    ASSERT_TRUE(write_grid_file(dir / "v9.h5", pts, kFs, 0.1, "S1", "ardent-grid/9"));
    expect_refused(dir / "v9.h5", "format");
    // Format 3 (the band's rate) must say what rate its readers resample to.
    ASSERT_TRUE(write_grid_file(dir / "v3.h5", pts, kFs, 0.1, "S1", "ardent-grid/3"));
    expect_refused(dir / "v3.h5", "output_sample_rate");
    // Format 2 without its gradient datasets.
    ASSERT_TRUE(write_grid_file(dir / "v2.h5", pts, kFs, 0.1, "S1", "ardent-grid/2"));
    expect_refused(dir / "v2.h5", "gradient_spacing");
}

}  // namespace
}  // namespace ardent::test
