// Slanted walls: a surface voxelised at an angle is a staircase of cell faces with more area than
// the surface (|n_x| + |n_y| + |n_z| times), and each face's admittance is scaled back by the
// share the surface has (voxelize.h, staircase_area_weight; docs/materials.md, "Slanted walls").
// Checked on the weights themselves, on the face area a rotated room's boundary adds up to, and
// through the files `ardent simulate` writes: a room decays the same whichever way it is turned.
// Rooms and rotations are drawn from printed seeds.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/preprocess/air.h"
#include "ardent/preprocess/grid.h"
#include "ardent/preprocess/surface_map.h"
#include "ardent/preprocess/voxelize.h"
#include "mesh_builders.h"
#include "test_support.h"

namespace ardent::test {
namespace {

TEST(SlantedWalls, StaircaseWeightIsTheInverseOfTheNormalsL1Norm) {
    EXPECT_EQ(staircase_area_weight({0, 0, 1}), kFullArea);
    EXPECT_EQ(staircase_area_weight({-1, 0, 0}), kFullArea);
    const double s2 = 1 / std::sqrt(2.0), s3 = 1 / std::sqrt(3.0);
    EXPECT_EQ(staircase_area_weight({s2, -s2, 0}), 180);     // 255 / sqrt(2)
    EXPECT_EQ(staircase_area_weight({s3, s3, -s3}), 147);    // 255 / sqrt(3)
    EXPECT_EQ(staircase_area_weight({0, 0, 0}), kFullArea);  // a degenerate normal: flat
}

// A box's air/wall faces in cell-face units, raw and weighted by AirModel::face_area.
struct FaceArea {
    double raw = 0, weighted = 0;
};

FaceArea boundary_area(const AirModel& air) {
    const Grid& g = air.grid;
    const long sy = g.dims[0], sz = static_cast<long>(g.dims[0]) * g.dims[1];
    const long offsets[6] = {-1, 1, -sy, sy, -sz, sz};
    FaceArea a;
    for (size_t i = 0; i < g.count(); ++i) {
        if (!air.air[i]) continue;
        for (long off : offsets) {
            const auto nb = static_cast<size_t>(static_cast<long>(i) + off);
            if (air.air[nb]) continue;
            a.raw += g.h * g.h;
            a.weighted += air.face_area(i, nb) * g.h * g.h;
        }
    }
    return a;
}

TEST(SlantedWalls, RotatedBoxesWeightedFacesAddUpToTheirSurface) {
    for (std::uint32_t seed : {3u, 4u, 5u}) {
        std::mt19937 rng(seed);
        auto uniform = [&](double lo, double hi) {
            return std::uniform_real_distribution<double>(lo, hi)(rng);
        };
        const Vec3 size{uniform(3, 5), uniform(2.5, 4), uniform(2.2, 3.2)};
        const double rz = uniform(0.2, 1.3), rx = uniform(-0.6, 0.6), h = 0.1;
        char what[200];
        std::snprintf(what, sizeof what,
                      "seed %u: box %.2f x %.2f x %.2f m turned %.2f about z, %.2f about x", seed,
                      size.x, size.y, size.z, rz, rx);
        TriangleMesh m;
        add_box(m, {0, 0, 0}, size, "wall", true);
        rotate(m, size * 0.5, rz, rx);
        m.clean();
        const Scene s = simple_scene({size.x / 2, size.y / 2, size.z / 2}, 500);
        const AirModel air = build_air_model(s, m, map_surfaces(s, m), make_grid(m.bounds(), h, 2));
        const FaceArea a = boundary_area(air);
        const double surface = m.area();
        // The staircase has up to sqrt(3) times the surface; weighted, the faces give it back
        // (within the half cell by which the voxelised room differs from the mesh).
        EXPECT_GT(a.raw / surface, 1.1) << what;
        EXPECT_NEAR(a.weighted / surface, 1.0, 0.04) << what;
        std::printf("%s: faces %.1f m^2, weighted %.1f m^2, surface %.1f m^2\n", what, a.raw,
                    a.weighted, surface);
    }
}

// A room that is not a box (the eight corners of a 4.1 x 3.3 x 2.7 m box each moved up to
// 0.35 m, so no two walls are parallel and the field is near diffuse whichever way it is turned),
// one random-incidence absorption per octave on every wall, a source and 12 receivers inside,
// and a turn about the room's centre by `yaw` about z, then `pitch` about x.
struct SlantedRoom {
    std::uint32_t seed = 0;
    std::array<Vec3, 8> corners{};
    std::array<double, 4> alpha{};  // 125, 250, 500, 1000 Hz
    Vec3 source;
    std::vector<Vec3> receivers;
    double yaw = 0, pitch = 0;  // radians
};

SlantedRoom draw_slanted_room(std::uint32_t seed) {
    SlantedRoom r;
    r.seed = seed;
    std::mt19937 rng(seed);
    auto uniform = [&](double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng);
    };
    const Vec3 size{4.1, 3.3, 2.7};
    for (int i = 0; i < 8; ++i)
        r.corners[static_cast<size_t>(i)] = {(i & 4 ? size.x : 0) + uniform(-0.35, 0.35),
                                             (i & 2 ? size.y : 0) + uniform(-0.35, 0.35),
                                             (i & 1 ? size.z : 0) + uniform(-0.35, 0.35)};
    for (double& a : r.alpha)
        a = std::round(uniform(0.15, 0.3) * 100) / 100;
    // 0.7 m inside the unmoved box: at least 0.35 m from every wall of the moved one.
    auto inside = [&] {
        return Vec3{uniform(0.7, size.x - 0.7), uniform(0.7, size.y - 0.7),
                    uniform(0.7, size.z - 0.7)};
    };
    r.source = inside();
    while (r.receivers.size() < 12) {
        const Vec3 p = inside();
        if (norm(p - r.source) >= 1.0) r.receivers.push_back(p);
    }
    // Well away from the axes, where a turned wall's staircase is sparse.
    r.yaw = uniform(25, 65) * std::numbers::pi / 180;
    r.pitch = (rng() % 2 ? 1 : -1) * uniform(20, 40) * std::numbers::pi / 180;
    return r;
}

std::string describe(const SlantedRoom& r) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "seed %u: alpha 125-1000 Hz %.2f %.2f %.2f %.2f, turned %.1f deg about z and "
                  "%.1f deg about x, corners",
                  r.seed, r.alpha[0], r.alpha[1], r.alpha[2], r.alpha[3],
                  r.yaw * 180 / std::numbers::pi, r.pitch * 180 / std::numbers::pi);
    std::string out = buf;
    for (const Vec3& c : r.corners) {
        std::snprintf(buf, sizeof buf, " (%.2f, %.2f, %.2f)", c.x, c.y, c.z);
        out += buf;
    }
    return out;
}

