// The listener grid's geometric part (geometric/grid_field.h): the image sources at every grid
// point against the exact ones of a box, the envelopes counted in cubes against the diffuse-field
// theory and against the receivers' tracer at the same point, cubes cut by the walls counted by
// their air, and the net arrival direction. Boxes and positions are drawn from printed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

#include "ardent/geometric/grid_field.h"
#include "ardent/geometric/image_sources.h"
#include "ardent/geometric/ray_tracer.h"
#include "ardent/geometric/room.h"
#include "ardent/preprocess/mesh_import.h"

namespace {

using ardent::Vec3;
namespace geo = ardent::geometric;

ardent::Material material(const char* name, double alpha, double scattering) {
    ardent::Material m;
    m.name = name;
    m.set_uniform(alpha);
    m.scattering = {{0, scattering}};
    return m;
}

// A grid of points `spacing` apart filling the box from spacing / 2, and cubes of `m` points a
// side around them, each with the air it holds (the part of the cube inside the box).
struct BoxGrid {
    std::vector<Vec3> points;
    geo::GridCells cells;
};

BoxGrid box_grid(Vec3 size, double spacing, int m) {
    BoxGrid g;
    std::array<size_t, 3> n{};
    for (size_t a = 0; a < 3; ++a)
        n[a] = static_cast<size_t>(std::floor(size[static_cast<int>(a)] / spacing));
    g.cells.size = spacing * m;
    g.cells.lower = {0, 0, 0};
    for (size_t a = 0; a < 3; ++a)
        g.cells.dims[a] = (n[a] + static_cast<size_t>(m) - 1) / static_cast<size_t>(m);
    g.cells.index.assign(g.cells.dims[0] * g.cells.dims[1] * g.cells.dims[2], -1);
    for (size_t k = 0; k < n[2]; ++k)
        for (size_t j = 0; j < n[1]; ++j)
            for (size_t i = 0; i < n[0]; ++i) {
                g.points.push_back({(static_cast<double>(i) + 0.5) * spacing,
                                    (static_cast<double>(j) + 0.5) * spacing,
                                    (static_cast<double>(k) + 0.5) * spacing});
                const size_t um = static_cast<size_t>(m);
                const size_t flat =
                    ((k / um) * g.cells.dims[1] + j / um) * g.cells.dims[0] + i / um;
                int32_t& slot = g.cells.index[flat];
                if (slot < 0) {
                    slot = static_cast<int32_t>(g.cells.centre.size());
                    std::array<double, 3> lo{}, hi{};
                    const size_t c[3] = {i / um, j / um, k / um};
                    double vol = 1;
                    for (size_t a = 0; a < 3; ++a) {
                        lo[a] = static_cast<double>(c[a]) * g.cells.size;
                        hi[a] = std::min(lo[a] + g.cells.size, size[static_cast<int>(a)]);
                        vol *= hi[a] - lo[a];
                    }
                    g.cells.centre.push_back(
                        {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])});
                    g.cells.air_volume.push_back(vol);
                }
                g.cells.cell_of_point.push_back(static_cast<uint32_t>(slot));
            }
    return g;
}

// T20 of a band of an energy-per-bin curve (Schroeder integral fitted from -5 to -25 dB).
double t20(const std::vector<double>& t, const std::vector<double>& e) {
    std::vector<double> tail(e.size() + 1, 0.0);
    for (size_t k = e.size(); k-- > 0;)
        tail[k] = tail[k + 1] + e[k];
    double st = 0, sd = 0, stt = 0, sdt = 0, n = 0;
    for (size_t k = 0; k < e.size(); ++k) {
        const double level = 10 * std::log10(tail[k] / tail[0]);
        if (level > -5 || level < -25) continue;
        st += t[k];
        sd += level;
        stt += t[k] * t[k];
        sdt += t[k] * level;
        n += 1;
    }
    return -60 / ((n * sdt - st * sd) / (n * stt - st * st));
}

// A cell's band-b envelope and its bins' end times.
void cell_curve(const geo::GridField& f, size_t cell, size_t b, std::vector<double>& t,
                std::vector<double>& e) {
    t.clear();
    e.clear();
    for (size_t k = 0; k < f.bins(); ++k) {
        t.push_back(f.bin_edges[k]);  // the tail from bin k on starts here
        e.push_back(f.energy[(cell * f.bins() + k) * geo::kBands + b]);
    }
}

