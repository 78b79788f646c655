// ardent::parse_scene / load_scene on valid files: defaults, materials, surfaces order, paths, and
// the nearest-word suggestion used in messages.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/scene_writer.h"
#include "ardent/preprocess/wall_admittance.h"
#include "test_support.h"

namespace ardent {
namespace {

namespace fs = std::filesystem;
using test::ScratchDir;

// The smallest valid scene; `extra` adds top-level keys (with a leading comma).
std::string minimal_scene(const std::string& extra = "") {
    return R"({
  "format": "ardent-scene/1",
  "geometry": {"box": [5, 4, 3]},
  "materials": {"plaster": {"absorption": 0.1}},
  "surfaces": {"*": "plaster"},
  "sources": [{"name": "S1", "position": [1, 1, 1]}])" +
           extra + "\n}\n";
}

TEST(SceneParser, Defaults) {
    const Scene s = parse_scene(minimal_scene(), "room.json");
    EXPECT_EQ(s.simulation.solver, "ard");
    EXPECT_EQ(s.simulation.device, "auto");
    EXPECT_DOUBLE_EQ(s.simulation.speed_of_sound, 343.0);
    EXPECT_DOUBLE_EQ(s.simulation.max_frequency, 1000.0);
    EXPECT_DOUBLE_EQ(s.simulation.duration, 1.0);
    EXPECT_FALSE(s.simulation.points_per_wavelength.has_value());
    EXPECT_DOUBLE_EQ(s.simulation.effective_points_per_wavelength(), 2.6);
    EXPECT_EQ(s.output_sample_rate, 48000);
    EXPECT_EQ(s.listener_grid_every, 0);
    EXPECT_TRUE(s.receivers.empty());
    EXPECT_DOUBLE_EQ(s.geometry.scale, 1.0);
    EXPECT_EQ(s.geometry.up, 'z');
    EXPECT_EQ(s.geometry.up_axis(), 2);
    // Without "name" the scene is named after its file.
    EXPECT_EQ(s.name, "room");
    EXPECT_EQ(s.file, fs::path("room.json"));
    EXPECT_EQ(s.display_name(), "room.json");
    ASSERT_TRUE(s.geometry.box.has_value());
    EXPECT_EQ(*s.geometry.box, (Vec3{5, 4, 3}));
    EXPECT_TRUE(s.geometry.mesh.empty());
}

TEST(SceneParser, PointsPerWavelengthDefaultDependsOnTheSolver) {
    const Scene fdtd =
        parse_scene(minimal_scene(R"(, "simulation": {"solver": "fdtd"})"), "a.json");
    EXPECT_EQ(fdtd.simulation.solver, "fdtd");
    EXPECT_DOUBLE_EQ(fdtd.simulation.effective_points_per_wavelength(), 10.0);
    EXPECT_DOUBLE_EQ(fdtd.simulation.cell_size(), 343.0 / (10.0 * 1000.0));

    const Scene ard =
        parse_scene(minimal_scene(R"(, "simulation": {"max_frequency": 500})"), "a.json");
    EXPECT_DOUBLE_EQ(ard.simulation.cell_size(), 343.0 / (2.6 * 500.0));

    // An explicit value wins for either solver.
    const Scene explicit_ppw = parse_scene(
        minimal_scene(R"(, "simulation": {"solver": "fdtd", "points_per_wavelength": 4})"),
        "a.json");
    EXPECT_DOUBLE_EQ(explicit_ppw.simulation.effective_points_per_wavelength(), 4.0);
    // Exactly 2 (the Nyquist limit) is allowed.
    const Scene two =
        parse_scene(minimal_scene(R"(, "simulation": {"points_per_wavelength": 2})"), "a.json");
    EXPECT_DOUBLE_EQ(two.simulation.effective_points_per_wavelength(), 2.0);
}

TEST(SceneParser, EverySettingIsRead) {
    const Scene s = parse_scene(minimal_scene(R"(,
  "name": "Hall",
  "receivers": [{"name": "R1", "position": [2, 2, 1.5]}, {"name": "R-2.b", "position": [3, 1, 1]}],
  "listener_grid": {"every": 8},
  "simulation": {"solver": "fdtd", "device": "cpu", "max_frequency": 2000, "duration": 2.5,
                 "points_per_wavelength": 12, "speed_of_sound": 340},
  "output": {"sample_rate": 96000})"),
                                "hall.json");
    EXPECT_EQ(s.name, "Hall");
    ASSERT_EQ(s.receivers.size(), 2u);
    EXPECT_EQ(s.receivers[1].name, "R-2.b");
    EXPECT_EQ(s.receivers[0].position, (Vec3{2, 2, 1.5}));
    EXPECT_EQ(s.listener_grid_every, 8);
    EXPECT_EQ(s.simulation.solver, "fdtd");
    EXPECT_EQ(s.simulation.device, "cpu");
    EXPECT_DOUBLE_EQ(s.simulation.max_frequency, 2000);
    EXPECT_DOUBLE_EQ(s.simulation.duration, 2.5);
    EXPECT_DOUBLE_EQ(s.simulation.effective_points_per_wavelength(), 12);
    EXPECT_DOUBLE_EQ(s.simulation.speed_of_sound, 340);
    EXPECT_EQ(s.output_sample_rate, 96000);
    ASSERT_EQ(s.sources.size(), 1u);
    EXPECT_EQ(s.sources[0].name, "S1");
    EXPECT_EQ(s.sources[0].position, (Vec3{1, 1, 1}));
}

// A grid in metres keeps its spacing as max_frequency changes: the step is the nearest whole
// number of cells (at least 1), so the spacing used is within half a cell of the one asked.
TEST(SceneParser, ListenerGridSpacingInMetresKeepsItsSpacing) {
    const unsigned seed = 20261130;
    std::printf("[ case ] seed %u\n", seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> spacing(0.05, 3.0), frequency(100, 4000);
    for (int trial = 0; trial < 20; ++trial) {
        const double asked = spacing(rng), f = frequency(rng);
        char extra[160];
        std::snprintf(
            extra, sizeof extra,
            R"(, "listener_grid": {"spacing_m": %.17g}, "simulation": {"max_frequency": %.17g})",
            asked, f);
        const Scene s = parse_scene(minimal_scene(extra), "g.json");
        SCOPED_TRACE(extra);
        EXPECT_EQ(s.listener_grid_every, 0);
        EXPECT_DOUBLE_EQ(s.listener_grid_spacing_m, asked);
        const double h = s.simulation.cell_size();
        const int cells = s.listener_grid_cells();
        EXPECT_EQ(cells, std::max(1, static_cast<int>(std::lround(asked / h))));
        if (asked >= h) {
            EXPECT_LE(std::abs(cells * h - asked), 0.5 * h + 1e-12);
        }
    }
    // Cells as before: the step whatever the cell size, and no grid without the key.
    EXPECT_EQ(parse_scene(minimal_scene(R"(, "listener_grid": {"every": 5})"), "a.json")
                  .listener_grid_cells(),
              5);
    EXPECT_EQ(parse_scene(minimal_scene(), "a.json").listener_grid_cells(), 0);
    // Smaller than a cell: every cell.
    EXPECT_EQ(parse_scene(minimal_scene(R"(, "listener_grid": {"spacing_m": 0.001})"), "a.json")
                  .listener_grid_cells(),
              1);
}

TEST(SceneParser, ListenerGridSpacingRejectsBadValues) {
    const auto message = [](const std::string& grid) {
        try {
            parse_scene(minimal_scene(R"(, "listener_grid": )" + grid), "g.json");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    for (const char* bad : {R"({"spacing_m": 0})", R"({"spacing_m": -0.5})",
                            R"({"spacing_m": "1"})", R"({"spacing_m": 1e9})"}) {
        const std::string m = message(bad);
        EXPECT_NE(m.find("g.json: listener_grid.spacing_m:"), std::string::npos)
            << bad << ": " << m;
    }
    const std::string both = message(R"({"spacing_m": 0.5, "every": 4})");
    EXPECT_NE(both.find("g.json: listener_grid.spacing_m:"), std::string::npos) << both;
    EXPECT_NE(both.find("not both"), std::string::npos) << both;
    EXPECT_NE(message(R"({"spacing": 0.5})").find("did you mean \"spacing_m\""), std::string::npos);
}

TEST(SceneParser, SingleAndPerBandAbsorption) {
    const Scene s = parse_scene(R"({
  "format": "ardent-scene/1",
  "geometry": {"box": [5, 4, 3]},
  "materials": {
    "plaster": {"absorption": 0.05},
    "carpet": {"absorption": {"125": 0.02, "250": 0.06, "500": 0.14, "1000": 0.37,
                              "2000": 0.60, "4000": 0.65}},
    "mirror": {"absorption": 0}
  },
  "surfaces": {"*": "plaster"},
  "sources": [{"name": "S1", "position": [1, 1, 1]}]
})",
                                "m.json");
    ASSERT_EQ(s.materials.size(), 3u);
    // Materials keep the file's order.
    EXPECT_EQ(s.materials[0].name, "plaster");
    EXPECT_EQ(s.materials[1].name, "carpet");
    EXPECT_EQ(s.materials[2].name, "mirror");
    EXPECT_FALSE(s.materials[0].per_band);
    for (double hz : {31.5, 125.0, 1000.0, 16000.0})
        EXPECT_DOUBLE_EQ(s.materials[0].absorption_at(hz), 0.05);
    EXPECT_DOUBLE_EQ(s.materials[0].mean_absorption(), 0.05);
    EXPECT_TRUE(s.materials[1].per_band);
    const std::array<double, 6> carpet = {0.02, 0.06, 0.14, 0.37, 0.60, 0.65};
    for (size_t b = 0; b < carpet.size(); ++b)
        EXPECT_DOUBLE_EQ(s.materials[1].absorption_at(kOctaveBandsHz[b]), carpet[b])
            << kOctaveBandsHz[b] << " Hz";
    // Between bands: linear in log frequency; beyond the ends: the end bands' values.
    EXPECT_NEAR(s.materials[1].absorption_at(std::sqrt(125.0 * 250.0)), 0.04, 1e-12);
    EXPECT_DOUBLE_EQ(s.materials[1].absorption_at(63), 0.02);
    EXPECT_DOUBLE_EQ(s.materials[1].absorption_at(8000), 0.65);
    EXPECT_NEAR(s.materials[1].mean_absorption(), (0.02 + 0.06 + 0.14 + 0.37 + 0.60 + 0.65) / 6,
                1e-12);
    EXPECT_DOUBLE_EQ(s.materials[2].absorption_at(1000), 0.0);
    EXPECT_EQ(s.material_index("carpet"), 1);
    EXPECT_EQ(s.material_index("velvet"), -1);
}

TEST(SceneParser, SurfacesKeepTheFileOrder) {
    // Deliberately not alphabetical: "*" first would make every later rule dead, so the order
    // of the file must survive parsing.
    const Scene s = parse_scene(R"({
  "format": "ardent-scene/1",
  "geometry": {"box": [5, 4, 3]},
  "materials": {"a": {"absorption": 0.1}, "b": {"absorption": 0.2}, "c": {"absorption": 0.3}},
  "surfaces": {"Wall*": "c", "Floor": "b", "Ceil?ng": "a", "*": "b", "Z": "a"},
  "sources": [{"name": "S1", "position": [1, 1, 1]}]
})",
                                "o.json");
    ASSERT_EQ(s.surfaces.size(), 5u);
    const std::vector<std::pair<std::string, std::string>> expected = {
        {"Wall*", "c"}, {"Floor", "b"}, {"Ceil?ng", "a"}, {"*", "b"}, {"Z", "a"}};
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(s.surfaces[i].pattern, expected[i].first) << i;
        EXPECT_EQ(s.surfaces[i].material, expected[i].second) << i;
    }
}