// The room, turned or not, as an OBJ and a scene in `dir`; returns the scene's path.
std::filesystem::path write_slanted_room(const SlantedRoom& r, bool turned,
                                         const std::string& solver, double f_max,
                                         const ScratchDir& dir) {
    const Vec3 centre{2.05, 1.65, 1.35};
    auto place = [&](Vec3 p) {
        if (!turned) return p;
        TriangleMesh m;
        m.vertices.push_back(p);
        rotate(m, centre, r.yaw, r.pitch);
        return m.vertices[0];
    };
    std::array<Vec3, 8> corners;
    for (size_t i = 0; i < 8; ++i)
        corners[i] = place(r.corners[i]);
    const std::string tag = std::string(turned ? "turned" : "upright") + "-" + solver;
    dir.write(tag + ".obj", hexahedron_obj(corners, "wall", true));
    std::ostringstream s;
    s.precision(10);
    auto position = [&](Vec3 p) {
        const Vec3 q = place(p);
        std::ostringstream o;
        o.precision(10);
        o << "[" << q.x << ", " << q.y << ", " << q.z << "]";
        return o.str();
    };
    s << R"({"format": "ardent-scene/1", "name": "slanted room", "geometry": {"mesh": ")" << tag
      << R"(.obj", "up": "z"}, "materials": {"wall": {"absorption": {"125": )" << r.alpha[0]
      << R"(, "250": )" << r.alpha[1] << R"(, "500": )" << r.alpha[2] << R"(, "1000": )"
      << r.alpha[3] << R"(}}}, "surfaces": {"*": "wall"}, "sources": [{"name": "S", "position": )"
      << position(r.source) << R"(}], "receivers": [)";
    for (size_t i = 0; i < r.receivers.size(); ++i)
        s << (i ? ", " : "") << R"({"name": "R)" << i << R"(", "position": )"
          << position(r.receivers[i]) << "}";
    s << R"(], "air": {"absorption": false}, "simulation": {"band": "wave", "solver": ")" << solver
      << R"(", "device": "cpu", "max_frequency": )" << f_max
      << R"(, "duration": 0.8, "speed_of_sound": 343.0}})";
    return dir.write(tag + ".json", s.str());
}

