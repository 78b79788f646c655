// ardent::import_mesh (Assimp), make_box_mesh, TriangleMesh::clean and enclosed_volume, and the
// surfaces globs (glob_match, map_surfaces). Model files are tiny OBJ/STL/PLY texts written into a
// scratch directory by the tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/mesh.h"
#include "ardent/preprocess/mesh_import.h"
#include "ardent/preprocess/surface_map.h"
#include "test_support.h"

namespace ardent {
namespace {

using test::ScratchDir;

// Corners of the box [lo, hi] and its six faces (floor z0, ceiling z1, y0, y1, x0, x1) wound with
// normals pointing out of the box.
struct BoxFaces {
    std::array<Vec3, 8> v;
    static constexpr std::array<std::array<int, 4>, 6> kFaces = {
        {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}}};
    BoxFaces(Vec3 lo, Vec3 hi)
        : v{{{lo.x, lo.y, lo.z},
             {hi.x, lo.y, lo.z},
             {hi.x, hi.y, lo.z},
             {lo.x, hi.y, lo.z},
             {lo.x, lo.y, hi.z},
             {hi.x, lo.y, hi.z},
             {hi.x, hi.y, hi.z},
             {lo.x, hi.y, hi.z}}} {}
};

std::string vertex_line(const char* prefix, Vec3 p) {
    std::ostringstream s;
    s << prefix << p.x << " " << p.y << " " << p.z << "\n";
    return s.str();
}

// OBJ text of a box, one object (`o`) per face with the given node and material names; `skip`
// leaves faces out; `inward` reverses the winding. Vertex numbers continue from `first_vertex`.
std::string box_obj(Vec3 lo, Vec3 hi, const std::array<std::string, 6>& nodes,
                    const std::array<std::string, 6>& materials, std::vector<int> skip = {},
                    bool inward = false, int first_vertex = 1) {
    const BoxFaces b(lo, hi);
    std::string s;
    int n = first_vertex;
    for (int f = 0; f < 6; ++f) {
        if (std::find(skip.begin(), skip.end(), f) != skip.end()) continue;
        s += "o " + nodes[f] + "\n";
        if (!materials[f].empty()) s += "usemtl " + materials[f] + "\n";
        for (int k : BoxFaces::kFaces[f])
            s += vertex_line("v ", b.v[k]);
        s += inward ? "f " + std::to_string(n + 3) + " " + std::to_string(n + 2) + " " +
                          std::to_string(n + 1) + " " + std::to_string(n) + "\n"
                    : "f " + std::to_string(n) + " " + std::to_string(n + 1) + " " +
                          std::to_string(n + 2) + " " + std::to_string(n + 3) + "\n";
        n += 4;
    }
    return s;
}

const std::array<std::string, 6> kNodes = {"Floor", "Ceiling", "WallS", "WallN", "WallW", "WallE"};
const std::array<std::string, 6> kMaterials = {"carpet", "plaster", "brick",
                                               "brick",  "brick",   "glass"};

// ASCII STL of a box, two triangles per face.
std::string box_stl(Vec3 lo, Vec3 hi, const std::string& solid) {
    const BoxFaces b(lo, hi);
    std::string s = "solid " + solid + "\n";
    for (const auto& q : BoxFaces::kFaces) {
        for (const auto& tri : {std::array<int, 3>{q[0], q[1], q[2]}, {q[0], q[2], q[3]}}) {
            s += "facet normal 0 0 0\n outer loop\n";
            for (int k : tri)
                s += vertex_line("  vertex ", b.v[k]);
            s += " endloop\nendfacet\n";
        }
    }
    return s + "endsolid " + solid + "\n";
}

// ASCII PLY of a box: 8 shared vertices, 6 quads.
std::string box_ply(Vec3 lo, Vec3 hi) {
    const BoxFaces b(lo, hi);
    std::string s =
        "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
        "property float z\nelement face 6\nproperty list uchar int vertex_indices\nend_header\n";
    for (const Vec3& p : b.v)
        s += vertex_line("", p);
    for (const auto& q : BoxFaces::kFaces)
        s += "4 " + std::to_string(q[0]) + " " + std::to_string(q[1]) + " " + std::to_string(q[2]) +
             " " + std::to_string(q[3]) + "\n";
    return s;
}

const SurfaceGroup* find_group(const TriangleMesh& m, const std::string& node) {
    for (const auto& g : m.groups)
        if (g.node == node) return &g;
    return nullptr;
}

size_t triangles_in(const TriangleMesh& m, const std::string& node) {
    size_t n = 0;
    for (const auto& t : m.triangles)
        if (m.groups[t.group].node == node) ++n;
    return n;
}

void expect_bounds(const TriangleMesh& m, Vec3 lo, Vec3 hi, double tol = 1e-9) {
    const Box3 b = m.bounds();
    for (int a = 0; a < 3; ++a) {
        EXPECT_NEAR(b.lo[a], lo[a], tol) << "axis " << a;
        EXPECT_NEAR(b.hi[a], hi[a], tol) << "axis " << a;
    }
}

// --- the built-in box -------------------------------------------------------------------------

TEST(MakeBoxMesh, SixNamedClosedFaces) {
    const TriangleMesh m = make_box_mesh({6, 4, 3});
    EXPECT_EQ(m.vertices.size(), 8u);
    EXPECT_EQ(m.triangles.size(), 12u);
    std::set<std::string> names;
    for (const auto& g : m.groups) {
        names.insert(g.node);
        EXPECT_EQ(g.material, g.node);
        EXPECT_EQ(g.label(), g.node);
    }
    EXPECT_EQ(names, (std::set<std::string>{"floor", "ceiling", "wall_x0", "wall_x1", "wall_y0",
                                            "wall_y1"}));
    for (const auto& g : m.groups)
        EXPECT_EQ(triangles_in(m, g.node), 2u) << g.node;
    EXPECT_EQ(m.report.boundary_edges, 0u);
    EXPECT_EQ(m.report.non_manifold_edges, 0u);
    EXPECT_EQ(m.report.degenerate_removed, 0u);
    EXPECT_EQ(m.report.duplicates_removed, 0u);
    expect_bounds(m, {0, 0, 0}, {6, 4, 3});
    EXPECT_NEAR(m.enclosed_volume(), 72.0, 1e-9);
    EXPECT_NEAR(m.area(), 2 * (6 * 4 + 6 * 3 + 4 * 3), 1e-9);
    // The floor is the face at z = 0, the ceiling at z = 3.
    for (const auto& t : m.triangles) {
        const std::string& n = m.groups[t.group].node;
        for (uint32_t i : t.v) {
            if (n == "floor") {
                EXPECT_EQ(m.vertices[i].z, 0.0);
            }
            if (n == "ceiling") {
                EXPECT_EQ(m.vertices[i].z, 3.0);
            }
            if (n == "wall_x1") {
                EXPECT_EQ(m.vertices[i].x, 6.0);
            }
            if (n == "wall_y0") {
                EXPECT_EQ(m.vertices[i].y, 0.0);
            }
        }
    }
}

TEST(MakeBoxMesh, NormalsPointIntoTheRoom) {
    const TriangleMesh m = make_box_mesh({2, 3, 4});
    const Vec3 centre{1, 1.5, 2};
    for (const auto& t : m.triangles) {
        const Vec3 a = m.vertices[t.v[0]], b = m.vertices[t.v[1]], c = m.vertices[t.v[2]];
        const Vec3 n = cross(b - a, c - a);
        EXPECT_GT(dot(n, centre - a), 0) << m.groups[t.group].node;
    }
}

// --- OBJ --------------------------------------------------------------------------------------

TEST(ImportMesh, ObjGroupsBecomeSurfaceGroups) {
    ScratchDir dir;
    const auto file = dir.write("room.obj", box_obj({0, 0, 0}, {6, 4, 3}, kNodes, kMaterials));
    const TriangleMesh m = import_mesh(file, 1.0);
    ASSERT_EQ(m.groups.size(), 6u);
    for (size_t f = 0; f < 6; ++f) {
        const SurfaceGroup* g = find_group(m, kNodes[f]);
        ASSERT_NE(g, nullptr) << kNodes[f];
        EXPECT_EQ(g->material, kMaterials[f]) << kNodes[f];
        EXPECT_EQ(g->label(), kNodes[f] + "/" + kMaterials[f]);
        EXPECT_EQ(triangles_in(m, kNodes[f]), 2u) << kNodes[f];
    }
    EXPECT_EQ(m.triangles.size(), 12u);
    EXPECT_EQ(m.vertices.size(), 8u);  // welded
    EXPECT_EQ(m.report.input_triangles, 12u);
    EXPECT_EQ(m.report.boundary_edges, 0u);
    EXPECT_EQ(m.report.non_manifold_edges, 0u);
    expect_bounds(m, {0, 0, 0}, {6, 4, 3});
    EXPECT_NEAR(m.enclosed_volume(), 72.0, 1e-9);
}

TEST(ImportMesh, SameNodeAndMaterialShareAGroup) {
    ScratchDir dir;
    const std::array<std::string, 6> nodes = {"Floor", "Ceiling", "Walls",
                                              "Walls", "Walls",   "Walls"};
    const auto file = dir.write("room.obj", box_obj({0, 0, 0}, {6, 4, 3}, nodes, nodes));
    const TriangleMesh m = import_mesh(file, 1.0);
    std::set<std::string> labels;
    for (const auto& g : m.groups)
        labels.insert(g.label());
    EXPECT_EQ(labels, (std::set<std::string>{"Floor", "Ceiling", "Walls"}));
    EXPECT_EQ(m.groups.size(), 3u);
    EXPECT_EQ(triangles_in(m, "Walls"), 8u);
}

TEST(ImportMesh, ScaleIsApplied) {
    ScratchDir dir;
    // A 600 x 400 x 300 cm room.
    const auto file =
        dir.write("room.obj", box_obj({100, 0, -50}, {700, 400, 250}, kNodes, kMaterials));
    const TriangleMesh m = import_mesh(file, 0.01);
    expect_bounds(m, {1, 0, -0.5}, {7, 4, 2.5}, 1e-6);
    EXPECT_NEAR(m.enclosed_volume(), 72.0, 1e-6);
    const TriangleMesh mm = import_mesh(file, 10.0);
    expect_bounds(mm, {1000, 0, -500}, {7000, 4000, 2500}, 1e-3);
}

TEST(ImportMesh, DuplicateAndDegenerateTrianglesAreRemovedAndCounted) {
    ScratchDir dir;
    std::string obj = box_obj({0, 0, 0}, {2, 2, 2}, kNodes, kMaterials);  // vertices 1..24
    obj +=
        "o Junk\nusemtl junk\n"
        // Floor triangles again, once as written and once reversed: both duplicates.
        "v 0 0 0\nv 0 2 0\nv 2 2 0\nv 2 0 0\n"  // 25..28
        "f 25 26 27\nf 27 26 25\n"
        // A zero-area sliver (collinear corners) and a triangle with a repeated corner.
        "v 0 0 1\nv 1 0 1\nv 2 0 1\n"  // 29..31
        "f 29 30 31\nf 29 29 30\n";
    const auto file = dir.write("room.obj", obj);
    const TriangleMesh m = import_mesh(file, 1.0);
    EXPECT_EQ(m.report.input_triangles, 16u);
    EXPECT_EQ(m.report.duplicates_removed, 2u);
    EXPECT_EQ(m.report.degenerate_removed, 2u);
    EXPECT_EQ(m.triangles.size(), 12u);
    EXPECT_EQ(triangles_in(m, "Junk"), 0u);
    // What is left is the closed box.
    EXPECT_EQ(m.report.boundary_edges, 0u);
    EXPECT_EQ(m.report.non_manifold_edges, 0u);
    EXPECT_NEAR(m.enclosed_volume(), 8.0, 1e-9);
}

TEST(ImportMesh, OpenBoxHasBoundaryEdges) {
    ScratchDir dir;
    const auto file =
        dir.write("open.obj", box_obj({0, 0, 0}, {6, 4, 3}, kNodes, kMaterials, {1 /* ceiling */}));
    const TriangleMesh m = import_mesh(file, 1.0);
    EXPECT_EQ(m.triangles.size(), 10u);
    EXPECT_EQ(m.report.boundary_edges, 4u);  // the rim where the ceiling was
    EXPECT_EQ(m.report.non_manifold_edges, 0u);
    EXPECT_EQ(find_group(m, "Ceiling"), nullptr);
}

TEST(ImportMesh, FinOnAnEdgeIsNonManifold) {
    ScratchDir dir;
    std::string obj = box_obj({0, 0, 0}, {2, 2, 2}, kNodes, kMaterials);
    // A triangle hanging off the box's bottom edge along x at y = 0, z = 0.
    obj += "o Fin\nusemtl fin\nv 0 0 0\nv 2 0 0\nv 1 -1 -1\nf 25 26 27\n";
    const TriangleMesh m = import_mesh(dir.write("fin.obj", obj), 1.0);
    EXPECT_EQ(m.triangles.size(), 13u);
    EXPECT_EQ(m.report.non_manifold_edges, 1u);
    EXPECT_EQ(m.report.boundary_edges, 2u);
}

TEST(ImportMesh, QuadsAndPolygonsAreTriangulated) {
    ScratchDir dir;
    // A hexagon in the plane z = 0: four triangles.
    const auto file =
        dir.write("hex.obj",
                  "o Hex\nv 1 0 0\nv 0.5 0.8 0\nv -0.5 0.8 0\nv -1 0 0\nv -0.5 -0.8 0\n"
                  "v 0.5 -0.8 0\nf 1 2 3 4 5 6\n");
    const TriangleMesh m = import_mesh(file, 1.0);
    EXPECT_EQ(m.triangles.size(), 4u);
    EXPECT_EQ(m.report.boundary_edges, 6u);
    EXPECT_NEAR(m.area(), 2 * 0.8 * (2 + 1) / 2, 1e-6);
}

TEST(ImportMesh, EnclosedVolumeSubtractsFurnitureOrientedLikeTheRoom) {
    ScratchDir dir;
    // Room faces point into the room, the cabinet's point out of it: both face the air.
    std::string obj = box_obj({0, 0, 0}, {6, 4, 3}, kNodes, kMaterials, {}, /*inward=*/true);
    const std::array<std::string, 6> cab = {"Cab", "Cab", "Cab", "Cab", "Cab", "Cab"};
    obj += box_obj({1, 1, 0.5}, {2, 3, 2}, cab, cab, {}, /*inward=*/false, 25);
    const TriangleMesh m = import_mesh(dir.write("room.obj", obj), 1.0);
    EXPECT_EQ(m.triangles.size(), 24u);
    EXPECT_NEAR(m.enclosed_volume(), 72.0 - 1 * 2 * 1.5, 1e-9);
}

TEST(ImportMesh, EnclosedVolumeFarFromTheOrigin) {
    ScratchDir dir;
    const auto file = dir.write(
        "far.obj", box_obj({1e5, 2e5, 3e3}, {1e5 + 6, 2e5 + 4, 3e3 + 3}, kNodes, kMaterials));
    EXPECT_NEAR(import_mesh(file, 1.0).enclosed_volume(), 72.0, 1e-6);
}

TEST(ImportMesh, AsciiStl) {
    ScratchDir dir;
    const auto file = dir.write("room.stl", box_stl({0, 0, 0}, {6, 4, 3}, "room"));
    const TriangleMesh m = import_mesh(file, 1.0);
    EXPECT_EQ(m.triangles.size(), 12u);
    EXPECT_EQ(m.vertices.size(), 8u);  // STL repeats corners per facet; welding joins them
    EXPECT_EQ(m.report.boundary_edges, 0u);
    EXPECT_EQ(m.report.non_manifold_edges, 0u);
    EXPECT_GE(m.groups.size(), 1u);
    expect_bounds(m, {0, 0, 0}, {6, 4, 3}, 1e-6);
    EXPECT_NEAR(m.enclosed_volume(), 72.0, 1e-6);
    const TriangleMesh scaled = import_mesh(file, 0.5);
    EXPECT_NEAR(scaled.enclosed_volume(), 9.0, 1e-6);
}

TEST(ImportMesh, AsciiPly) {
    ScratchDir dir;
    const auto file = dir.write("room.ply", box_ply({0, 0, 0}, {6, 4, 3}));
    const TriangleMesh m = import_mesh(file, 1.0);
    EXPECT_EQ(m.triangles.size(), 12u);
    EXPECT_EQ(m.vertices.size(), 8u);
    EXPECT_EQ(m.report.boundary_edges, 0u);
    EXPECT_GE(m.groups.size(), 1u);
    expect_bounds(m, {0, 0, 0}, {6, 4, 3}, 1e-6);
    EXPECT_NEAR(m.enclosed_volume(), 72.0, 1e-6);
}

TEST(ImportMesh, ErrorsNameTheFile) {
    ScratchDir dir;
    auto expect_error = [](const std::filesystem::path& p, const std::string& why) {
        try {
            import_mesh(p, 1.0);
            ADD_FAILURE() << p << ": no error";
        } catch (const InputError& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(p.string()), std::string::npos) << msg;
            EXPECT_NE(msg.find(why), std::string::npos) << msg;
        }
    };
    expect_error(dir / "missing.obj", "not found");
    std::filesystem::create_directory(dir / "folder.obj");
    expect_error(dir / "folder.obj", "directory");
    expect_error(dir.write("empty.obj", ""), "empty");
    expect_error(dir.write("points.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n"), "");
    expect_error(dir.write("flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n"), "no triangles");
    expect_error(dir.write("prose.stl", "Dear reader,\nthis is no model.\n"), "");
    // A coordinate that overflows to infinity (float in Assimp, so 1e39 is enough).
    expect_error(dir.write("inf.obj", "v 1e39 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), "not finite");
}

TEST(LoadGeometry, BoxOrMeshFromTheScene) {
    ScratchDir dir;
    Scene s;
    s.geometry.box = Vec3{3, 2, 1};
    EXPECT_NEAR(load_geometry(s).enclosed_volume(), 6.0, 1e-12);

    Scene m;
    m.file = dir / "scene.json";
    m.geometry.mesh = dir.write("room.obj", box_obj({0, 0, 0}, {6, 4, 3}, kNodes, kMaterials));
    m.geometry.scale = 0.5;
    EXPECT_NEAR(load_geometry(m).enclosed_volume(), 9.0, 1e-9);

    // Errors are prefixed with the scene file and key.
    m.geometry.mesh = dir / "gone.obj";
    try {
        load_geometry(m);
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind((dir / "scene.json").string() + ": geometry.mesh: ", 0), 0u) << msg;
        EXPECT_NE(msg.find("gone.obj"), std::string::npos) << msg;
    }
}

// --- surfaces ---------------------------------------------------------------------------------

TEST(GlobMatch, Patterns) {
    EXPECT_TRUE(glob_match("*", "anything"));
    EXPECT_TRUE(glob_match("*", ""));
    EXPECT_TRUE(glob_match("Floor", "Floor"));
    EXPECT_FALSE(glob_match("Floor", "floor"));  // case matters
    EXPECT_FALSE(glob_match("Floor", "Floor2"));
    EXPECT_TRUE(glob_match("Floor*", "Floor"));
    EXPECT_TRUE(glob_match("Floor*", "Floor_01"));
    EXPECT_FALSE(glob_match("Floor*", "MainFloor"));
    EXPECT_TRUE(glob_match("*Floor*", "MainFloor_2"));
    EXPECT_TRUE(glob_match("Wall?", "Wall3"));
    EXPECT_FALSE(glob_match("Wall?", "Wall"));
    EXPECT_FALSE(glob_match("Wall?", "Wall12"));
    EXPECT_TRUE(glob_match("Wall[NS]", "WallN"));
    EXPECT_FALSE(glob_match("Wall[NS]", "WallE"));
    EXPECT_TRUE(glob_match("Wall[!NS]", "WallE"));
    EXPECT_TRUE(glob_match("Seat[0-9]*", "Seat7_left"));
    // Names with slashes (some exporters write paths) are matched as plain text.
    EXPECT_TRUE(glob_match("*", "Group/Sub"));
    EXPECT_TRUE(glob_match("Group*", "Group/Sub"));
}

Scene scene_with_surfaces(std::vector<SurfaceRule> rules) {
    Scene s;
    s.file = "scene.json";
    for (const char* name : {"plaster", "carpet", "glass", "wood"}) {
        Material m;
        m.name = name;
        s.materials.push_back(m);
    }
    s.surfaces = std::move(rules);
    return s;
}

TEST(MapSurfaces, FirstMatchInFileOrderWins) {
    const TriangleMesh mesh = make_box_mesh({6, 4, 3});  // node == material == face name
    const Scene s = scene_with_surfaces({{"floor", "carpet"},
                                         {"wall_x*", "glass"},
                                         {"*", "plaster"},
                                         {"ceiling", "wood"}});  // dead: "*" comes first
    const std::vector<int> map = map_surfaces(s, mesh);
    ASSERT_EQ(map.size(), mesh.groups.size());
    for (size_t g = 0; g < mesh.groups.size(); ++g) {
        const std::string& n = mesh.groups[g].node;
        const std::string expected = n == "floor"                ? "carpet"
                                     : n.rfind("wall_x", 0) == 0 ? "glass"
                                                                 : "plaster";
        EXPECT_EQ(s.materials[static_cast<size_t>(map[g])].name, expected) << n;
    }
    // The same rules in another order give another mapping.
    const Scene t = scene_with_surfaces({{"*", "plaster"}, {"floor", "carpet"}});
    for (int m : map_surfaces(t, mesh))
        EXPECT_EQ(m, 0);
}

TEST(MapSurfaces, PatternsMatchMaterialOrNodeName) {
    TriangleMesh mesh;
    mesh.groups = {{"Floor", "carpet_blue"}, {"Table", "oak"}, {"", "glass_pane"}, {"Door", ""}};
    const Scene s = scene_with_surfaces({{"carpet*", "carpet"},  // material name
                                         {"Table", "wood"},      // node name
                                         {"glass*", "glass"},    // material, no node
                                         {"Door", "wood"}});     // node, no material
    const std::vector<int> map = map_surfaces(s, mesh);
    ASSERT_EQ(map.size(), 4u);
    EXPECT_EQ(map[0], s.material_index("carpet"));
    EXPECT_EQ(map[1], s.material_index("wood"));
    EXPECT_EQ(map[2], s.material_index("glass"));
    EXPECT_EQ(map[3], s.material_index("wood"));

    // A rule matching the node wins over a later rule matching the material, and vice versa.
    const Scene u = scene_with_surfaces({{"Floor", "wood"}, {"carpet_blue", "carpet"}});
    EXPECT_EQ(map_surfaces(u, TriangleMesh{{}, {}, {{"Floor", "carpet_blue"}}, {}})[0],
              u.material_index("wood"));
    const Scene v = scene_with_surfaces({{"carpet_blue", "carpet"}, {"Floor", "wood"}});
    EXPECT_EQ(map_surfaces(v, TriangleMesh{{}, {}, {{"Floor", "carpet_blue"}}, {}})[0],
              v.material_index("carpet"));
}

TEST(MapSurfaces, UnmatchedGroupsAreAllListed) {
    TriangleMesh mesh;
    mesh.groups = {{"Floor", "carpet"}, {"Walls", "brick"}, {"Ceiling", ""}, {"Seats", "velvet"}};
    const Scene s = scene_with_surfaces({{"Floor", "carpet"}, {"Seat*", "wood"}});
    try {
        map_surfaces(s, mesh);
        FAIL() << "no error";
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind("scene.json: surfaces: 2 surface group(s)", 0), 0u) << msg;
        EXPECT_NE(msg.find("Walls/brick"), std::string::npos) << msg;
        EXPECT_NE(msg.find("Ceiling"), std::string::npos) << msg;
        EXPECT_EQ(msg.find("Floor"), std::string::npos) << msg;
        EXPECT_EQ(msg.find("Seats"), std::string::npos) << msg;
    }
}