TEST(GridField, ImageSourcesAtEveryPointAreTheBoxsFirstOrderImages) {
    const unsigned seed = 71;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    const Vec3 size{3 + 4 * u(rng), 3 + 3 * u(rng), 2.4 + u(rng)};
    const Vec3 source{size.x * (0.2 + 0.6 * u(rng)), size.y * (0.2 + 0.6 * u(rng)),
                      size.z * (0.2 + 0.6 * u(rng))};
    std::printf("seed %u: box %.3f x %.3f x %.3f, source (%.3f, %.3f, %.3f)\n", seed, size.x,
                size.y, size.z, source.x, source.y, source.z);
    const ardent::TriangleMesh mesh = ardent::make_box_mesh(size);
    const geo::Room room(mesh, std::vector<int>(mesh.groups.size(), 0), {material("rigid", 0, 0)});
    const BoxGrid g = box_grid(size, 0.7, 1);
    const auto candidates = geo::candidate_sequences(room, source, 1, 100000, 3, 0);
    geo::GridFieldSettings s;
    s.rays = 1000;
    s.max_time = 0.1;
    s.air_absorption = false;
    const geo::GridField f = geo::trace_grid(room, source, g.points, g.cells, candidates, s);
    ASSERT_EQ(f.path_offset.size(), g.points.size() + 1);
    double worst = 0;
    for (size_t p = 0; p < g.points.size(); ++p) {
        const Vec3 x = g.points[p];
        // The direct sound and one image across each of the six walls.
        std::vector<double> want{norm(source - x)};
        for (int a = 0; a < 3; ++a)
            for (double wall : {0.0, size[a]}) {
                Vec3 image = source;
                image[a] = 2 * wall - source[a];
                want.push_back(norm(image - x));
            }
        std::sort(want.begin(), want.end());
        ASSERT_EQ(f.path_offset[p + 1] - f.path_offset[p], want.size()) << "point " << p;
        for (size_t i = 0; i < want.size(); ++i) {
            const geo::SpecularPath& path = f.paths[f.path_offset[p] + i];
            worst = std::max(worst, std::abs(path.length - want[i]));
            EXPECT_NEAR(path.factor[3], 1.0, 1e-9);
        }
    }
    std::printf("  %zu points, 7 paths each, lengths within %.2e m of the exact images\n",
                g.points.size(), worst);
    EXPECT_LT(worst, 1e-6);
}

class GridDiffuseBox : public testing::TestWithParam<unsigned> {};

