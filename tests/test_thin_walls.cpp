// Surfaces thinner than a cell with air on both sides (air.h, ThinFace), read from the files
// `ardent simulate` writes. A partition a few centimetres thick with a doorway beside it splits a
// room: sound from one side reaches a receiver on the other only through the doorway, so the
// receiver's IR stays silent until the shortest path around the partition's edge arrives. Before
// thin faces, a partition whose thickness held no cell centre let the direct sound through (the
// solvers saw air on both sides), and whether it did depended on where the grid's cells fell.
// Room, partition, thickness and positions come from seeds, printed with each case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ardent/auralize/audio_io.h"
#include "mesh_builders.h"
#include "signal_tools.h"
#include "test_support.h"

namespace ardent::test {
namespace {

struct Partitioned {
    Vec3 room;
    double x = 0, thick = 0, door = 0;  // the partition's -x face, thickness; doorway from y = door
    Vec3 source, receiver;
    double max_frequency = 0;
};

Partitioned draw(unsigned seed) {
    std::mt19937 rng(seed);
    auto uniform = [&rng](double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(rng);
    };
    Partitioned c;
    c.room = {uniform(4.5, 5.5), uniform(4.2, 4.8), uniform(2.4, 3.0)};
    c.x = uniform(2.0, 2.6);
    c.thick = uniform(0.005, 0.06);
    c.door = c.room.y - uniform(0.8, 1.0);
    const double y = uniform(0.4, 0.8), z = uniform(1.0, 1.5);
    c.source = {c.x - uniform(0.7, 1.0), y, z};
    c.receiver = {c.x + c.thick + uniform(0.7, 1.0), y + uniform(-0.2, 0.2), z};
    c.max_frequency = uniform(550, 700);
    return c;
}

// The room, and the partition from wall to wall and floor to ceiling but for its doorway.
std::string obj(const Partitioned& c, bool with_partition) {
    std::string o = hexahedron_obj(box_corners({0, 0, 0}, c.room), "wall", true);
    if (with_partition)
        o += hexahedron_obj(box_corners({c.x, 0, 0}, {c.x + c.thick, c.door, c.room.z}),
                            "partition", false, 8);
    return o;
}

// The receiver's IR (WAV), its sample rate and the scene's thin faces (result.json).
struct Result {
    std::vector<double> ir;
    double fs = 0;
    size_t thin_faces = 0;
};

Result simulate(const Partitioned& c, const std::string& solver, bool with_partition,
                const ScratchDir& dir) {
    const std::string tag = solver + (with_partition ? "-wall" : "-open");
    dir.write(tag + ".obj", obj(c, with_partition));
    char scene[1200];
    std::snprintf(scene, sizeof scene, R"({"format": "ardent-scene/1", "name": "%s",
      "geometry": {"mesh": "%s.obj", "up": "z"},
      "materials": {"plaster": {"absorption": 0.1}},
      "surfaces": {"*": "plaster"},
      "sources": [{"name": "S", "position": [%.4f, %.4f, %.4f]}],
      "receivers": [{"name": "R", "position": [%.4f, %.4f, %.4f]}],
      "simulation": {"solver": "%s", "max_frequency": %.1f, "duration": 0.03, "band": "wave"}})",
                  tag.c_str(), tag.c_str(), c.source.x, c.source.y, c.source.z, c.receiver.x,
                  c.receiver.y, c.receiver.z, solver.c_str(), c.max_frequency);
    const auto file = dir.write(tag + ".json", scene);
    const CommandResult r = run_ardent(
        "simulate " + file.string() + " -o " + (dir / tag).string() + " --threads 1", dir.path());
    Result out;
    if (r.exit_code != 0) {
        ADD_FAILURE() << tag << ": ardent simulate failed: " << r.err;
        return out;
    }
    const auto result = nlohmann::json::parse(std::ifstream(dir / tag / "result.json"));
    out.thin_faces = result["statistics"]["mesh"]["thin_faces"].get<size_t>();
    const auto wav = audio::read_audio(dir / tag / "ir" / "S_R.wav");
    out.fs = wav.sample_rate;
    // In the band: a closed room's response to a source that injects air also rises at 0 Hz.
    out.ir = bandpass(std::vector<double>(wav.samples.begin(), wav.samples.end()), out.fs,
                      0.3 * c.max_frequency, 0.8 * c.max_frequency, 0.5);
    return out;
}