TEST(SceneParser, RelativeMeshPathIsResolvedAgainstTheSceneFolder) {
    ScratchDir dir;
    const fs::path file = dir.write("scenes/hall/scene.json", R"({
  "format": "ardent-scene/1",
  "geometry": {"mesh": "../models/./hall.obj", "scale": 0.01, "up": "y"},
  "materials": {"plaster": {"absorption": 0.1}},
  "surfaces": {"*": "plaster"},
  "sources": [{"name": "S1", "position": [1, 1, 1]}]
})");
    const Scene s = load_scene(file);
    EXPECT_EQ(s.geometry.mesh, (dir.path() / "scenes" / "models" / "hall.obj").lexically_normal());
    EXPECT_TRUE(s.geometry.mesh.is_absolute());
    EXPECT_FALSE(s.geometry.box.has_value());
    EXPECT_DOUBLE_EQ(s.geometry.scale, 0.01);
    EXPECT_EQ(s.geometry.up, 'y');
    EXPECT_EQ(s.geometry.up_axis(), 1);
    EXPECT_EQ(s.file, file);
    EXPECT_EQ(s.name, "scene");
}

TEST(SceneParser, RelativeSceneFileFromTheWorkingDirectory) {
    ScratchDir dir;
    dir.write("sub/s.json", minimal_scene());
    const fs::path old = fs::current_path();
    fs::current_path(dir.path());
    const fs::path cwd = fs::current_path();
    const std::string text = R"({
  "format": "ardent-scene/1",
  "geometry": {"mesh": "room.obj"},
  "materials": {"plaster": {"absorption": 0.1}},
  "surfaces": {"*": "plaster"},
  "sources": [{"name": "S1", "position": [1, 1, 1]}]
})";
    const Scene s = parse_scene(text, "sub/s.json");
    // In-memory text with no file anchors at the working directory.
    const Scene mem = parse_scene(text, "");
    fs::current_path(old);
    EXPECT_EQ(s.geometry.mesh, (cwd / "sub" / "room.obj").lexically_normal());
    EXPECT_EQ(mem.geometry.mesh, (cwd / "room.obj").lexically_normal());
    EXPECT_EQ(mem.display_name(), "<memory>");
}

