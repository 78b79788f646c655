// `ardent info` through the real command line: the run-time estimate for the whole scene (every
// source for the whole duration, the geometric stage included), as text and as JSON keys.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "mesh_builders.h"
#include "test_support.h"

namespace ardent::test {
namespace {

std::string three_source_scene(const std::string& band) {
    return R"({
  "format": "ardent-scene/1",
  "name": "info totals",
  "geometry": {"box": [6.0, 4.0, 3.0]},
  "materials": {"plaster": {"absorption": 0.05}, "carpet": {"absorption": 0.3}},
  "surfaces": {"floor": "carpet", "*": "plaster"},
  "sources": [{"name": "S1", "position": [1.5, 1.2, 1.4]},
              {"name": "S2", "position": [3.0, 2.0, 1.4]},
              {"name": "S3", "position": [4.5, 3.0, 1.4]}],
  "receivers": [{"name": "R1", "position": [4.2, 2.5, 1.6]}],
  "simulation": {"max_frequency": 500, "duration": 2.5, "band": ")" +
           band + R"("}
})";
}

// `info` gave time per simulated second only; a user multiplied by sources and duration by hand
// and had no way to add the geometric stage.
TEST(InfoCli, TotalsCoverEverySourceAndTheWholeDuration) {
    ScratchDir dir;
    for (const std::string band : {"full", "wave"}) {
        SCOPED_TRACE(band);
        dir.write("s.json", three_source_scene(band));
        const CommandResult r = run_ardent("info s.json --json", dir.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        const auto& t = j.at("estimated_total_seconds");
        EXPECT_EQ(t.at("sources").get<int>(), 3);
        EXPECT_DOUBLE_EQ(t.at("duration_s").get<double>(), 2.5);
        const double geo = t.at("geometric_per_source").get<double>();
        if (band == "full")
            EXPECT_DOUBLE_EQ(geo, j.at("geometric").at("seconds_per_source").get<double>());
        else
            EXPECT_EQ(geo, 0.0);
        for (const char* backend : {"ard_cpu", "ard_gpu", "fdtd_cpu", "fdtd_gpu"}) {
            SCOPED_TRACE(backend);
            const double sps = j.at("seconds_per_simulated_second").at(backend).get<double>();
            EXPECT_GT(sps, 0);
            EXPECT_NEAR(t.at("wave_per_source").at(backend).get<double>(), 2.5 * sps, 1e-9 * sps);
            // On a GPU the rays trace beside the solve (the longer of the two per source) and
            // every source's files but the last are written during the next solve; a second for
            // the run besides (docs/info.md).
            const double write = t.at("write_per_source").get<double>();
            EXPECT_GT(write, 0);
            const double total = std::string(backend).ends_with("_gpu")
                                     ? 3 * std::max(2.5 * sps, geo) + write
                                     : 3 * (2.5 * sps + geo + write);
            EXPECT_NEAR(t.at("total").at(backend).get<double>(), 1.0 + total,
                        1e-9 * (sps + geo + write));
        }
        const CommandResult text = run_ardent("info s.json", dir.path());
        ASSERT_EQ(text.exit_code, 0) << text.err;
        EXPECT_NE(text.out.find("total            3 sources x 2.5 s simulated: ARD CPU"),
                  std::string::npos)
            << text.out;
        EXPECT_EQ(text.out.find("+ geometric") != std::string::npos, band == "full") << text.out;
    }
}

// A grid given in metres keeps its spacing across max_frequency (a grid in cells spread out as
// the frequency fell: 4 points in a room at 400 Hz), and `info` says the spacing used.
TEST(InfoCli, ListenerGridInMetresKeepsItsSpacingAcrossFrequencies) {
    const unsigned seed = 20261129;
    std::printf("[ case ] seed %u\n", seed);
    std::mt19937 rng(seed);
    const double asked = std::uniform_real_distribution<double>(0.4, 1.2)(rng);
    ScratchDir dir;
    char grid[96];
    std::snprintf(grid, sizeof grid, R"("listener_grid": {"spacing_m": %.6f},)", asked);
    std::string scene = three_source_scene("wave");
    scene.replace(scene.find(R"("simulation")"), 0, std::string(grid) + "\n  ");
    dir.write("s.json", scene);
    size_t points_low = 0;
    for (const double f : {250.0, 500.0, 1000.0}) {
        SCOPED_TRACE(f);
        const std::string freq = " --max-frequency " + std::to_string(f);
        const CommandResult r = run_ardent("info s.json --json" + freq, dir.path());
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        const double h = j.at("h").get<double>();
        const auto& lg = j.at("listener_grid");
        const int every = lg.at("every").get<int>();
        EXPECT_EQ(every, std::max(1L, std::lround(asked / h)));
        EXPECT_NEAR(lg.at("spacing_m").get<double>(), every * h, 1e-12);
        EXPECT_LE(std::abs(lg.at("spacing_m").get<double>() - asked), 0.5 * h + 1e-9);
        EXPECT_NEAR(lg.at("requested_spacing_m").get<double>(), asked, 1e-6);
        // Each point stands for about spacing^3 of the 6 x 4 x 3 m room at every frequency.
        const auto points = j.at("listener_points").get<size_t>();
        if (f == 250.0) points_low = points;
        EXPECT_GT(points, 0u);
        EXPECT_LT(static_cast<double>(points), 4.0 * static_cast<double>(points_low) + 60);
        const CommandResult text = run_ardent("info s.json" + freq, dir.path());
        ASSERT_EQ(text.exit_code, 0) << text.err;
        EXPECT_NE(text.out.find("listener grid    " + std::to_string(points) + " points every " +
                                std::to_string(every) + " cells"),
                  std::string::npos)
            << text.out;
    }
}

// A surface the wave solvers' cells never meet absorbs nothing below the crossover. Thin parts
// hanging in the air are met since thin faces (FloatingCloudsShowBothFaces); what is left is a
// surface behind another material's nearer one: a felt core 1 cm thick inside a plaster skin
// 3 cm thick, 1.6 x 1.2 m, in a 6 x 4 x 3 m room at 500 Hz (0.264 m cells). `info` names the
// felt, its surface and the faces it kept; the plaster (walls and skin) keeps its own.
TEST(InfoCli, MaterialTheCellsNeverMeetIsReported) {
    ScratchDir dir;
    const std::string obj =
        hexahedron_obj(box_corners({0, 0, 0}, {6, 4, 3}), "wall", true) +
        hexahedron_obj(box_corners({2.0, 2.0, 0.9}, {3.6, 2.03, 2.1}), "skin", false, 8) +
        hexahedron_obj(box_corners({2.01, 2.01, 0.91}, {3.59, 2.02, 2.09}), "core", false, 16);
    dir.write("room.obj", obj);
    dir.write("s.json", R"({"format": "ardent-scene/1", "name": "hidden felt",
      "geometry": {"mesh": "room.obj", "up": "z"},
      "materials": {"plaster": {"absorption": 0.05}, "felt": {"absorption": 0.6}},
      "surfaces": {"core": "felt", "*": "plaster"},
      "sources": [{"name": "S1", "position": [1.5, 1.2, 1.4]}],
      "receivers": [{"name": "R1", "position": [4.2, 3.0, 1.6]}],
      "simulation": {"max_frequency": 500, "band": "wave"}})");
    const CommandResult text = run_ardent("info s.json", dir.path());
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("warning        felt: the wave solver's cell faces hold"),
              std::string::npos)
        << text.out;
    EXPECT_EQ(text.out.find("warning        plaster"), std::string::npos) << text.out;
    const CommandResult r = run_ardent("info s.json --json", dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& m : j["materials"]) {
        const double surface = m["surface_m2"], faces = m["wave_faces_m2"];
        std::printf("%s: surface %.2f m^2, wave faces %.2f m^2\n",
                    m["name"].get<std::string>().c_str(), surface, faces);
        if (m["name"] == "felt") {
            // Both sides, the edges: 2 (1.58 x 1.18) + 2 (1.58 + 1.18) 0.01 m^2.
            EXPECT_NEAR(surface, 2 * 1.58 * 1.18 + 2 * 2.76 * 0.01, 1e-6);
            EXPECT_LT(faces, 0.25 * surface);
        } else {
            // The room, and the skin's two sides (its edges, 0.17 m^2, fall between cells).
            EXPECT_NEAR(surface, 2 * (6 * 4 + 6 * 3 + 4 * 3) + 2 * 1.6 * 1.2 + 2 * 2.8 * 0.03,
                        1e-6);
            EXPECT_NEAR(faces / surface, 1, 0.05);
        }
    }
    // `simulate` says it too, before it runs.
    const CommandResult sim =
        run_ardent("simulate s.json -o out --duration 0.05 --quiet", dir.path());
    ASSERT_EQ(sim.exit_code, 0) << sim.err;
    EXPECT_NE(sim.err.find("ardent: warning: material \"felt\": the wave solver's cell faces hold"),
              std::string::npos)
        << sim.err;
}

