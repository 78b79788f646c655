// Voxelizer: exactness on grid-aligned boxes (rays through shared edges), volume accuracy on
// rotated boxes, and robustness to duplicate triangles, holes and furniture touching walls.
#include <gtest/gtest.h>

#include <cmath>

#include "ardent/preprocess/air.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/grid.h"
#include "ardent/preprocess/surface_map.h"
#include "ardent/preprocess/voxelize.h"
#include "mesh_builders.h"

namespace ardent {
namespace {

using test::add_box;

size_t count_inside(const TriangleMesh& m, const Grid& g) {
    const Classification c = classify_cells(m, g);
    return static_cast<size_t>(std::count(c.inside.begin(), c.inside.end(), 1));
}

TEST(Voxelize, GridAlignedCubeIsExactEvenWhenRaysHitDiagonalEdges) {
    // Square faces: every column centre (i+0.5, i+0.5) lies exactly on a face diagonal.
    const double h = 0.25;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {8 * h, 8 * h, 8 * h}, "room", true);
    m.clean();
    const Grid g = make_grid(m.bounds(), h, 2);
    EXPECT_EQ(g.dims[0], 12);
    EXPECT_EQ(count_inside(m, g), 8u * 8u * 8u);
}

TEST(Voxelize, SubdividedFacesCountEachCrossingOnce) {
    // 5 x 5 quads per face with vertices on cell centres' rays at several places.
    const double h = 0.1;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {1.0, 1.0, 1.0}, "room", true, 5);
    m.clean();
    const Grid g = make_grid(m.bounds(), h, 2);
    EXPECT_EQ(count_inside(m, g), 1000u);
    EXPECT_EQ(m.report.boundary_edges, 0u);
}

TEST(Voxelize, RotatedBoxVolumeWithinHalfALayer) {
    const double h = 0.1;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {4.1, 2.7, 3.3}, "room", true, 3);
    test::rotate(m, {2, 1.3, 1.6}, 0.52, 0.31);
    m.clean();
    const Grid g = make_grid(m.bounds(), h, 2);
    const double v = static_cast<double>(count_inside(m, g)) * h * h * h;
    const double exact = 4.1 * 2.7 * 3.3;
    EXPECT_NEAR(m.enclosed_volume(), exact, 1e-9);
    EXPECT_LE(std::abs(v - exact), m.area() * h / 2) << v << " vs " << exact;
}

TEST(Voxelize, DuplicateTrianglesAreRemovedAndDoNotCancel) {
    const double h = 0.2;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {2, 2, 2}, "room", true);
    add_box(m, {0, 0, 0}, {2, 2, 2}, "room", false);  // same triangles, opposite winding
    m.triangles.push_back({{0, 0, 1}, 0});            // degenerate
    m.clean();
    EXPECT_EQ(m.report.duplicates_removed, 12u);
    EXPECT_EQ(m.report.degenerate_removed, 1u);
    const Grid g = make_grid(m.bounds(), h, 2);
    EXPECT_EQ(count_inside(m, g), 1000u);
}

TEST(Voxelize, SmallHoleIsBridgedByTheVote) {
    const double h = 0.1;
    TriangleMesh m;
    // One 0.2 m square missing from the wall at x = 0.
    add_box(m, {0, 0, 0}, {2, 2, 2}, "room", true, 10,
            [](int face, int qu, int qv) { return face == 0 && qu == 4 && qv == 6; });
    m.clean();
    EXPECT_GT(m.report.boundary_edges, 0u);
    const Grid g = make_grid(m.bounds(), h, 2);
    const Classification c = classify_cells(m, g);
    EXPECT_GT(c.odd_rays[0], 0u);
    EXPECT_EQ(std::count(c.inside.begin(), c.inside.end(), 1), 8000);

    Scene s = test::simple_scene({1, 1, 1}, 343.0 / (2.6 * h));
    const AirModel air = build_air_model(s, m, map_surfaces(s, m), g);
    EXPECT_EQ(air.air_cells, 8000u);
    EXPECT_EQ(air.uncovered_faces, 0u);  // two cells wide: within the surface band
}