// As test_geometric's DiffuseShoebox, in every cube of a grid: scattering walls of one low
// absorption in a nearly cubic box. The mean over the cubes of T20 is Eyring's and of the late
// fluence the diffuse field's; the cubes at the walls (cut by them) hold the same fluence as the
// inner ones, so the track length is divided by the air they hold.
TEST_P(GridDiffuseBox, EnvelopesAreTheDiffuseFieldsInEveryCube) {
    std::mt19937 rng(GetParam());
    std::uniform_real_distribution<double> u(0, 1);
    const Vec3 size{4 + 2 * u(rng), 4 + 2 * u(rng), 4 + 2 * u(rng)};
    const Vec3 source{size.x * (0.25 + 0.5 * u(rng)), size.y * (0.25 + 0.5 * u(rng)),
                      size.z * (0.25 + 0.5 * u(rng))};
    const double alpha = 0.03 + 0.09 * u(rng), scattering = 0.3 + 0.7 * u(rng);
    const double spacing = 0.45 + 0.2 * u(rng);
    std::printf(
        "seed %u: box %.3f x %.3f x %.3f, source (%.3f, %.3f, %.3f), alpha %.3f, scattering "
        "%.3f, grid spacing %.3f m, cubes of 2\n",
        GetParam(), size.x, size.y, size.z, source.x, source.y, source.z, alpha, scattering,
        spacing);
    const ardent::TriangleMesh mesh = ardent::make_box_mesh(size);
    const geo::Room room(mesh, std::vector<int>(mesh.groups.size(), 0),
                         {material("wall", alpha, scattering)});
    const BoxGrid g = box_grid(size, spacing, 2);
    const double speed = 343, v = size.x * size.y * size.z;
    const double area = 2 * (size.x * size.y + size.y * size.z + size.z * size.x);
    const double a = -std::log(1 - alpha);
    const double eyring = 24 * std::log(10.0) * v / (speed * area * a);
    geo::GridFieldSettings s;
    s.rays = 40000;
    s.max_time = 1.2 * eyring;
    s.air_absorption = false;
    s.seed = GetParam();
    const auto candidates = geo::candidate_sequences(room, source, 1, 100000, 3, 0);
    const geo::GridField f = geo::trace_grid(room, source, g.points, g.cells, candidates, s);
    const double t0 = 4 * (4 * v / area) / speed;  // four mean free paths
    const auto remaining = [&](double t) { return std::exp(-a * speed * t * area / (4 * v)); };
    double t20_sum = 0, late_inner = 0, late_wall = 0;
    size_t inner = 0, wall = 0;
    std::vector<double> t, e;
    for (size_t c = 0; c < f.cells; ++c) {
        cell_curve(f, c, 3, t, e);
        t20_sum += t20(t, e);
        double late = 0, from = 0;
        for (size_t k = 0; k < f.bins(); ++k)
            if (f.bin_edges[k] >= t0) {
                if (from == 0) from = f.bin_edges[k];
                late += e[k];
            }
        const double want = 4 / (area * a) * (remaining(from) - remaining(f.bin_edges.back()));
        const bool full = std::abs(g.cells.air_volume[c] - std::pow(g.cells.size, 3)) < 1e-9;
        (full ? late_inner : late_wall) += late / want;
        ++(full ? inner : wall);
    }
    const double mean_t20 = t20_sum / static_cast<double>(f.cells);
    late_inner /= static_cast<double>(std::max<size_t>(1, inner));
    late_wall /= static_cast<double>(std::max<size_t>(1, wall));
    std::printf(
        "  %zu cubes (%zu inner, %zu cut by walls), %zu rays: mean T20 %.3f s, Eyring %.3f s "
        "(%+.1f %%); late fluence over the diffuse field's: inner %.3f, at the walls %.3f\n",
        f.cells, inner, wall, f.rays.rays, mean_t20, eyring, 100 * (mean_t20 / eyring - 1),
        late_inner, late_wall);
    EXPECT_NEAR(mean_t20 / eyring, 1, 0.05);
    EXPECT_NEAR(late_inner, 1, 0.10);
    ASSERT_GT(wall, 0u);
    EXPECT_NEAR(late_wall / late_inner, 1, 0.10);
}

// A grid point's envelope (grid_histogram of its cube) against the receivers' tracer at the same
// point with the same image-source order: the same late energy per band and the same T20.
TEST_P(GridDiffuseBox, PointsEnvelopeIsTheReceiversTracers) {
    std::mt19937 rng(GetParam() + 100);
    std::uniform_real_distribution<double> u(0, 1);
    const Vec3 size{5 + 3 * u(rng), 4 + 2 * u(rng), 3 + u(rng)};
    const Vec3 source{size.x * (0.2 + 0.6 * u(rng)), size.y * (0.2 + 0.6 * u(rng)), 1.5};
    const double spacing = 0.5;
    const BoxGrid g = box_grid(size, spacing, 2);
    const size_t p = static_cast<size_t>(u(rng) * static_cast<double>(g.points.size()));
    std::printf(
        "seed %u: box %.3f x %.3f x %.3f, source (%.3f, %.3f, %.3f), point %zu (%.3f, "
        "%.3f, %.3f); floor alpha 0.1-0.6 by band, walls 0.06, scattering 0.5\n",
        GetParam() + 100, size.x, size.y, size.z, source.x, source.y, source.z, p, g.points[p].x,
        g.points[p].y, g.points[p].z);
    const ardent::TriangleMesh mesh = ardent::make_box_mesh(size);
    std::vector<int> groups(mesh.groups.size(), 0);
    groups[0] = 1;  // the floor
    ardent::Material floor = material("floor", 0.3, 0.5);
    floor.set_bands({{125, 0.1},
                     {250, 0.15},
                     {500, 0.2},
                     {1000, 0.3},
                     {2000, 0.4},
                     {4000, 0.5},
                     {8000, 0.55},
                     {16000, 0.6}});
    const geo::Room room(mesh, groups, {material("wall", 0.06, 0.5), floor});
    geo::GridFieldSettings s;
    s.rays = 80000;
    s.max_time = 1.0;
    s.air_absorption = false;
    s.seed = 2;  // not the receivers' rays (their seed is 1)
    const auto candidates = geo::candidate_sequences(room, source, 1, 100000, 3, 0);
    const geo::GridField f = geo::trace_grid(room, source, g.points, g.cells, candidates, s);
    const geo::EnergyHistogram grid = geo::grid_histogram(f, {{g.cells.cell_of_point[p], 1.0}});
    geo::RayTracingSettings rt;
    rt.rays = 20000;
    rt.max_time = 1.0;
    rt.image_source_order = 1;
    rt.receiver_radius = 0.4;
    rt.mixing_time = std::sqrt(size.x * size.y * size.z) * 1e-3;
    auto rec = geo::trace_rays(room, source, {g.points[p]}, rt);
    geo::smooth_late_energy(rec[0]);
    for (size_t b : {1u, 3u, 5u}) {
        std::vector<double> t, eg, er;
        double sum_g = 0, sum_r = 0;
        const size_t n = std::min(grid.bins.size(), rec[0].bins.size());
        for (size_t k = 0; k < n; ++k) {
            t.push_back(static_cast<double>(k + 1) * 1e-3);
            eg.push_back(grid.bins[k][b]);
            er.push_back(rec[0].bins[k][b]);
            if (k >= 20) {  // from 20 ms on
                sum_g += grid.bins[k][b];
                sum_r += rec[0].bins[k][b];
            }
        }
        const double tg = t20(t, eg), tr = t20(t, er);
        std::printf(
            "  %5.0f Hz: energy from 20 ms grid/receiver %+.2f dB, T20 %.3f / %.3f s "
            "(%+.1f %%)\n",
            geo::kBandHz[b], 10 * std::log10(sum_g / sum_r), tg, tr, 100 * (tg / tr - 1));
        EXPECT_NEAR(10 * std::log10(sum_g / sum_r), 0, 1.0) << "band " << b;
        EXPECT_NEAR(tg / tr, 1, 0.08) << "band " << b;
    }
}

