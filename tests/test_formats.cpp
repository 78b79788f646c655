// Every model format the scene file promises (through Assimp) imports with the same triangles,
// volume and, where the format keeps them, surface names. The fixtures are the L-shaped room
// exported by Assimp itself (tests/fixtures/README.md).
#include <gtest/gtest.h>

#include <algorithm>

#include "ardent/preprocess/mesh_import.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "test_support.h"

namespace ardent {
namespace {

struct Format {
    const char* ext;
    bool names;  // node or material names survive
};

class Formats : public ::testing::TestWithParam<Format> {};

TEST_P(Formats, ImportsTheLShapedRoom) {
    const auto file =
        test::source_dir() / "tests" / "fixtures" / ("lshape." + std::string(GetParam().ext));
    const TriangleMesh m = import_mesh(file, 1.0);
    EXPECT_EQ(m.triangles.size(), 20u);
    EXPECT_NEAR(m.enclosed_volume(), 108.0, 1e-6);
    EXPECT_EQ(m.report.boundary_edges, 0u);
    const Vec3 size = m.bounds().size();
    std::array<double, 3> sides{size.x, size.y, size.z};
    std::sort(sides.begin(), sides.end());
    EXPECT_NEAR(sides[0], 3.0, 1e-6);
    EXPECT_NEAR(sides[1], 6.0, 1e-6);
    EXPECT_NEAR(sides[2], 8.0, 1e-6);
    if (GetParam().names) {
        for (const char* want : {"Floor", "Ceiling", "Walls"}) {
            const bool found =
                std::any_of(m.groups.begin(), m.groups.end(), [&](const SurfaceGroup& g) {
                    return g.node.find(want) != std::string::npos ||
                           g.material.find(want) != std::string::npos;
                });
            EXPECT_TRUE(found) << want;
        }
    }
}

TEST_P(Formats, PreprocessesThroughAScene) {
    test::ScratchDir dir;
    const auto file =
        test::source_dir() / "tests" / "fixtures" / ("lshape." + std::string(GetParam().ext));
    const Scene s = parse_scene(R"({"format": "ardent-scene/1",
        "geometry": {"mesh": ")" + file.string() +
                                    R"("},
        "materials": {"m": {"absorption": 0.2}}, "surfaces": {"*": "m"},
        "sources": [{"name": "S", "position": [0, 0, 0]}],
        "simulation": {"max_frequency": 500}})",
                                dir / "s.json");
    // The source goes 1 m inside the room's first corner, whichever axis the format made vertical.
    Scene placed = s;
    const Box3 b = load_geometry(s).bounds();
    placed.sources[0].position = b.lo + Vec3{1, 1, 1};
    const Preprocessed p = preprocess(placed);
    EXPECT_NEAR(p.air.mesh_volume, 108.0, 0.02 * 108.0);
    EXPECT_NEAR(p.air.air_volume(), 108.0, 156.0 * p.air.grid.h);  // within one layer of cells
}

INSTANTIATE_TEST_SUITE_P(Assimp, Formats,
                         ::testing::Values(Format{"dae", true}, Format{"glb", true},
                                           Format{"gltf", true}, Format{"fbx", true},
                                           Format{"3ds", true}, Format{"x", true},
                                           Format{"ply", false}),
                         [](const auto& param_info) { return std::string(param_info.param.ext); });

}  // namespace
}  // namespace ardent
