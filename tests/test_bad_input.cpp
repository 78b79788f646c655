// Bad input through the real `ardent` command line: every case must exit with 2 (or 3 for a lack of
// resources), say on stderr what is wrong and where (file, key path or object name), and write
// nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_support.h"

namespace ardent::test {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Builds OBJ text of axis-aligned boxes, one `o`/`usemtl` group per face, faces wound with
// normals pointing out of the box.
class ObjWriter {
  public:
    // Face order: floor (z0), ceiling (z1), y0, y1, x0, x1.
    static constexpr int kCeiling = 1;

    void box(std::array<double, 3> lo, std::array<double, 3> hi,
             const std::array<std::string, 6>& names, std::vector<int> skip = {}) {
        const double x0 = lo[0], y0 = lo[1], z0 = lo[2], x1 = hi[0], y1 = hi[1], z1 = hi[2];
        const std::array<std::array<double, 3>, 8> v = {{{x0, y0, z0},
                                                         {x1, y0, z0},
                                                         {x1, y1, z0},
                                                         {x0, y1, z0},
                                                         {x0, y0, z1},
                                                         {x1, y0, z1},
                                                         {x1, y1, z1},
                                                         {x0, y1, z1}}};
        const std::array<std::array<int, 4>, 6> faces = {
            {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}}};
        for (int f = 0; f < 6; ++f) {
            if (std::find(skip.begin(), skip.end(), f) != skip.end()) continue;
            text_ += "o " + names[f] + "\nusemtl " + names[f] + "\n";
            for (int k : faces[f]) {
                std::ostringstream line;
                line << "v " << v[k][0] << " " << v[k][1] << " " << v[k][2] << "\n";
                text_ += line.str();
            }
            text_ += "f " + std::to_string(n_ + 1) + " " + std::to_string(n_ + 2) + " " +
                     std::to_string(n_ + 3) + " " + std::to_string(n_ + 4) + "\n";
            n_ += 4;
        }
    }
    const std::string& text() const { return text_; }

  private:
    std::string text_;
    int n_ = 0;
};

const std::array<std::string, 6> kRoomNames = {"Floor", "Ceiling", "Walls",
                                               "Walls", "Walls",   "Walls"};

std::string room_obj() {
    ObjWriter w;
    w.box({0, 0, 0}, {6, 4, 3}, kRoomNames);
    return w.text();
}

// A scene as an ordered list of top-level keys and raw JSON values; tests replace or drop keys.
struct SceneText {
    std::vector<std::pair<std::string, std::string>> keys = {
        {"format", R"("ardent-scene/1")"},
        {"name", R"("bad input test")"},
        {"geometry", R"({"box": [6.0, 4.0, 3.0]})"},
        {"materials", R"({"plaster": {"absorption": 0.05}, "carpet": {"absorption": 0.3}})"},
        {"surfaces", R"({"floor": "carpet", "*": "plaster"})"},
        {"sources", R"([{"name": "S1", "position": [1.5, 1.2, 1.4]}])"},
        {"receivers", R"([{"name": "R1", "position": [4.2, 2.5, 1.6]}])"},
        {"simulation", R"({"max_frequency": 500})"},
    };
    SceneText& set(const std::string& key, const std::string& value) {
        for (auto& [k, v] : keys) {
            if (k == key) {
                v = value;
                return *this;
            }
        }
        keys.emplace_back(key, value);
        return *this;
    }
    SceneText& drop(const std::string& key) {
        std::erase_if(keys, [&](const auto& kv) { return kv.first == key; });
        return *this;
    }
    SceneText& mesh(const std::string& file, const std::string& surfaces = R"({"*": "plaster"})") {
        return set("geometry", R"({"mesh": ")" + file + R"("})").set("surfaces", surfaces);
    }
    std::string str() const {
        std::string s = "{\n";
        for (size_t i = 0; i < keys.size(); ++i)
            s += "  \"" + keys[i].first + "\": " + keys[i].second +
                 (i + 1 < keys.size() ? ",\n" : "\n");
        return s + "}\n";
    }
};

class BadInput : public ::testing::Test {
  protected:
    ScratchDir dir;
    int timeout_s = 0;  // > 0: kill a run that takes longer (a case that used to hang)

    // Runs `ardent ARGS` and checks the exit code, that stderr contains every one of `needles`,
    // and that the scratch directory is unchanged.
    CommandResult expect_rejected(const std::string& args, int code,
                                  std::initializer_list<std::string> needles) {
        SCOPED_TRACE("ardent " + args);
        const std::string before = dir.listing();
        CommandResult r = run_ardent(args, dir.path(), timeout_s);
        EXPECT_EQ(r.exit_code, code) << "stderr: " << r.err << "\nstdout: " << r.out;
        for (const std::string& n : needles)
            EXPECT_NE(r.err.find(n), std::string::npos)
                << "stderr lacks \"" << n << "\": " << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_EQ(dir.listing(), before) << "something was written";
        return r;
    }

    // Writes the scene as s.json and checks that both `info` and `voxelize -o out.png` reject it.
    void expect_scene_rejected(const std::string& scene_text, int code,
                               std::initializer_list<std::string> needles) {
        dir.write("s.json", scene_text);
        expect_rejected("info s.json", code, needles);
        expect_rejected("info s.json --json", code, needles);
        expect_rejected("voxelize s.json --slice z=1.2 -o out.png", code, needles);
        EXPECT_FALSE(fs::exists(dir / "out.png"));
    }
    void expect_scene_rejected(const SceneText& scene, int code,
                               std::initializer_list<std::string> needles) {
        expect_scene_rejected(scene.str(), code, needles);
    }
};

// --- sanity: the scenes used below are valid until broken on purpose --------------------------