// `ardent simulate` of the scene; per octave centre, T20 averaged over the receivers, read from
// the run's result.json.
std::map<double, double> mean_t20(const std::filesystem::path& scene, const ScratchDir& dir) {
    const std::filesystem::path out = dir / (scene.stem().string() + "-out");
    // One thread: the rooms are small, and ctest runs two tests at once on CI's two cores.
    const CommandResult run = run_ardent(
        "simulate " + scene.string() + " -o " + out.string() + " --threads 1", dir.path());
    EXPECT_EQ(run.exit_code, 0) << run.err;
    std::map<double, double> sum;
    std::map<double, int> count;
    if (run.exit_code != 0) return sum;
    const nlohmann::json result = nlohmann::json::parse(std::ifstream(out / "result.json"));
    for (const nlohmann::json& a : result["acoustics"])
        for (const nlohmann::json& b : a["iso3382"]["bands"])
            if (b["t20_reliable"].get<bool>()) {
                sum[b["centre_hz"].get<double>()] += b["t20_s"].get<double>();
                ++count[b["centre_hz"].get<double>()];
            }
    for (auto& [hz, t] : sum)
        t /= count[hz];
    return sum;
}

// The same room upright and turned: per octave from 125 Hz to `top` max_frequency, the mean T20
// within `bar` of the upright room's.
void expect_turned_room_decays_alike(std::uint32_t seed, const std::string& solver, double f_max,
                                     double top, double bar) {
    const SlantedRoom r = draw_slanted_room(seed);
    ScratchDir dir;
    const auto upright = mean_t20(write_slanted_room(r, false, solver, f_max, dir), dir);
    const auto turned = mean_t20(write_slanted_room(r, true, solver, f_max, dir), dir);
    int judged = 0;
    for (const auto& [hz, t] : upright) {
        if (hz < 125 || hz > top * f_max || !turned.count(hz)) continue;
        ++judged;
        const double ratio = turned.at(hz) / t;
        std::printf(
            "%s, %s at %.0f Hz: %.0f Hz octave T20 upright %.3f s, turned %.3f s (%+.1f %%)\n",
            describe(r).c_str(), solver.c_str(), f_max, hz, t, turned.at(hz), 100 * (ratio - 1));
        EXPECT_NEAR(ratio, 1.0, bar) << describe(r) << "; " << solver << ", " << hz << " Hz octave";
    }
    EXPECT_GE(judged, 2) << describe(r);
}

// FDTD's cells (3.4 cm at 1 kHz) make a fine staircase: up to 0.5 max_frequency within 6 %
// (measured within 4.1 % on other seeds; without the weights a turned room decayed 13-21 %
// faster).
TEST(SlantedWalls, FdtdTurnedRoomDecaysLikeTheUprightOne) {
    expect_turned_room_decays_alike(22u, "fdtd", 1000, 0.5, 0.06);
}

// ARD's (13 cm at 1 kHz) leave a turned room up to 11 % faster at 125 and 250 Hz on other seeds
// (docs/materials.md, "Slanted walls"); without the weights up to 31 %.
TEST(SlantedWalls, ArdTurnedRoomDecaysLikeTheUprightOne) {
    expect_turned_room_decays_alike(21u, "ard", 1000, 0.25, 0.15);
}

}  // namespace
}  // namespace ardent::test