// `ardent info --json` of a room mesh whose group `group` is felt (the rest plaster), one source at
// (0.5, 0.5, source_z) and one receiver in the room (fractions of `room`): the cell size and
// the felt's wave_faces_m2.
struct FeltFaces {
    double h = 0, faces = -1;
};
FeltFaces felt_wave_faces(const std::string& obj, const std::string& group, Vec3 room,
                          double source_z, double max_frequency) {
    ScratchDir dir;
    dir.write("room.obj", obj);
    char scene[900];
    std::snprintf(scene, sizeof scene, R"({"format": "ardent-scene/1", "name": "felt parts",
      "geometry": {"mesh": "room.obj", "up": "z"},
      "materials": {"plaster": {"absorption": 0.05}, "felt": {"absorption": 0.6}},
      "surfaces": {"%s": "felt", "*": "plaster"},
      "sources": [{"name": "S1", "position": [%.3f, %.3f, %.3f]}],
      "receivers": [{"name": "R1", "position": [%.3f, %.3f, %.3f]}],
      "simulation": {"max_frequency": %.0f, "band": "wave"}})",
                  group.c_str(), 0.5 * room.x, 0.5 * room.y, source_z * room.z, 0.4 * room.x,
                  0.6 * room.y, 0.45 * room.z, max_frequency);
    dir.write("s.json", scene);
    const CommandResult r = run_ardent("info s.json --json", dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    FeltFaces out;
    if (r.exit_code != 0) return out;
    const auto j = nlohmann::json::parse(r.out);
    out.h = j["h"];
    for (const auto& m : j["materials"])
        if (m["name"] == "felt") out.faces = m["wave_faces_m2"];
    return out;
}