TEST_F(BadInput, BaselineScenesAreAccepted) {
    dir.write("s.json", SceneText().str());
    auto r = run_ardent("info s.json", dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    dir.write("room.obj", room_obj());
    dir.write("m.json", SceneText().mesh("room.obj").str());
    r = run_ardent("info m.json", dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = run_ardent("voxelize m.json --slice z=1.2 -o out.png", dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "out.png"));
}

// --- JSON syntax ------------------------------------------------------------------------------

TEST_F(BadInput, MissingCommaReportsLineAndColumn) {
    const std::string text =
        "{\n"
        "  \"format\": \"ardent-scene/1\",\n"
        "  \"name\": \"x\"\n"
        "  \"geometry\": {\"box\": [6, 4, 3]}\n"
        "}\n";
    // The unexpected token is the quote opening "geometry": line 4, column 3.
    expect_scene_rejected(text, 2, {"s.json:4:3:", "JSON syntax error"});
}

TEST_F(BadInput, TrailingCommaReportsLineAndColumn) {
    SceneText s;
    s.set("simulation", R"({"max_frequency": 500,})");
    // Line 9 is `  "simulation": {"max_frequency": 500,}`; the '}' is at column 39.
    expect_scene_rejected(s, 2, {"s.json:9:39:", "JSON syntax error"});
}

TEST_F(BadInput, UnterminatedStringReportsItsLine) {
    expect_scene_rejected("{\n  \"format\": \"ardent-scene/1,\n  \"name\": 1\n}\n", 2,
                          {"s.json:2:", "JSON syntax error"});
}

TEST_F(BadInput, TrailingGarbageAfterTheObject) {
    expect_scene_rejected(SceneText().str() + "garbage\n", 2,
                          {"s.json:11:1:", "JSON syntax error"});
}

TEST_F(BadInput, NaNLiteral) {
    expect_scene_rejected(SceneText().set("simulation", R"({"max_frequency": NaN})"), 2,
                          {"s.json:9:35:", "NaN or Infinity"});
}

TEST_F(BadInput, InfinityLiterals) {
    expect_scene_rejected(SceneText().set("simulation", R"({"duration": Infinity})"), 2,
                          {"s.json:9:30:", "NaN or Infinity"});
    expect_scene_rejected(SceneText().set("simulation", R"({"duration": -Infinity})"), 2,
                          {"s.json:9:31:", "NaN or Infinity"});
}

TEST_F(BadInput, NumberThatOverflowsToInfinity) {
    expect_scene_rejected(SceneText().set("simulation", R"({"max_frequency": 1e999})"), 2,
                          {"s.json:9:35:", "1e999", "finite"});
}

// --- types and values -------------------------------------------------------------------------

TEST_F(BadInput, StringWhereANumberBelongs) {
    expect_scene_rejected(SceneText().set("simulation", R"({"max_frequency": "500"})"), 2,
                          {"s.json: simulation.max_frequency:", "expected a number", "\"500\""});
}

TEST_F(BadInput, NumberWhereAStringBelongs) {
    expect_scene_rejected(SceneText().set("name", "5"), 2,
                          {"s.json: name:", "expected a string", "5"});
    expect_scene_rejected(SceneText().set("simulation", R"({"solver": 3})"), 2,
                          {"s.json: simulation.solver:", "expected a string"});
}

TEST_F(BadInput, ObjectWhereAnArrayBelongs) {
    expect_scene_rejected(SceneText().set("sources", R"({"name": "S1"})"), 2,
                          {"s.json: sources:", "expected an array", "an object"});
    expect_scene_rejected(SceneText().set("sources", R"([{"name": "S1", "position": {"x": 1}}])"),
                          2, {"s.json: sources[0].position:", "expected [x, y, z]"});
}

TEST_F(BadInput, PositionWithTwoCoordinates) {
    expect_scene_rejected(SceneText().set("receivers", R"([{"name": "R1", "position": [1, 2]}])"),
                          2, {"s.json: receivers[0].position:", "expected [x, y, z]", "[1,2]"});
}

TEST_F(BadInput, NegativeAndZeroBoxSizes) {
    expect_scene_rejected(SceneText().set("geometry", R"({"box": [6, -4, 3]})"), 2,
                          {"s.json: geometry.box[1]:", "positive", "-4"});
    expect_scene_rejected(SceneText().set("geometry", R"({"box": [0, 4, 3]})"), 2,
                          {"s.json: geometry.box[0]:", "positive", "0"});
}

TEST_F(BadInput, NegativeAndZeroFrequencies) {
    expect_scene_rejected(SceneText().set("simulation", R"({"max_frequency": -5})"), 2,
                          {"s.json: simulation.max_frequency:", "positive", "-5"});
    expect_scene_rejected(SceneText().set("simulation", R"({"max_frequency": 0})"), 2,
                          {"s.json: simulation.max_frequency:", "positive", "got 0"});
}

TEST_F(BadInput, ZeroDuration) {
    expect_scene_rejected(SceneText().set("simulation", R"({"max_frequency": 500, "duration": 0})"),
                          2, {"s.json: simulation.duration:", "positive", "got 0"});
}

TEST_F(BadInput, NegativeSpeedOfSoundAndScale) {
    expect_scene_rejected(SceneText().set("simulation", R"({"speed_of_sound": -343})"), 2,
                          {"s.json: simulation.speed_of_sound:", "-343"});
    dir.write("room.obj", room_obj());
    expect_scene_rejected(SceneText().set("geometry", R"({"mesh": "room.obj", "scale": 0})"), 2,
                          {"s.json: geometry.scale:", "positive"});
}

TEST_F(BadInput, PointsPerWavelengthBelowTwo) {
    expect_scene_rejected(
        SceneText().set("simulation", R"({"max_frequency": 500, "points_per_wavelength": 1.5})"), 2,
        {"s.json: simulation.points_per_wavelength:", "at least 2", "1.5"});
}

TEST_F(BadInput, AbsorptionOutOfRangeAndBandsThatAreNotFrequencies) {
    expect_scene_rejected(SceneText()
                              .set("materials", R"({"plaster": {"absorption": 1.5}})")
                              .set("surfaces", R"({"*": "plaster"})"),
                          2, {"s.json: materials.plaster.absorption:", "between 0 and 1", "1.5"});
    expect_scene_rejected(
        SceneText()
            .set("materials", R"({"plaster": {"absorption": {"125": 0.1, "loud": 0.1}}})")
            .set("surfaces", R"({"*": "plaster"})"),
        2, {"s.json: materials.plaster.absorption:", "band \"loud\" is not a frequency"});
    for (const char* band : {"0", "5", "40000", "1e9", " 125", "nan", "125Hz"})
        expect_scene_rejected(
            SceneText()
                .set("materials",
                     std::string(R"({"plaster": {"absorption": {")") + band + R"(": 0.1}}})")
                .set("surfaces", R"({"*": "plaster"})"),
            2, {"s.json: materials.plaster.absorption:", "is not a frequency"});
    expect_scene_rejected(
        SceneText()
            .set("materials", R"({"plaster": {"absorption": {"500": 0.1, "500.0": 0.2}}})")
            .set("surfaces", R"({"*": "plaster"})"),
        2, {"s.json: materials.plaster.absorption:", "given twice"});
    expect_scene_rejected(SceneText()
                              .set("materials", R"({"plaster": {"absorption": {"500": -0.1}}})")
                              .set("surfaces", R"({"*": "plaster"})"),
                          2, {"s.json: materials.plaster.absorption.500:", "between 0 and 1"});
}

TEST_F(BadInput, LabDataThatIsNotPassiveOrNotOneKind) {
    const auto rejected = [&](const std::string& material,
                              std::initializer_list<std::string> expect) {
        expect_scene_rejected(SceneText()
                                  .set("materials", R"({"panel": )" + material + "}")
                                  .set("surfaces", R"({"*": "panel"})"),
                              2, expect);
    };
    rejected(R"({"impedance": {"500": [-0.5, 2]}})",
             {"s.json: materials.panel.impedance.500:", "real part is negative", "not passive"});
    rejected(R"({"impedance": [-1, 0]})", {"s.json: materials.panel.impedance:", "negative"});
    rejected(R"({"impedance": {"500": [0, 0]}})",
             {"s.json: materials.panel.impedance.500:", "zero"});
    rejected(R"({"impedance": {"500": 3}})",
             {"s.json: materials.panel.impedance.500:", "[real, imaginary]"});
    rejected(R"({"impedance": 3})", {"s.json: materials.panel.impedance:", "[real, imaginary]"});
    rejected(R"({"normal_absorption": {"500": 1.2}})",
             {"s.json: materials.panel.normal_absorption.500:", "between 0 and 1"});
    rejected(R"({"normal_absorption": {"hum": 0.2}})",
             {"s.json: materials.panel.normal_absorption:", "band \"hum\" is not a frequency"});
    rejected(R"({"absorption": 0.2, "impedance": [3, 1]})",
             {"s.json: materials.panel:", "not several"});
    rejected(R"({})", {"s.json: materials.panel:", "missing key \"absorption\""});
}

// --- keys -------------------------------------------------------------------------------------

TEST_F(BadInput, UnknownTopLevelKeySuggestsTheNearest) {
    expect_scene_rejected(SceneText().set("recievers", "[]"), 2,
                          {"s.json: recievers:", "unknown key", "did you mean \"receivers\""});
}

TEST_F(BadInput, UnknownNestedKeySuggestsTheNearest) {
    expect_scene_rejected(
        SceneText().set("simulation", R"({"max_frequncy": 500})"), 2,
        {"s.json: simulation.max_frequncy:", "unknown key", "did you mean \"max_frequency\""});
    expect_scene_rejected(SceneText().set("geometry", R"({"box": [6, 4, 3], "scael": 1})"), 2,
                          {"s.json: geometry.scael:", "did you mean \"scale\""});
}

TEST_F(BadInput, UnknownKeyWithoutANearOneListsTheValidKeys) {
    expect_scene_rejected(SceneText().set("simulation", R"({"banana": 1})"), 2,
                          {"s.json: simulation.banana:", "unknown key", "max_frequency"});
}

TEST_F(BadInput, KeyWrittenTwice) {
    expect_scene_rejected(
        SceneText().set("simulation", R"({"max_frequency": 500, "max_frequency": 600})"), 2,
        {"s.json", "simulation.max_frequency", "twice"});
    expect_scene_rejected(
        SceneText().set("sources", R"([{"name": "S1", "position": [1, 1, 1], "name": "S2"}])"), 2,
        {"s.json", "sources[0].name", "twice"});
}

TEST_F(BadInput, MissingRequiredKeys) {
    for (const char* key : {"format", "geometry", "materials", "surfaces", "sources"}) {
        SCOPED_TRACE(key);
        expect_scene_rejected(SceneText().drop(key), 2,
                              {"s.json", std::string("missing key \"") + key + "\""});
    }
    expect_scene_rejected(SceneText().set("sources", R"([{"name": "S1"}])"), 2,
                          {"s.json: sources[0]:", "missing key \"position\""});
}

TEST_F(BadInput, WrongFormatString) {
    expect_scene_rejected(SceneText().set("format", R"("ardent-scene/2")"), 2,
                          {"s.json: format:", "ardent-scene/1", "ardent-scene/2"});
}

TEST_F(BadInput, NotAnObjectAtTheTop) {
    expect_scene_rejected("[1, 2, 3]\n", 2, {"s.json", "expected an object"});
}

TEST_F(BadInput, WrongChoices) {
    expect_scene_rejected(SceneText().set("simulation", R"({"solver": "fdtdd"})"), 2,
                          {"s.json: simulation.solver:", "\"fdtdd\"", "did you mean \"fdtd\""});
    expect_scene_rejected(SceneText().set("geometry", R"({"box": [6, 4, 3], "up": "w"})"), 2,
                          {"s.json: geometry.up:", "\"w\""});
}

TEST_F(BadInput, BothMeshAndBox) {
    expect_scene_rejected(SceneText().set("geometry", R"({"box": [6, 4, 3], "mesh": "a.obj"})"), 2,
                          {"s.json: geometry:", "exactly one"});
}

// --- materials and surfaces -------------------------------------------------------------------

TEST_F(BadInput, UnknownMaterialInSurfaces) {
    expect_scene_rejected(SceneText().set("surfaces", R"({"floor": "carpte", "*": "plaster"})"), 2,
                          {"s.json: surfaces.floor:", "\"carpte\"", "did you mean \"carpet\""});
}

TEST_F(BadInput, SurfaceGroupThatNoPatternMatches) {
    dir.write("room.obj", room_obj());
    auto scene = SceneText().mesh("room.obj", R"({"Floor": "carpet", "Ceiling": "plaster"})");
    expect_scene_rejected(scene, 2, {"s.json: surfaces:", "match no pattern", "Walls"});
    // Floor and Ceiling are mapped: only Walls is listed.
    dir.write("s.json", scene.str());
    const auto r = run_ardent("info s.json", dir.path());
    EXPECT_EQ(r.err.find("Floor"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("Ceiling"), std::string::npos) << r.err;
}

// --- mesh files -------------------------------------------------------------------------------

TEST_F(BadInput, MissingMeshFile) {
    expect_scene_rejected(SceneText().mesh("nothere.obj"), 2,
                          {"s.json: geometry.mesh:", "nothere.obj", "not found"});
}

TEST_F(BadInput, UnreadableMeshFile) {
    dir.write("room.obj", room_obj());
    fs::permissions(dir / "room.obj", fs::perms::none);
    if (geteuid() == 0 || std::ifstream(dir / "room.obj").good()) {
        fs::permissions(dir / "room.obj", fs::perms::owner_read | fs::perms::owner_write);
        GTEST_SKIP() << "permissions do not stop this user from reading";
    }
    expect_scene_rejected(SceneText().mesh("room.obj"), 2,
                          {"s.json: geometry.mesh:", "room.obj", "cannot be read"});
    fs::permissions(dir / "room.obj", fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(BadInput, DirectoryAsMesh) {
    fs::create_directory(dir / "room.obj");
    expect_scene_rejected(SceneText().mesh("room.obj"), 2,
                          {"s.json: geometry.mesh:", "room.obj", "directory"});
}

// A FIFO opened for reading waits for a writer: a mesh path naming one hung ardent for ever
// (SIGTERM too). Refused before it is opened, naming the scene key and the path.
TEST_F(BadInput, FifoAsMesh) {
    ASSERT_EQ(::mkfifo((dir / "room.obj").c_str(), 0644), 0);
    timeout_s = 60;
    expect_scene_rejected(SceneText().mesh("room.obj"), 2,
                          {"s.json: geometry.mesh:", "room.obj", "is a FIFO (named pipe)"});
    expect_rejected("simulate s.json -o out --quiet", 2,
                    {"s.json: geometry.mesh:", "room.obj", "is a FIFO (named pipe)"});
}

TEST_F(BadInput, TextThatIsNotAMesh) {
    dir.write("room.obj", "This is a letter, not a model.\nRegards,\n");
    expect_scene_rejected(SceneText().mesh("room.obj"), 2, {"s.json: geometry.mesh:", "room.obj"});
}

TEST_F(BadInput, RandomBytesAsMesh) {
    std::mt19937 rng(7);
    std::string bytes(4096, '\0');
    for (char& c : bytes)
        c = static_cast<char>(rng() & 0xff);
    dir.write("room.obj", bytes);
    dir.write("room.stl", bytes);
    expect_scene_rejected(SceneText().mesh("room.obj"), 2, {"s.json: geometry.mesh:", "room.obj"});
    expect_scene_rejected(SceneText().mesh("room.stl"), 2, {"s.json: geometry.mesh:", "room.stl"});
}

TEST_F(BadInput, GarbageStl) {
    dir.write("room.stl", "solid room\n  this is not a facet\nendsolid\n");
    expect_scene_rejected(SceneText().mesh("room.stl"), 2, {"s.json: geometry.mesh:", "room.stl"});
}

TEST_F(BadInput, MeshWithVerticesOnly) {
    dir.write("room.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n");
    expect_scene_rejected(SceneText().mesh("room.obj"), 2, {"s.json: geometry.mesh:", "room.obj"});
}

// Assimp's own words leaked out ("Validation failed: aiScene::mNumMeshes is 0. At least one mesh
// must be there"): a model without surfaces is said to have no triangles, naming the file, and
// no message names Assimp's data structures.
TEST_F(BadInput, MeshWithoutSurfacesOrWithBadIndices) {
    const auto no_internals = [](const CommandResult& r) {
        for (const char* word : {"aiScene", "aiMesh", "::m", "Validation failed"})
            EXPECT_EQ(r.err.find(word), std::string::npos) << r.err;
    };
    for (const char* text :
         {"mtllib room.mtl\no thing\n", "g group\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n",
          "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n\n\n\n\n\n\n\n\n\n\n\n"}) {
        dir.write("room.obj", text);
        dir.write("s.json", SceneText().mesh("room.obj").str());
        no_internals(expect_rejected(
            "info s.json", 2,
            {"s.json: geometry.mesh:", "room.obj: the mesh file has no triangles"}));
    }
    // A PLY face that names a vertex the file does not have.
    dir.write("room.ply",
              "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
              "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
              "end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n");
    dir.write("s.json", SceneText().mesh("room.ply").str());
    no_internals(expect_rejected(
        "info s.json", 2,
        {"room.ply: not a readable mesh: a face refers to a vertex that the file does not have"}));
    // A file no importer takes.
    dir.write("room.txt", "hello\n");
    dir.write("s.json", SceneText().mesh("room.txt").str());
    expect_rejected("info s.json", 2, {"room.txt: not a model format Assimp reads (OBJ"});
}

TEST_F(BadInput, EmptyMeshFile) {
    dir.write("room.obj", "");
    expect_scene_rejected(SceneText().mesh("room.obj"), 2,
                          {"s.json: geometry.mesh:", "room.obj", "empty"});
}

TEST_F(BadInput, MeshOfOnlyDegenerateTriangles) {
    dir.write("room.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\nf 1 1 2\n");
    expect_scene_rejected(SceneText().mesh("room.obj"), 2,
                          {"s.json: geometry.mesh:", "room.obj", "no triangles"});
}

TEST_F(BadInput, OpenMeshWithoutCeiling) {
    ObjWriter w;
    w.box({0, 0, 0}, {6, 4, 3}, kRoomNames, {ObjWriter::kCeiling});
    dir.write("room.obj", w.text());
    dir.write("s.json", SceneText().mesh("room.obj").str());
    const auto r = expect_rejected("info s.json", 2, {"s.json", "geometry"});
    EXPECT_TRUE(r.err.find("open") != std::string::npos ||
                r.err.find("not closed") != std::string::npos)
        << r.err;
    expect_rejected("voxelize s.json --slice z=1.2 -o out.png", 2, {"s.json", "geometry"});
    EXPECT_FALSE(fs::exists(dir / "out.png"));
}

// --- sources and receivers --------------------------------------------------------------------

// Every box written by ObjWriter has normals pointing out of it: the pillar's face away from a
// source inside it, as a solid object's should.
TEST_F(BadInput, SourceInsideAPillar) {
    ObjWriter w;
    w.box({0, 0, 0}, {6, 4, 3}, kRoomNames);
    w.box({2, 1.5, 0.5}, {3.5, 2.5, 2.5},
          {"Pillar", "Pillar", "Pillar", "Pillar", "Pillar", "Pillar"});
    dir.write("room.obj", w.text());
    // Without receivers, so that the message must be about the source.
    expect_scene_rejected(SceneText()
                              .mesh("room.obj")
                              .set("sources", R"([{"name": "S1", "position": [2.75, 2.0, 1.5]}])")
                              .drop("receivers"),
                          2, {"s.json", "source \"S1\"", "inside"});
    // With a receiver in the room the source is still the one blamed.
    expect_scene_rejected(SceneText()
                              .mesh("room.obj")
                              .set("sources", R"([{"name": "S1", "position": [2.75, 2.0, 1.5]}])"),
                          2, {"s.json", "source \"S1\"", "inside"});
}

// With a second source in the room's air, the one inside the pillar is still the one named,
// first or second in the list (first, it was reported as the other one).
TEST_F(BadInput, SourceInsideAPillarWithASecondSource) {
    ObjWriter w;
    w.box({0, 0, 0}, {6, 4, 3}, kRoomNames);
    w.box({2, 1.5, 0.5}, {3.5, 2.5, 2.5},
          {"Pillar", "Pillar", "Pillar", "Pillar", "Pillar", "Pillar"});
    dir.write("room.obj", w.text());
    const std::string in_pillar = R"({"name": "Inside", "position": [2.75, 2.0, 1.5]})";
    const std::string in_room = R"({"name": "Fine", "position": [1.0, 1.0, 1.5]})";
    for (const bool pillar_first : {true, false}) {
        SCOPED_TRACE(pillar_first ? "the source in the pillar first" : "second");
        const std::string sources =
            "[" + (pillar_first ? in_pillar + ", " + in_room : in_room + ", " + in_pillar) + "]";
        dir.write("s.json", SceneText().mesh("room.obj").set("sources", sources).str());
        const auto r = expect_rejected("info s.json", 2, {"s.json: source \"Inside\"", "inside"});
        EXPECT_EQ(r.err.find("Fine"), std::string::npos) << r.err;
    }
}

// A room with 0.5 m thick walls modelled as a solid: an outer shell with normals pointing out and
// an inner shell with normals pointing into the room. A source in the wall is not in the room.
TEST_F(BadInput, SourceInsideAThickWall) {
    ObjWriter outer, inner;
    outer.box({0, 0, 0}, {7, 5, 4}, {"Outer", "Outer", "Outer", "Outer", "Outer", "Outer"});
    inner.box({0.5, 0.5, 0.5}, {6.5, 4.5, 3.5},
              {"Inner", "Inner", "Inner", "Inner", "Inner", "Inner"});
    // Reverse the inner faces (normals into the room) and renumber them after the outer ones.
    std::istringstream in(inner.text());
    std::string text = outer.text(), line;
    while (std::getline(in, line)) {
        if (line.rfind("f ", 0) == 0) {
            std::istringstream f(line.substr(2));
            int a, b, c, d;
            f >> a >> b >> c >> d;
            line = "f " + std::to_string(d + 24) + " " + std::to_string(c + 24) + " " +
                   std::to_string(b + 24) + " " + std::to_string(a + 24);
        }
        text += line + "\n";
    }
    dir.write("room.obj", text);
    // The room itself is fine.
    dir.write("ok.json", SceneText()
                             .mesh("room.obj")
                             .set("sources", R"([{"name": "S1", "position": [3, 2, 2]}])")
                             .set("receivers", R"([{"name": "R1", "position": [5, 3, 1.5]}])")
                             .str());
    const auto ok = run_ardent("info ok.json", dir.path());
    EXPECT_EQ(ok.exit_code, 0) << ok.err;
    expect_scene_rejected(SceneText()
                              .mesh("room.obj")
                              .set("sources", R"([{"name": "S1", "position": [0.25, 2, 2]}])")
                              .drop("receivers"),
                          2, {"s.json", "source \"S1\""});
}

TEST_F(BadInput, SourceOutsideTheModel) {
    expect_scene_rejected(
        SceneText().set("sources", R"([{"name": "Loud", "position": [10, 1, 1]}])"), 2,
        {"s.json", "source \"Loud\"", "outside the model"});
}

TEST_F(BadInput, ReceiverOutsideTheModel) {
    expect_scene_rejected(
        SceneText().set("receivers", R"([{"name": "Ear", "position": [1, -2, 1]}])"), 2,
        {"s.json", "receiver \"Ear\"", "outside the model"});
}

// A position of 1e308 printed as about 300 digits, cut off mid-number by the buffer.
TEST_F(BadInput, HugeCoordinatesArePrintedCompactly) {
    expect_scene_rejected(
        SceneText().set("sources", R"([{"name": "Far", "position": [1e308, 1.2, 1.4]}])"), 2,
        {"s.json: source \"Far\" at (1e+308, 1.20, 1.40) is outside the model, which spans x 0.00 "
         "m "
         "to 6.00 m"});
    const auto r = expect_rejected("info s.json", 2, {"(1e+308, 1.20, 1.40)"});
    EXPECT_LT(r.err.size(), 200u) << r.err;
    expect_scene_rejected(
        SceneText().set("receivers", R"([{"name": "Ear", "position": [4.2, -1.5e12, 1.6]}])"), 2,
        {"receiver \"Ear\" at (4.20, -1.5e+12, 1.60) is outside the model"});
}

TEST_F(BadInput, SourcesInDisconnectedRooms) {
    ObjWriter w;
    w.box({0, 0, 0}, {3, 3, 3}, kRoomNames);
    w.box({5, 0, 0}, {8, 3, 3}, kRoomNames);
    dir.write("rooms.obj", w.text());
    expect_scene_rejected(SceneText()
                              .mesh("rooms.obj")
                              .set("sources", R"([{"name": "A", "position": [1.5, 1.5, 1.5]},
                                                  {"name": "B", "position": [6.5, 1.5, 1.5]}])")
                              .drop("receivers"),
                          2, {"s.json", "source \"B\"", "not connected", "\"A\""});
}

TEST_F(BadInput, DuplicateNames) {
    expect_scene_rejected(SceneText().set("sources", R"([{"name": "S1", "position": [1, 1, 1]},
                                                         {"name": "S1", "position": [2, 1, 1]}])"),
                          2, {"s.json: sources[1].name:", "\"S1\"", "twice"});
    // Names are shared between sources and receivers (they name output files together).
    expect_scene_rejected(
        SceneText().set("receivers", R"([{"name": "S1", "position": [2, 2, 1]}])"), 2,
        {"s.json: receivers[0].name:", "\"S1\"", "twice"});
}

TEST_F(BadInput, InvalidNames) {
    expect_scene_rejected(SceneText().set("sources", R"([{"name": "a/b", "position": [1, 1, 1]}])"),
                          2, {"s.json: sources[0].name:", "\"a/b\"", "not a usable name"});
    expect_scene_rejected(SceneText().set("receivers", R"([{"name": "", "position": [1, 1, 1]}])"),
                          2, {"s.json: receivers[0].name:", "not a usable name"});
    expect_scene_rejected(SceneText().set("sources", R"([{"name": "..", "position": [1, 1, 1]}])"),
                          2, {"s.json: sources[0].name:", "not a usable name"});
}

TEST_F(BadInput, EmptySourceList) {
    expect_scene_rejected(SceneText().set("sources", "[]"), 2,
                          {"s.json: sources:", "at least one"});
}

TEST_F(BadInput, AbsurdSampleRate) {
    expect_scene_rejected(SceneText().set("output", R"({"sample_rate": 5})"), 2,
                          {"s.json: output.sample_rate:", "8000", "5"});
    expect_scene_rejected(SceneText().set("output", R"({"sample_rate": 48000000})"), 2,
                          {"s.json: output.sample_rate:", "48000000"});
    expect_scene_rejected(SceneText().set("output", R"({"sample_rate": 44100.5})"), 2,
                          {"s.json: output.sample_rate:", "whole number"});
}

TEST_F(BadInput, ListenerGridEveryZero) {
    expect_scene_rejected(SceneText().set("listener_grid", R"({"every": 0})"), 2,
                          {"s.json: listener_grid.every:", "whole number"});
}

TEST_F(BadInput, ListenerGridSpacing) {
    expect_scene_rejected(SceneText().set("listener_grid", R"({"spacing_m": 0})"), 2,
                          {"s.json: listener_grid.spacing_m:", "positive"});
    expect_scene_rejected(SceneText().set("listener_grid", R"({"spacing_m": -1.5})"), 2,
                          {"s.json: listener_grid.spacing_m:", "positive", "-1.5"});
    expect_scene_rejected(SceneText().set("listener_grid", R"({"spacing_m": 0.5, "every": 4})"), 2,
                          {"s.json: listener_grid.spacing_m:", "not both"});
}

// --- resources --------------------------------------------------------------------------------

TEST_F(BadInput, GridTooLargeForTheMachine) {
    dir.write("s.json", SceneText().set("simulation", R"({"max_frequency": 200000})").str());
    for (const char* args : {"info s.json", "voxelize s.json --slice z=1.2 -o out.png"}) {
        const auto r = expect_rejected(args, 3, {"s.json", "cells", "max_frequency", "Hz"});
        // The estimate is given in bytes with a unit, and a lower frequency is suggested.
        EXPECT_TRUE(r.err.find("TB") != std::string::npos || r.err.find("PB") != std::string::npos)
            << r.err;
        EXPECT_NE(r.err.find("Lower simulation.max_frequency to at most"), std::string::npos);
    }
    EXPECT_FALSE(fs::exists(dir / "out.png"));
    // The command-line override is checked the same way.
    dir.write("ok.json", SceneText().str());
    expect_rejected("info ok.json --max-frequency 200000", 3, {"ok.json", "max_frequency"});
}

TEST_F(BadInput, ModelFarTooLargeSuggestsCheckingItsUnits) {
    // A 1000 x 1000 x 100 km "room" (a 1 km model in millimetres read as metres): even 20 Hz
    // would not fit on any machine, so the message must not suggest lowering it to 0 Hz.
    dir.write("s.json", SceneText()
                            .set("geometry", R"({"box": [1e6, 1e6, 1e5]})")
                            .set("simulation", R"({"max_frequency": 500})")
                            .str());
    const auto r = expect_rejected("info s.json", 3, {"s.json", "cells", "geometry.scale"});
    EXPECT_EQ(r.err.find(" 0 Hz"), std::string::npos) << r.err;
    // A speed of sound so small that the grid size overflows.
    dir.write("s.json", SceneText().set("simulation", R"({"speed_of_sound": 1e-300})").str());
    const auto c = expect_rejected("info s.json", 3, {"s.json", "speed_of_sound"});
    EXPECT_EQ(c.err.find("inf PB"), std::string::npos) << c.err;
}

// --- command line -----------------------------------------------------------------------------

TEST_F(BadInput, SliceWithUnknownAxis) {
    dir.write("s.json", SceneText().str());
    expect_rejected("voxelize s.json --slice q=1 -o out.png", 2, {"--slice", "q=1", "z=1.2"});
    EXPECT_FALSE(fs::exists(dir / "out.png"));
}

TEST_F(BadInput, SliceThatIsNotANumber) {
    dir.write("s.json", SceneText().str());
    expect_rejected("voxelize s.json --slice z=abc -o out.png", 2, {"--slice", "\"abc\""});
    expect_rejected("voxelize s.json --slice z= -o out.png", 2, {"--slice"});
    expect_rejected("voxelize s.json --slice z=1e999 -o out.png", 2, {"--slice", "1e999"});
    EXPECT_FALSE(fs::exists(dir / "out.png"));
}

TEST_F(BadInput, SliceOutsideTheGrid) {
    dir.write("s.json", SceneText().str());
    expect_rejected("voxelize s.json --slice z=50 -o out.png", 2, {"--slice z=50", "outside"});
    expect_rejected("voxelize s.json --slice x=-7 -o out.png", 2, {"--slice x=-7", "outside"});
    EXPECT_FALSE(fs::exists(dir / "out.png"));
}

TEST_F(BadInput, SliceWithoutOutput) {
    dir.write("s.json", SceneText().str());
    expect_rejected("voxelize s.json --slice z=1.2", 2, {"--slice", "-o"});
}

TEST_F(BadInput, OutputThatExistsWithoutForce) {
    dir.write("s.json", SceneText().str());
    dir.write("existing.png", "precious");
    expect_rejected("voxelize s.json --slice z=1.2 -o existing.png", 2,
                    {"existing.png", "already exists", "--force"});
    EXPECT_EQ(read_file(dir / "existing.png"), "precious");
    // Without --slice (the default slice) too.
    expect_rejected("voxelize s.json -o existing.png", 2, {"existing.png", "already exists"});
    EXPECT_EQ(read_file(dir / "existing.png"), "precious");
    // With --force it is replaced by a real PNG.
    const auto r = run_ardent("voxelize s.json --slice z=1.2 -o existing.png --force", dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_file(dir / "existing.png").substr(1, 3), "PNG");
}

TEST_F(BadInput, OutputInAMissingFolder) {
    dir.write("s.json", SceneText().str());
    expect_rejected("voxelize s.json --slice z=1.2 -o nofolder/out.png", 2, {"nofolder"});
}

// A mistyped command got "A subcommand is required", a mistyped option "arguments were not
// expected": neither said what was meant.
TEST_F(BadInput, MistypedCommandSuggestsTheNearest) {
    dir.write("s.json", SceneText().str());
    expect_rejected("simulat s.json -o out", 2, {"unknown command 'simulat'", "'simulate'"});
    expect_rejected("anlyze ir.wav", 2, {"'anlyze'", "did you mean 'analyze'"});
    // Nothing near: the commands are listed.
    expect_rejected("frobnicate s.json", 2, {"'frobnicate'", "info", "simulate", "auralize"});
    EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST_F(BadInput, MistypedOptionSuggestsTheNearest) {
    dir.write("s.json", SceneText().str());
    for (const char* args :
         {"simulate s.json -o out --max-frequncy 500", "simulate --max-frequncy=500 s.json -o out"})
        expect_rejected(args, 2,
                        {"unknown option '--max-frequncy'", "did you mean '--max-frequency'"});
    expect_rejected("info s.json --jsn", 2, {"'--jsn'", "'ardent info'", "'--json'"});
    expect_rejected("simulate s.json -o out --zzzzzzzz", 2, {"'--zzzzzzzz'", "--duration"});
    EXPECT_FALSE(fs::exists(dir / "out"));
    // --help and a valid command line are untouched.
    EXPECT_EQ(run_ardent("simulate --help", dir.path()).exit_code, 0);
}

TEST_F(BadInput, NegativeMaxFrequencyOption) {
    dir.write("s.json", SceneText().str());
    expect_rejected("info s.json --max-frequency -5", 2, {"--max-frequency"});
}

// "nan" and "inf" were taken as numbers, passed CLI11's positive check (comparisons with NaN are
// false) and the override was then silently ignored.
TEST_F(BadInput, NonFiniteNumberOptions) {
    dir.write("s.json", SceneText().str());
    for (const char* v : {"nan", "NaN", "inf", "-inf", "1e999", "0", "12abc"}) {
        expect_rejected(std::string("info s.json --max-frequency ") + v, 2, {"--max-frequency"});
        expect_rejected(std::string("simulate s.json -o out --max-frequency ") + v, 2,
                        {"--max-frequency"});
        expect_rejected(std::string("simulate s.json -o out --duration ") + v, 2, {"--duration"});
    }
    expect_rejected("simulate s.json -o out --duration 3601", 2, {"--duration", "3600"});
}

// 100 000 threads asked for made the thread start fail mid-run: SIGABRT, and the run's temporary
// folder left behind. Refused before anything starts, naming the option.
TEST_F(BadInput, AbsurdThreadCounts) {
    dir.write("s.json", SceneText().str());
    for (const char* v : {"100000", "-1", "1025", "2.5", "many"}) {
        expect_rejected(std::string("simulate s.json -o out --threads ") + v, 2,
                        {"--threads", "1 to 1024"});
        expect_rejected(std::string("auralize s.json s.json -o wet.wav --threads ") + v, 2,
                        {"--threads"});
    }
}

// `voxelize -o v.jpg` wrote PNG bytes into a .jpg.
TEST_F(BadInput, VoxelizeOutputThatIsNotPng) {
    dir.write("s.json", SceneText().str());
    for (const char* name : {"v.jpg", "v", "v.png.txt"})
        expect_rejected(std::string("voxelize s.json -o ") + name, 2, {name, ".png"});
    expect_rejected("voxelize s.json --max-frequency nan", 2, {"--max-frequency"});
}

// 100 000 nested arrays overflowed the stack (SIGSEGV) in info, simulate and the editor.
TEST_F(BadInput, DeeplyNestedJson) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    expect_scene_rejected(deep, 2, {"s.json", "nested more than 64 levels"});
    expect_scene_rejected(SceneText().set("simulation", R"({"max_frequency": )" + deep + "}"), 2,
                          {"s.json: simulation.max_frequency[0]", "nested more than 64 levels"});
    // 64 levels in all are parsed (and then rejected for what they are, not for their depth):
    // the scene's object, "simulation" and 62 arrays.
    const std::string ok = std::string(62, '[') + std::string(62, ']');
    dir.write("s.json", SceneText().set("simulation", R"({"max_frequency": )" + ok + "}").str());
    const CommandResult r2 = run_ardent("info s.json", dir.path());
    EXPECT_EQ(r2.exit_code, 2) << r2.err;
    EXPECT_EQ(r2.err.find("nested"), std::string::npos) << r2.err;
    EXPECT_NE(r2.err.find("max_frequency"), std::string::npos) << r2.err;
}

// Random bytes as a scene gave "1:1: unexpected end of input" (and echoed the bytes): say that
// the file is not JSON text, or not UTF-8, naming it, with nothing but printable text.
TEST_F(BadInput, SceneThatIsNotJsonText) {
    std::mt19937 rng(23);
    std::string bytes(4096, '\0');
    for (char& c : bytes)
        c = static_cast<char>(rng() & 0xff);
    const auto printable = [](const std::string& text) {
        return std::all_of(text.begin(), text.end(),
                           [](char c) { return c == '\n' || (c >= 0x20 && c < 0x7f); });
    };
    for (const std::string& head : {std::string(), std::string(1, '\0'), std::string("{")}) {
        dir.write("s.json", head + bytes);
        const auto r = expect_rejected("info s.json", 2, {"s.json: is not a text file"});
        EXPECT_TRUE(printable(r.err)) << r.err;
    }
    // Text in another encoding: UTF-16 (with its byte order mark), and Latin-1's "é".
    dir.write("s.json", std::string("\xFF\xFE{\0}\0", 6));
    expect_rejected("info s.json", 2, {"s.json: is not UTF-8 text (it is UTF-16)"});
    std::string latin = SceneText().set("name", "\"caf\xE9\"").str();
    dir.write("s.json", latin);
    const auto r =
        expect_rejected("info s.json", 2, {"s.json: is not UTF-8 text: byte 0xE9 at 3:15"});
    EXPECT_TRUE(printable(r.err)) << r.err;
    // Text that is not JSON at all; a UTF-8 byte order mark is fine.
    expect_scene_rejected("Dear Sir,\nplease find the room attached.\n", 2,
                          {"s.json: is not JSON: it starts with 'D' at 1:1"});
    dir.write("s.json", "\xEF\xBB\xBF" + SceneText().str());
    EXPECT_EQ(run_ardent("info s.json", dir.path()).exit_code, 0);
}

TEST_F(BadInput, SceneFileThatDoesNotExist) {
    expect_rejected("info nothere.json", 2, {"nothere.json", "no such"});
    expect_rejected("voxelize nothere.json --slice z=1 -o out.png", 2, {"nothere.json", "no such"});
    EXPECT_FALSE(fs::exists(dir / "out.png"));
}

TEST_F(BadInput, EmptySceneFile) {
    dir.write("s.json", "");
    expect_rejected("info s.json", 2, {"s.json", "empty"});
    dir.write("s.json", "  \n\t\n");
    expect_rejected("info s.json", 2, {"s.json", "empty"});
    expect_rejected("voxelize s.json --slice z=1 -o out.png", 2, {"s.json", "empty"});
    EXPECT_FALSE(fs::exists(dir / "out.png"));
}

TEST_F(BadInput, DirectoryAsScene) {
    fs::create_directory(dir / "scene.json");
    expect_rejected("info scene.json", 2, {"scene.json", "directory"});
}

TEST_F(BadInput, FifoAsScene) {
    ASSERT_EQ(::mkfifo((dir / "s.json").c_str(), 0644), 0);
    timeout_s = 60;
    for (const char* command : {"info s.json", "voxelize s.json -o out.png", "simulate s.json"})
        expect_rejected(command, 2, {"s.json: is a FIFO (named pipe), expected a scene file"});
}

// `ardent analyze` reads one audio file: a FIFO, a device or a folder is refused by name.
TEST_F(BadInput, FifoDeviceOrDirectoryToAnalyze) {
    ASSERT_EQ(::mkfifo((dir / "ir.wav").c_str(), 0644), 0);
    fs::create_directory(dir / "folder.wav");
    timeout_s = 60;
    expect_rejected("analyze ir.wav", 2, {"'ir.wav': it is a FIFO (named pipe), not a file"});
    expect_rejected("analyze /dev/zero", 2, {"'/dev/zero': it is a character device"});
    expect_rejected("analyze folder.wav", 2, {"'folder.wav': it is a directory"});
}

TEST_F(BadInput, UnreadableSceneFile) {
    dir.write("s.json", SceneText().str());
    fs::permissions(dir / "s.json", fs::perms::none);
    if (geteuid() == 0 || std::ifstream(dir / "s.json").good()) {
        fs::permissions(dir / "s.json", fs::perms::owner_read | fs::perms::owner_write);
        GTEST_SKIP() << "permissions do not stop this user from reading";
    }
    expect_rejected("info s.json", 2, {"s.json", "cannot be read"});
    fs::permissions(dir / "s.json", fs::perms::owner_read | fs::perms::owner_write);
}

}  // namespace
}  // namespace ardent::test