TEST(SceneParser, AbsoluteMeshPathIsKept) {
    ScratchDir dir;
    const fs::path mesh = dir.path() / "elsewhere" / "room.obj";
    const fs::path file = dir.write("s.json", R"({
  "format": "ardent-scene/1",
  "geometry": {"mesh": ")" + mesh.string() + R"("},
  "materials": {"plaster": {"absorption": 0.1}},
  "surfaces": {"*": "plaster"},
  "sources": [{"name": "S1", "position": [1, 1, 1]}]
})");
    EXPECT_EQ(load_scene(file).geometry.mesh, mesh);
}

TEST(SceneParser, LoadSceneMatchesParseScene) {
    ScratchDir dir;
    const fs::path file = dir.write("box.json", test::box_scene_json());
    const Scene a = load_scene(file);
    const Scene b = parse_scene(test::box_scene_json(), file);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.name, "test box");
    EXPECT_EQ(a.sources.size(), b.sources.size());
    EXPECT_EQ(a.receivers[0].position, b.receivers[0].position);
    EXPECT_DOUBLE_EQ(a.simulation.max_frequency, 500);
}

// Lab data is read as the random-incidence absorption of the locally reacting wall it describes:
// normal-incidence alpha_n as the resistive wall of that alpha_n, an impedance z (normalised,
// e^{+j omega t}) as the wall of admittance 1 / z. Saving writes back what was given.
TEST(SceneParser, LabDataBecomesRandomIncidenceAbsorption) {
    std::string text = minimal_scene();
    const std::string plaster = R"({"plaster": {"absorption": 0.1}})";
    text.replace(text.find(plaster), plaster.size(), R"({
        "plaster": {"absorption": 0.1},
        "foam": {"normal_absorption": {"250": 0.3, "1000": 0.8}},
        "panel": {"impedance": {"125": [2.5, -6], "500": [4, 1.5]}},
        "flat": {"impedance": [1.5, 0]}})");
    const Scene s = parse_scene(text, "a.json");
    const Material& foam = s.materials[static_cast<size_t>(s.material_index("foam"))];
    ASSERT_TRUE(foam.lab.has_value());
    ASSERT_EQ(foam.absorption.size(), 2u);
    for (const auto& [i, alpha_n] : {std::pair{0, 0.3}, std::pair{1, 0.8}}) {
        // By hand: |R| = sqrt(1 - alpha_n), beta = (1 - |R|) / (1 + |R|), Paris' integral.
        const double r = std::sqrt(1 - alpha_n);
        const double beta = (1 - r) / (1 + r);
        EXPECT_NEAR(normal_absorption(beta), alpha_n, 1e-12);
        EXPECT_NEAR(foam.absorption[static_cast<size_t>(i)].alpha, paris_absorption(beta), 1e-12);
    }
    // A resistive wall of normal-incidence 0.3 absorbs 0.453 in a diffuse field (by quadrature).
    EXPECT_NEAR(foam.absorption[0].alpha, 0.4526, 2e-4);
    const Material& panel = s.materials[static_cast<size_t>(s.material_index("panel"))];
    EXPECT_EQ(panel.absorption[0].hz, 125);
    EXPECT_NEAR(panel.absorption[0].alpha, paris_absorption(1.0 / std::complex<double>(2.5, -6)),
                1e-12);
    EXPECT_NEAR(panel.absorption[1].alpha, paris_absorption(1.0 / std::complex<double>(4, 1.5)),
                1e-12);
    const Material& flat = s.materials[static_cast<size_t>(s.material_index("flat"))];
    EXPECT_FALSE(flat.per_band);
    EXPECT_NEAR(flat.absorption[0].alpha, paris_absorption(1 / 1.5), 1e-12);

    // Saved and read again: the same lab data, the same absorption.
    const std::string saved = scene_json(s, "a.json").dump();
    EXPECT_NE(saved.find("\"impedance\""), std::string::npos) << saved;
    EXPECT_NE(saved.find("\"normal_absorption\""), std::string::npos) << saved;
    const Scene back = parse_scene(saved, "a.json");
    for (const Material& m : s.materials) {
        const Material& b = back.materials[static_cast<size_t>(back.material_index(m.name))];
        EXPECT_EQ(b.lab, m.lab) << m.name;
        EXPECT_EQ(b.absorption, m.absorption) << m.name;
    }
    // Editing the absorption drops the lab data.
    Material edited = panel;
    edited.set_uniform(0.2);
    EXPECT_FALSE(edited.lab.has_value());
}