double energy_before(const std::vector<double>& ir, double fs, double t) {
    double e = 0;
    for (size_t n = 0; n < ir.size() && static_cast<double>(n) < t * fs; ++n)
        e += ir[n] * ir[n];
    return e;
}

void check_blocks_direct_sound(const std::string& solver, unsigned seed) {
    const Partitioned c = draw(seed);
    ScratchDir dir;
    const Result open = simulate(c, solver, false, dir);
    const Result wall = simulate(c, solver, true, dir);
    ASSERT_FALSE(open.ir.empty());
    ASSERT_FALSE(wall.ir.empty());
    // The shortest way around: over the doorway's edge (x in [c.x, c.x + thick], y = door).
    const double c0 = 343;
    const double around = std::hypot(c.x - c.source.x, c.door - c.source.y) + c.thick +
                          std::hypot(c.receiver.x - c.x - c.thick, c.door - c.receiver.y);
    const double direct = norm(c.receiver - c.source);
    // The excitation's pulse is band-limited: leave it two periods of the band's top.
    const double until = around / c0 - 2 / c.max_frequency;
    ASSERT_GT(until, direct / c0 + 2 / c.max_frequency) << "seed " << seed << ": case too short";
    const double e_open = energy_before(open.ir, open.fs, until);
    const double e_wall = energy_before(wall.ir, wall.fs, until);
    const double db = 10 * std::log10(e_wall / e_open);
    std::printf(
        "%s seed %u: room %.2f x %.2f x %.2f m, partition at x %.3f m, %.3f m thick, doorway "
        "from y %.2f m; %.0f Hz; source (%.2f, %.2f, %.2f), receiver (%.2f, %.2f, %.2f); "
        "direct %.2f m, around %.2f m; %zu thin faces; energy before %.1f ms with the partition "
        "over without: %.1f dB\n",
        solver.c_str(), seed, c.room.x, c.room.y, c.room.z, c.x, c.thick, c.door, c.max_frequency,
        c.source.x, c.source.y, c.source.z, c.receiver.x, c.receiver.y, c.receiver.z, direct,
        around, wall.thin_faces, 1e3 * until, db);
    EXPECT_LT(db, -20) << solver << " seed " << seed;
}

TEST(ThinWalls, FdtdPartitionBlocksTheDirectSound) {
    for (const unsigned seed : {321u, 322u, 323u, 324u})
        check_blocks_direct_sound("fdtd", seed);
}

TEST(ThinWalls, ArdPartitionBlocksTheDirectSound) {
    for (const unsigned seed : {325u, 326u, 327u, 328u})
        check_blocks_direct_sound("ard", seed);
}