// A panel thinner than a cell mounted on a wall shares its cells with the wall, whose surface is
// often nearer their centres: its faces went to the wall while a face took the material of the
// surface nearest the non-air cell's centre. A face now takes the surface its segment crosses
// nearest the air. Panels of seeded sizes and thicknesses on seeded walls of seeded rooms (the
// seed and the case are printed); the panels' fronts must come back as their faces.
TEST(InfoCli, PanelsMountedOnWallsKeepTheirFaces) {
    for (const unsigned seed : {301u, 302u, 303u}) {
        std::mt19937 rng(seed);
        auto uniform = [&rng](double lo, double hi) {
            return std::uniform_real_distribution<double>(lo, hi)(rng);
        };
        const Vec3 room{uniform(5, 8), uniform(4, 6), uniform(2.8, 4)};
        std::array<int, 6> walls{0, 1, 2, 3, 4, 5};  // axis * 2 + side
        std::shuffle(walls.begin(), walls.end(), rng);
        std::string obj = hexahedron_obj(box_corners({0, 0, 0}, room), "wall", true);
        double front = 0;
        std::string cases;
        for (int p = 0; p < 4; ++p) {
            const int axis = walls[static_cast<size_t>(p)] / 2,
                      side = walls[static_cast<size_t>(p)] % 2;
            const double thick = uniform(0.01, 0.08);
            Vec3 lo, hi;
            for (int a = 0; a < 3; ++a) {
                if (a == axis) {
                    lo[a] = side ? room[a] - thick : 0;
                    hi[a] = side ? room[a] : thick;
                } else {
                    const double size = uniform(1.2, std::min(2.2, room[a] - 1.0));
                    lo[a] = uniform(0.3, room[a] - 0.3 - size);
                    hi[a] = lo[a] + size;
                }
            }
            obj += hexahedron_obj(box_corners(lo, hi), "panel", false, 8 * (p + 1));
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            front += (hi[u] - lo[u]) * (hi[v] - lo[v]);
            char line[160];
            std::snprintf(line, sizeof line, " [axis %d side %d, %.2f x %.2f m, %.3f m thick]",
                          axis, side, hi[u] - lo[u], hi[v] - lo[v], thick);
            cases += line;
        }
        const auto [h, faces] = felt_wave_faces(obj, "panel", room, 0.5, 1000);
        std::printf(
            "seed %u: room %.2f x %.2f x %.2f m, h %.3f m;%s\n  panel fronts %.2f m^2, "
            "felt's wave faces %.2f m^2 (%.0f %%)\n",
            seed, room.x, room.y, room.z, h, cases.c_str(), front, faces, 100 * faces / front);
        EXPECT_NEAR(faces / front, 1, 0.2) << "seed " << seed;
    }
}