TEST(SceneParser, PartitionSides) {
    EXPECT_EQ(parse_scene(minimal_scene(""), "a.json").simulation.partition_sides, "smooth");
    EXPECT_EQ(parse_scene(minimal_scene(R"(, "simulation": {"partition_sides": "power_of_two"})"),
                          "a.json")
                  .simulation.partition_sides,
              "power_of_two");
    try {
        parse_scene(minimal_scene(R"(, "simulation": {"partition_sides": "prime"})"), "scene.json");
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("scene.json: simulation.partition_sides: ", 0), 0u) << what;
        EXPECT_NE(what.find("power_of_two"), std::string::npos) << what;
    }
}

TEST(SceneParser, ErrorsAreInputErrorsNamingTheFileAndKey) {
    try {
        parse_scene(minimal_scene(R"(, "simulation": {"max_frequency": -5})"), "scene.json");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "scene.json: simulation.max_frequency: expected a positive number, got -5");
    }
    try {
        parse_scene(minimal_scene(R"(,
  "simulation": {"max_frequency": 500,})"),
                    "scene.json");
        FAIL() << "no error";
    } catch (const InputError& e) {
        // Line 7 is `  "simulation": {"max_frequency": 500,}`; the '}' is in column 39.
        EXPECT_EQ(std::string(e.what()).rfind("scene.json:7:39: JSON syntax error", 0), 0u)
            << e.what();
    }
    EXPECT_THROW(parse_scene("", "x.json"), InputError);
    EXPECT_THROW(parse_scene("{}", "x.json"), InputError);
    EXPECT_THROW(parse_scene("{\"format\": 1e400}", "x.json"), InputError);
    EXPECT_THROW(load_scene("/nonexistent/ardent/scene.json"), InputError);
}