// A thin face absorbs as its material does, on both sides: a felt cloud 4-12 mm thick hanging
// below the ceiling of a plaster room must shorten the decay as the same cloud made 10 cm thick
// does (a solid the cells hold), and far below the bare room's. Mean T20 over four receivers in
// the 250 Hz octave from result.json (FDTD, 500 Hz). Before thin faces the thin cloud was not in
// the grid and the room decayed as if it were bare. Room and cloud from seeds.
double mean_t20_250(const std::string& tag, const std::string& obj, Vec3 room,
                    const ScratchDir& dir) {
    dir.write(tag + ".obj", obj);
    char scene[1400];
    std::snprintf(scene, sizeof scene, R"({"format": "ardent-scene/1", "name": "%s",
      "geometry": {"mesh": "%s.obj", "up": "z"},
      "materials": {"plaster": {"absorption": 0.1}, "felt": {"absorption": 0.8}},
      "surfaces": {"cloud": "felt", "*": "plaster"},
      "sources": [{"name": "S", "position": [%.3f, %.3f, 1.2]}],
      "receivers": [{"name": "R1", "position": [%.3f, %.3f, 1.3]},
                    {"name": "R2", "position": [%.3f, %.3f, 1.5]},
                    {"name": "R3", "position": [%.3f, %.3f, 1.1]},
                    {"name": "R4", "position": [%.3f, %.3f, 1.6]}],
      "air": {"absorption": false},
      "simulation": {"solver": "fdtd", "max_frequency": 500, "duration": 1.2, "band": "wave"}})",
                  tag.c_str(), tag.c_str(), 0.3 * room.x, 0.35 * room.y, 0.7 * room.x, 0.3 * room.y,
                  0.75 * room.x, 0.7 * room.y, 0.25 * room.x, 0.75 * room.y, 0.5 * room.x,
                  0.55 * room.y);
    const auto file = dir.write(tag + ".json", scene);
    const CommandResult r = run_ardent(
        "simulate " + file.string() + " -o " + (dir / tag).string() + " --threads 1", dir.path());
    EXPECT_EQ(r.exit_code, 0) << tag << ": " << r.err;
    if (r.exit_code != 0) return 0;
    const auto result = nlohmann::json::parse(std::ifstream(dir / tag / "result.json"));
    double sum = 0;
    int n = 0;
    for (const auto& a : result["acoustics"])
        for (const auto& b : a["iso3382"]["bands"])
            if (b["centre_hz"].get<double>() == 250 && b["t20_reliable"].get<bool>()) {
                sum += b["t20_s"].get<double>();
                ++n;
            }
    EXPECT_EQ(n, 4) << tag << ": receivers with a reliable 250 Hz T20";
    return n > 0 ? sum / n : 0;
}

TEST(ThinWalls, ThinAbsorbingCloudDecaysLikeAThickOne) {
    for (const unsigned seed : {341u, 342u}) {
        std::mt19937 rng(seed);
        auto uniform = [&rng](double lo, double hi) {
            return std::uniform_real_distribution<double>(lo, hi)(rng);
        };
        const Vec3 room{uniform(4.5, 5.5), uniform(3.8, 4.4), uniform(2.8, 3.2)};
        const double thin = uniform(0.004, 0.012), drop = uniform(0.4, 0.6);
        const Vec3 lo{uniform(1.0, 1.5), uniform(0.8, 1.2), room.z - drop};
        const Vec3 size{uniform(2.2, 2.8), uniform(2.0, 2.4), 0};
        const std::string walls = hexahedron_obj(box_corners({0, 0, 0}, room), "wall", true);
        const auto cloud = [&](double thick) {
            return walls + hexahedron_obj(box_corners({lo.x, lo.y, lo.z - thick},
                                                      {lo.x + size.x, lo.y + size.y, lo.z}),
                                          "cloud", false, 8);
        };
        ScratchDir dir;
        const double bare = mean_t20_250("bare", walls, room, dir);
        const double t_thin = mean_t20_250("thin", cloud(thin), room, dir);
        const double t_thick = mean_t20_250("thick", cloud(0.1), room, dir);
        std::printf(
            "seed %u: room %.2f x %.2f x %.2f m, felt cloud %.2f x %.2f m, %.1f mm or "
            "100 mm thick, %.2f m below the ceiling; mean T20 at 250 Hz: bare %.3f s, "
            "thin cloud %.3f s, thick cloud %.3f s (thin / thick %.3f)\n",
            seed, room.x, room.y, room.z, size.x, size.y, 1e3 * thin, drop, bare, t_thin, t_thick,
            t_thin / t_thick);
        EXPECT_NEAR(t_thin / t_thick, 1, 0.15) << "seed " << seed;
        EXPECT_LT(t_thin, 0.75 * bare) << "seed " << seed;
    }
}

}  // namespace
}  // namespace ardent::test