// A ceiling cloud thinner than a cell hangs in the air: both its faces meet the sound, so the wave
// solvers' cell faces hold both (air.h, ThinFace). Before thin faces, a cloud whose thickness held
// no cell centre had no face at all. Room, clouds and the grid's offset from seeds.
TEST(InfoCli, FloatingCloudsShowBothFaces) {
    for (const unsigned seed : {311u, 312u, 313u}) {
        std::mt19937 rng(seed);
        auto uniform = [&rng](double lo, double hi) {
            return std::uniform_real_distribution<double>(lo, hi)(rng);
        };
        const Vec3 room{uniform(5, 8), uniform(4, 6), uniform(3, 4)};
        std::string obj = hexahedron_obj(box_corners({0, 0, 0}, room), "wall", true);
        double both = 0;
        std::string cases;
        for (int c = 0; c < 3; ++c) {
            const double thick = uniform(0.005, 0.05), drop = uniform(0.15, 0.5);
            const double sx = uniform(1.0, 1.6), sy = uniform(1.0, 1.6);
            const Vec3 lo{0.3 + c * (room.x - 0.6) / 3 + uniform(0, 0.2),
                          uniform(0.3, room.y - 0.3 - sy), room.z - drop - thick};
            const Vec3 hi{lo.x + std::min(sx, (room.x - 0.6) / 3 - 0.25), lo.y + sy, room.z - drop};
            obj += hexahedron_obj(box_corners(lo, hi), "cloud", false, 8 * (c + 1));
            both += 2 * (hi.x - lo.x) * (hi.y - lo.y);
            char line[160];
            std::snprintf(line, sizeof line, " [%.2f x %.2f m, %.3f m thick, %.2f m down]",
                          hi.x - lo.x, hi.y - lo.y, thick, drop);
            cases += line;
        }
        const auto [h, faces] = felt_wave_faces(obj, "cloud", room, 0.4, uniform(700, 1300));
        std::printf(
            "seed %u: room %.2f x %.2f x %.2f m, h %.3f m;%s\n  both faces %.2f m^2, felt's "
            "wave faces %.2f m^2 (%.0f %%)\n",
            seed, room.x, room.y, room.z, h, cases.c_str(), both, faces, 100 * faces / both);
        EXPECT_NEAR(faces / both, 1, 0.2) << "seed " << seed;
    }
}

}  // namespace
}  // namespace ardent::test