INSTANTIATE_TEST_SUITE_P(Seeds, GridDiffuseBox, testing::Values(51u, 52u, 53u));

// Sound that comes from one side: a box whose walls absorb all but the far end wall, which
// scatters everything it reflects. Before anything else can arrive, a cube between the source and
// that wall gets its energy from the wall: the net flux points towards +x and nearly all of the
// bin's energy comes from there.
TEST(GridField, NetFluxPointsToWhereTheEnergyComesFrom) {
    const Vec3 size{12, 3, 3};
    const Vec3 source{1, 1.5, 1.5};
    const ardent::TriangleMesh mesh = ardent::make_box_mesh(size);
    std::vector<int> groups(mesh.groups.size(), 0);
    size_t far = mesh.groups.size();
    for (size_t gi = 0; gi < mesh.groups.size(); ++gi)
        if (mesh.groups[gi].node == "wall_x1") far = gi;
    ASSERT_LT(far, mesh.groups.size());
    groups[far] = 1;
    const geo::Room room(mesh, groups,
                         {material("absorber", 0.99, 0.0), material("diffuser", 0.0, 1.0)});
    const BoxGrid g = box_grid(size, 1.0, 1);
    geo::GridFieldSettings s;
    s.rays = 20000;
    s.max_time = 0.06;
    s.air_absorption = false;
    const auto candidates = geo::candidate_sequences(room, source, 1, 100000, 3, 0);
    const geo::GridField f = geo::trace_grid(room, source, g.points, g.cells, candidates, s);
    // The cube around (6.5, 1.5, 1.5): the wall's scattered sound arrives from 22 ms on.
    const Vec3 at{6.5, 1.5, 1.5};
    size_t cell = 0;
    for (size_t p = 0; p < g.points.size(); ++p)
        if (norm(g.points[p] - at) < 1e-9) cell = g.cells.cell_of_point[p];
    double energy = 0;
    Vec3 flux;
    for (size_t k = 0; k < f.bins(); ++k)
        for (size_t b = 0; b < geo::kBands; ++b)
            energy += static_cast<double>(f.energy[(cell * f.bins() + k) * geo::kBands + b]);
    for (size_t k = 0; k < f.bins(); ++k)
        flux = flux + Vec3{f.flux[(cell * f.bins() + k) * 3], f.flux[(cell * f.bins() + k) * 3 + 1],
                           f.flux[(cell * f.bins() + k) * 3 + 2]};
    std::printf("  net flux (%.3g, %.3g, %.3g) of total %.3g: share along +x %.3f\n", flux.x,
                flux.y, flux.z, energy, flux.x / energy);
    ASSERT_GT(energy, 0);
    EXPECT_GT(flux.x / energy, 0.6);
}

}  // namespace