TEST(SceneParser, ValidNamesAreAccepted) {
    const Scene s = parse_scene(minimal_scene(R"(,
  "receivers": [{"name": "a", "position": [1, 2, 1]}, {"name": "Mic_3-left.v2+x", "position": [2, 2, 1]},
                {"name": "0", "position": [3, 2, 1]}])"),
                                "n.json");
    ASSERT_EQ(s.receivers.size(), 3u);
    EXPECT_EQ(s.receivers[1].name, "Mic_3-left.v2+x");
}

TEST(NearestWord, SuggestsTheClosestCandidate) {
    const std::vector<std::string> keys = {
        "solver", "device", "max_frequency", "duration", "points_per_wavelength", "speed_of_sound"};
    EXPECT_EQ(nearest_word("max_frequncy", keys), "max_frequency");
    EXPECT_EQ(nearest_word("maxfrequency", keys), "max_frequency");
    EXPECT_EQ(nearest_word("durration", keys), "duration");
    EXPECT_EQ(nearest_word("solvr", keys), "solver");
    EXPECT_EQ(nearest_word("speed_of_sund", keys), "speed_of_sound");
    // Case is ignored.
    EXPECT_EQ(nearest_word("Device", keys), "device");
    EXPECT_EQ(nearest_word("MAX_FREQUENCY", keys), "max_frequency");
    // An exact match is its own nearest word.
    EXPECT_EQ(nearest_word("duration", keys), "duration");
}

TEST(NearestWord, SuggestsNothingWhenNothingIsClose) {
    const std::vector<std::string> keys = {"solver", "device", "max_frequency", "duration"};
    EXPECT_EQ(nearest_word("banana", keys), "");
    EXPECT_EQ(nearest_word("xyzzy_plugh_quux", keys), "");
    EXPECT_EQ(nearest_word("anything", {}), "");
    // Short words: up to two edits are still suggested.
    EXPECT_EQ(nearest_word("up", {"up", "box", "mesh"}), "up");
    EXPECT_EQ(nearest_word("bx", {"box", "mesh", "scale"}), "box");
}

TEST(NearestWord, PicksTheFirstOfEquallyNearCandidates) {
    EXPECT_EQ(nearest_word("cat", {"bat", "hat"}), "bat");
    EXPECT_EQ(nearest_word("cat", {"hat", "bat"}), "hat");
}

}  // namespace
}  // namespace ardent