TEST(Voxelize, FurnitureTouchingTheFloorIsSolidEvenWithoutABottom) {
    const double h = 0.1;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {3, 2, 2}, "room", true);
    // A closed cabinet standing on the floor and a table-like block with no bottom face.
    add_box(m, {0.5, 0.5, 0}, {1.0, 1.0, 1.0}, "cabinet");
    add_box(m, {1.7, 0.6, 0}, {2.5, 1.4, 0.7}, "block", false, 1,
            [](int face, int, int) { return face == 4; });  // face 4: z = lo
    m.clean();
    EXPECT_GT(m.report.non_manifold_edges + m.report.boundary_edges, 0u);
    const Grid g = make_grid(m.bounds(), h, 2);
    const double v = static_cast<double>(count_inside(m, g)) * h * h * h;
    const double exact = 3 * 2 * 2 - 0.5 * 0.5 * 1.0 - 0.8 * 0.8 * 0.7;
    EXPECT_NEAR(v, exact, 1e-6);
}

TEST(Voxelize, OpenMeshIsRejectedWithThePlace) {
    const double h = 0.1;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {2, 2, 2}, "room", true, 1,
            [](int face, int, int) { return face == 5; });  // no ceiling
    m.clean();
    const Grid g = make_grid(m.bounds(), h, 2);
    Scene s = test::simple_scene({1, 1, 1}, 343.0 / (2.6 * h));
    try {
        build_air_model(s, m, map_surfaces(s, m), g);
        FAIL() << "an open box was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("open"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("2.00)"), std::string::npos) << e.what();
    }
}

TEST(Voxelize, BoundaryCellsTakeTheNearestSurfaceMaterial) {
    const double h = 0.1;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {1, 1, 1}, "room", true);
    m.groups[0] = {"walls", "walls"};
    // Re-label the two floor triangles (face 4 = z lo) as "floor".
    m.groups.push_back({"floor", "floor"});
    m.triangles[8].group = m.triangles[9].group = 1;
    m.clean();
    Scene s = test::simple_scene({0.5, 0.5, 0.5}, 343.0 / (2.6 * h));
    Material carpet;
    carpet.name = "carpet";
    carpet.set_uniform(0.4);
    s.materials.push_back(carpet);
    s.surfaces.insert(s.surfaces.begin(), {"floor", "carpet"});
    const Grid g = make_grid(m.bounds(), h, 2);
    const AirModel air = build_air_model(s, m, map_surfaces(s, m), g);
    EXPECT_EQ(air.air_cells, 1000u);
    EXPECT_EQ(air.boundary_cells, 1000u - 8u * 8u * 8u);
    EXPECT_EQ(air.uncovered_faces, 0u);
    // Cell (5, 5, 0) of the room sits on the floor; (5, 5, 9) under the ceiling.
    const size_t floor_cell = g.index(2 + 5, 2 + 5, 2 + 0);
    const size_t ceiling_cell = g.index(2 + 5, 2 + 5, 2 + 9);
    EXPECT_EQ(air.material[floor_cell], 1);
    EXPECT_EQ(air.material[ceiling_cell], 0);
    // The face below the floor cell is carpet, whatever the corner cells say.
    EXPECT_EQ(air.face_material(floor_cell, floor_cell - g.stride(2)), 1);
}

TEST(Voxelize, SourceSnapsToTheNearestAirCellCentre) {
    const double h = 0.1;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {1, 1, 1}, "room", true);
    m.clean();
    Scene s = test::simple_scene({0.52, 0.33, 0.999}, 343.0 / (2.6 * h));
    const Grid g = make_grid(m.bounds(), h, 2);
    const AirModel air = build_air_model(s, m, map_surfaces(s, m), g);
    EXPECT_NEAR(air.sources[0].cell_centre.x, 0.55, 1e-9);
    EXPECT_NEAR(air.sources[0].cell_centre.y, 0.35, 1e-9);
    EXPECT_NEAR(air.sources[0].cell_centre.z, 0.95, 1e-9);
}