TEST(MapSurfaces, ImportedObjWithStarFallback) {
    ScratchDir dir;
    const TriangleMesh mesh =
        import_mesh(dir.write("room.obj", box_obj({0, 0, 0}, {6, 4, 3}, kNodes, kMaterials)), 1.0);
    const Scene s =
        scene_with_surfaces({{"carpet", "carpet"}, {"glass", "glass"}, {"*", "plaster"}});
    const std::vector<int> map = map_surfaces(s, mesh);
    for (size_t g = 0; g < mesh.groups.size(); ++g) {
        const std::string& mat = mesh.groups[g].material;
        const std::string expected =
            mat == "carpet" ? "carpet" : (mat == "glass" ? "glass" : "plaster");
        EXPECT_EQ(s.materials[static_cast<size_t>(map[g])].name, expected)
            << mesh.groups[g].label();
    }
}

TEST(SurfaceGroupLabel, Forms) {
    EXPECT_EQ((SurfaceGroup{"Floor", "carpet"}).label(), "Floor/carpet");
    EXPECT_EQ((SurfaceGroup{"Floor", "Floor"}).label(), "Floor");
    EXPECT_EQ((SurfaceGroup{"Floor", ""}).label(), "Floor");
    EXPECT_EQ((SurfaceGroup{"", "carpet"}).label(), "carpet");
    EXPECT_EQ((SurfaceGroup{"", ""}).label(), "(unnamed)");
}

}  // namespace
}  // namespace ardent
