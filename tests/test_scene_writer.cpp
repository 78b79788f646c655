// Writing scenes back (scene_writer.h): every bundled scene survives load -> save -> load
// unchanged, the mesh path is kept relative where it can be, and a failed save writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/scene_writer.h"
#include "test_support.h"

namespace fs = std::filesystem;
using ardent::test::ScratchDir;
using ardent::test::source_dir;

namespace {

// Saving over an existing regular file, as the editor does on Save.
ardent::OutputRules replacing() {
    ardent::OutputRules rules;
    rules.replace = true;
    return rules;
}
const ardent::OutputRules kReplace = replacing();

std::string read_text(const fs::path& f) {
    std::ifstream in(f);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST(SceneWriter, EveryBundledSceneRoundTrips) {
    int n = 0;
    for (const auto& entry : fs::directory_iterator(source_dir() / "data" / "scenes")) {
        if (entry.path().extension() != ".json") continue;
        SCOPED_TRACE(entry.path().string());
        const ardent::Scene a = ardent::load_scene(entry.path());
        // Written next to the original: the mesh path comes out as the file has it.
        const std::string text = ardent::scene_text(a, entry.path());
        const ardent::Scene b = ardent::parse_scene(text, entry.path());
        EXPECT_TRUE(ardent::same_scene(a, b)) << text;
        EXPECT_EQ(a.geometry.mesh, b.geometry.mesh);
        // Writing the re-read scene gives the same text (a fixed point).
        EXPECT_EQ(text, ardent::scene_text(b, entry.path()));
        ++n;
    }
    EXPECT_GE(n, 8);
}

TEST(SceneWriter, SavedFileLoadsAndKeepsRelativeMeshPaths) {
    ScratchDir dir;
    const ardent::Scene a = ardent::load_scene(source_dir() / "data/scenes/lshape.json");
    // Four folders below the scratch directory, the model is more than two folders up.
    fs::create_directories(dir / "a" / "b" / "c");
    const fs::path out = dir / "a" / "b" / "c" / "copy.json";
    ardent::save_scene(a, out, kReplace);
    const ardent::Scene b = ardent::load_scene(out);
    EXPECT_TRUE(ardent::same_scene(a, b));
    EXPECT_EQ(fs::canonical(b.geometry.mesh), fs::canonical(a.geometry.mesh));
    EXPECT_NE(read_text(out).find(fs::absolute(a.geometry.mesh).lexically_normal().string()),
              std::string::npos);

    // Next to the model, the path is relative.
    const fs::path near = source_dir() / "data" / "scenes" / "editor-test-tmp.json";
    ardent::save_scene(a, near, kReplace);
    const std::string text = read_text(near);
    fs::remove(near);
    EXPECT_NE(text.find("\"../models/lshape.obj\""), std::string::npos) << text;
}

TEST(SceneWriter, KeepsSurfaceOrderBandsAndOptionalKeys) {
    ScratchDir dir;
    const fs::path f = dir.write("s.json", R"({
  "format": "ardent-scene/1",
  "geometry": {"box": [4, 3, 2.5]},
  "materials": {"b": {"absorption": {"125": 0.1, "250": 0.2, "500": 0.3, "1000": 0.4,
                                    "2000": 0.5, "4000": 0.6}},
                "a": {"absorption": 0.05}},
  "surfaces": {"wall_x*": "b", "floor": "a", "*": "b"},
  "sources": [{"name": "S", "position": [1, 1, 1]}],
  "receivers": [{"name": "R", "position": [2, 2, 1]}],
  "simulation": {"max_frequency": 400, "duration": 0.5, "points_per_wavelength": 3}
})");
    const ardent::Scene a = ardent::load_scene(f);
    const std::string text = ardent::scene_text(a, f);
    EXPECT_LT(text.find("wall_x*"), text.find("\"floor\""));
    EXPECT_LT(text.find("\"floor\""), text.find("\"*\""));
    EXPECT_NE(text.find("\"points_per_wavelength\": 3"), std::string::npos);
    EXPECT_NE(text.find("\"absorption\": 0.05"), std::string::npos);
    EXPECT_NE(text.find("\"4000\": 0.6"), std::string::npos);
    EXPECT_EQ(text.find("listener_grid"), std::string::npos);
    const ardent::Scene b = ardent::parse_scene(text, f);
    EXPECT_TRUE(ardent::same_scene(a, b));
    ASSERT_EQ(b.surfaces.size(), 3u);
    EXPECT_EQ(b.surfaces[0].pattern, "wall_x*");
}

TEST(SceneWriter, KeepsTheListenerGridAsGiven) {
    ScratchDir dir;
    for (const char* grid : {R"({"spacing_m": 0.75})", R"({"every": 6})"}) {
        const fs::path f = dir.write("g.json", std::string(R"({
  "format": "ardent-scene/1",
  "geometry": {"box": [4, 3, 2.5]},
  "materials": {"a": {"absorption": 0.05}},
  "surfaces": {"*": "a"},
  "sources": [{"name": "S", "position": [1, 1, 1]}],
  "listener_grid": )") + grid + "\n}\n");
        const ardent::Scene a = ardent::load_scene(f);
        const std::string text = ardent::scene_text(a, f);
        const ardent::Scene b = ardent::parse_scene(text, f);
        EXPECT_TRUE(ardent::same_scene(a, b)) << text;
        EXPECT_EQ(b.listener_grid_every, a.listener_grid_every);
        EXPECT_EQ(b.listener_grid_spacing_m, a.listener_grid_spacing_m);
        // Metres stay metres: written as cells, the spacing would change with max_frequency.
        EXPECT_EQ(text.find("spacing_m") != std::string::npos, a.listener_grid_spacing_m > 0)
            << text;
    }
}

TEST(SceneWriter, FailedSaveLeavesNothingAndNamesTheFile) {
    ScratchDir dir;
    const ardent::Scene a = ardent::load_scene(source_dir() / "data/scenes/shoebox.json");
    const fs::path target = dir / "missing-folder" / "scene.json";
    try {
        ardent::save_scene(a, target, kReplace);
        FAIL() << "expected an InputError";
    } catch (const ardent::InputError& e) {
        EXPECT_NE(std::string(e.what()).find(target.string()), std::string::npos) << e.what();
    }
    EXPECT_EQ(dir.listing(), "");
}

TEST(SceneWriter, SaveReplacesAnExistingFileWhole) {
    ScratchDir dir;
    const fs::path f = dir.write("scene.json", std::string(100000, ' '));
    const ardent::Scene a = ardent::load_scene(source_dir() / "data/scenes/shoebox.json");
    ardent::save_scene(a, f, kReplace);
    EXPECT_EQ(read_text(f), ardent::scene_text(a, f));
    EXPECT_EQ(dir.listing(), "scene.json\n");
}