// A scene built in code (the editor's, once its only source is removed) reaches preprocessing
// with no source: the air model, which floods from the first source, refuses it as the scene
// reader would (it indexed the first source and crashed the editor).
TEST(Voxelize, SceneWithoutSourcesIsRefusedWithTheReadersMessage) {
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {2, 2, 2}, "room", true);
    m.clean();
    Scene s = test::simple_scene({1, 1, 1}, 343.0 / (2.6 * 0.1));
    s.sources.clear();
    const Grid g = make_grid(m.bounds(), 0.1, 2);
    try {
        build_air_model(s, m, map_surfaces(s, m), g);
        FAIL() << "a scene without sources was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("sources: define at least one source"),
                  std::string::npos)
            << e.what();
    }
}

// A room made of closed solids (slabs, walls, a 2 cm window pane in a wall opening), the way many
// architectural models are built: the air is the cavity between them.
TriangleMesh slab_room() {
    TriangleMesh m;
    add_box(m, {-0.2, -0.2, -0.2}, {4.2, 3.2, 0}, "floor");
    add_box(m, {-0.2, -0.2, 2.5}, {4.2, 3.2, 2.7}, "ceiling");
    add_box(m, {-0.2, -0.2, 0}, {0, 3.2, 2.5}, "walls");
    add_box(m, {4, -0.2, 0}, {4.2, 3.2, 2.5}, "walls");
    add_box(m, {0, -0.2, 0}, {4, 0, 2.5}, "walls");
    add_box(m, {0, 3, 0}, {4, 3.2, 1}, "walls");
    add_box(m, {0, 3, 2}, {4, 3.2, 2.5}, "walls");
    add_box(m, {0, 3, 1}, {1.5, 3.2, 2}, "walls");
    add_box(m, {2.5, 3, 1}, {4, 3.2, 2}, "walls");
    add_box(m, {1.5, 3.09, 1}, {2.5, 3.11, 2}, "window");
    m.clean();
    return m;
}

TEST(Voxelize, CavityBetweenClosedSolidsIsClosedByAThinPane) {
    const double h = 0.1;
    const TriangleMesh m = slab_room();
    Scene s = test::simple_scene({2, 1.5, 1.2}, 343.0 / (2.6 * h));
    const AirModel air = build_air_model(s, m, map_surfaces(s, m), make_grid(m.bounds(), h, 2));
    EXPECT_TRUE(air.cavity);
    // The window recess (0.9 m deep up to the pane, 1 m x 1 m) adds to the 4 x 3 x 2.5 m room.
    const double exact = 4 * 3 * 2.5 + 1.0 * 1.0 * 0.09;
    EXPECT_NEAR(air.air_volume(), exact, 0.1 * 0.1 * 0.1 * 100);
    EXPECT_NEAR(air.mesh_volume, exact, 0.01 * exact);
}

TEST(Voxelize, SourceInsideAClosedCabinetIsRejected) {
    const double h = 0.1;
    TriangleMesh m;
    add_box(m, {0, 0, 0}, {3, 3, 2.5}, "room", true);
    add_box(m, {0.5, 0.5, 0}, {1.5, 1.5, 1.5}, "cabinet");
    m.clean();
    Scene s = test::simple_scene({1.0, 1.0, 0.8}, 343.0 / (2.6 * h));
    try {
        build_air_model(s, m, map_surfaces(s, m), make_grid(m.bounds(), h, 2));
        FAIL() << "a source inside a cabinet was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("inside a wall, slab or closed object"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("S1"), std::string::npos) << e.what();
    }
}

TEST(Voxelize, SourceOutsideACavityRoomIsRejected) {
    const double h = 0.1;
    const TriangleMesh m = slab_room();
    Scene s = test::simple_scene({0, 0, 0}, 343.0 / (2.6 * h));
    s.sources[0].position = {-0.1, 1.5, -0.15};  // inside the floor slab: a wall, not air
    try {
        build_air_model(s, m, map_surfaces(s, m), make_grid(m.bounds(), h, 2));
        FAIL() << "a source inside a slab was accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("inside a wall, slab"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace ardent
