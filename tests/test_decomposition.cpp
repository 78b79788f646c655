// Decomposition invariants, checked by brute force over the grid: every air cell in exactly one
// partition, power-of-two sides, interfaces complete and consistent, colours race-free, PML slabs
// covering exactly the absorbing air-wall faces, and identical output on repeated runs. Run on
// synthetic rooms and on every bundled scene.
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "ardent/preprocess/decomposition.h"
#include "ardent/preprocess/grid.h"
#include "ardent/preprocess/preprocess.h"
#include "ardent/preprocess/scene_parser.h"
#include "ardent/preprocess/surface_map.h"
#include "mesh_builders.h"
#include "test_support.h"

namespace ardent {
namespace {

bool pow2(int n) {
    return n > 0 && std::has_single_bit(static_cast<unsigned>(n));
}

void check_invariants(const AirModel& air, const Scene& scene, const Decomposition& d,
                      PartitionSides sides = PartitionSides::Smooth) {
    const Grid& g = air.grid;
    // Partitions: allowed sides (a partition with a side that is not a power of two keeps every
    // side within kMaxSmoothPartitionSide), only air, no overlap, all air covered.
    std::vector<int32_t> seen(g.count(), -1);
    size_t covered = 0;
    for (int32_t p = 0; p < static_cast<int32_t>(d.partitions.size()); ++p) {
        const Partition& P = d.partitions[p];
        for (int a = 0; a < 3; ++a)
            ASSERT_TRUE(side_allowed(P.size[a], sides)) << "partition " << p;
        if (!pow2(P.size[0]) || !pow2(P.size[1]) || !pow2(P.size[2])) {
            ASSERT_LE(std::max({P.size[0], P.size[1], P.size[2]}), kMaxSmoothPartitionSide)
                << "partition " << p;
        }
        for (int k = 0; k < P.size[2]; ++k)
            for (int j = 0; j < P.size[1]; ++j)
                for (int i = 0; i < P.size[0]; ++i) {
                    const size_t idx = g.index(P.origin[0] + i, P.origin[1] + j, P.origin[2] + k);
                    ASSERT_TRUE(air.air[idx]) << "partition " << p << " holds a non-air cell";
                    ASSERT_EQ(seen[idx], -1)
                        << "partitions " << seen[idx] << " and " << p << " overlap";
                    seen[idx] = p;
                    ++covered;
                }
    }
    ASSERT_EQ(covered, air.air_cells);
    ASSERT_EQ(seen, d.owner);
    // No partition reaches across a thin face (air.h): its DCT would carry sound through it.
    for (const ThinFace& f : air.thin_faces)
        ASSERT_NE(d.owner[f.cell], d.owner[f.cell - g.stride(f.axis)])
            << "a partition holds the thin face at " << f.cell << " (axis " << f.axis << ")";

    // Interfaces: each air-air face between two partitions is in exactly one interface of the
    // right axis, with left below and right above; each interface's faces are such faces.
    std::map<std::pair<size_t, int>, int> face_use;  // (cell above, axis) -> count
    for (const Interface& f : d.interfaces) {
        const int u = (f.axis + 1) % 3, v = (f.axis + 2) % 3;
        ASSERT_LT(f.lo[u], f.hi[u]);
        ASSERT_LT(f.lo[v], f.hi[v]);
        ASSERT_EQ(f.depth_left, std::min(3, d.partitions[f.left].size[f.axis]));
        ASSERT_EQ(f.depth_right, std::min(3, d.partitions[f.right].size[f.axis]));
        for (int jv = f.lo[v]; jv < f.hi[v]; ++jv)
            for (int ju = f.lo[u]; ju < f.hi[u]; ++ju) {
                Index3 c;
                c[f.axis] = f.plane;
                c[u] = ju;
                c[v] = jv;
                const size_t above = g.index(c);
                ASSERT_EQ(d.owner[above], f.right);
                ASSERT_EQ(d.owner[above - g.stride(f.axis)], f.left);
                ++face_use[{above, f.axis}];
            }
    }
    size_t faces = 0;
    for (size_t idx = 0; idx < g.count(); ++idx) {
        if (d.owner[idx] < 0) continue;
        const Index3 c = g.coords(idx);
        for (int a = 0; a < 3; ++a) {
            if (c[a] == 0) continue;
            const int32_t below = d.owner[idx - g.stride(a)];
            if (below < 0 || below == d.owner[idx]) continue;
            ++faces;
            auto it = face_use.find({idx, a});
            ASSERT_TRUE(it != face_use.end()) << "air face without an interface";
            ASSERT_EQ(it->second, 1);
        }
    }
    ASSERT_EQ(faces, face_use.size());

    // Colours: interfaces of one axis and colour never write the same cell.
    for (int a = 0; a < 3; ++a) {
        std::map<int, std::set<size_t>> written;
        for (const Interface& f : d.interfaces) {
            if (f.axis != a) continue;
            const int u = (a + 1) % 3, v = (a + 2) % 3;
            auto& cells = written[f.color];
            for (int jv = f.lo[v]; jv < f.hi[v]; ++jv)
                for (int ju = f.lo[u]; ju < f.hi[u]; ++ju)
                    for (int s = -f.depth_left; s < f.depth_right; ++s) {
                        Index3 c;
                        c[a] = f.plane + s;
                        c[u] = ju;
                        c[v] = jv;
                        ASSERT_TRUE(cells.insert(g.index(c)).second)
                            << "two interfaces of axis " << a << " colour " << f.color
                            << " write the same cell";
                    }
        }
    }
    // Interfaces come sorted by axis then colour (the solver runs them as batches).
    for (size_t i = 1; i < d.interfaces.size(); ++i) {
        const auto& x = d.interfaces[i - 1];
        const auto& y = d.interfaces[i];
        ASSERT_TRUE(x.axis < y.axis || (x.axis == y.axis && x.color <= y.color));
    }

    // PML: every air-wall face is either rigid or in exactly one slab of its material.
    std::map<std::pair<size_t, int>, int> slab_use;  // (air cell, direction 0..5)
    for (const PmlSlab& s : d.pml) {
        const Partition& P = d.partitions[s.partition];
        const int u = (s.axis + 1) % 3, v = (s.axis + 2) % 3;
        ASSERT_EQ(s.lo[s.axis],
                  s.side < 0 ? P.origin[s.axis] : P.origin[s.axis] + P.size[s.axis] - 1);
        ASSERT_GE(s.depth, 5);
        for (int jv = s.lo[v]; jv < s.hi[v]; ++jv)
            for (int ju = s.lo[u]; ju < s.hi[u]; ++ju) {
                Index3 c;
                c[s.axis] = s.lo[s.axis];
                c[u] = ju;
                c[v] = jv;
                ASSERT_EQ(d.owner[g.index(c)], s.partition);
                Index3 o = c;
                o[s.axis] += s.side;
                // Non-air, or air across a thin face.
                ASSERT_TRUE(!air.air[g.index(o)] ||
                            (air.blocked_links(g.index(c)) >> (2 * s.axis + (s.side > 0)) & 1));
                ASSERT_EQ(air.face_material(g.index(c), g.index(o)), s.material);
                ++slab_use[{g.index(c), 2 * s.axis + (s.side > 0)}];
            }
    }
    size_t wall_faces = 0, absorbing = 0;
    for (size_t idx = 0; idx < g.count(); ++idx) {
        if (!air.air[idx]) continue;
        for (int dir = 0; dir < 6; ++dir) {
            const int a = dir / 2;
            const size_t o = dir % 2 ? idx + g.stride(a) : idx - g.stride(a);
            if (air.air[o] && !(air.blocked_links(idx) >> dir & 1)) continue;
            ++wall_faces;
            const int m = air.face_material(idx, o);
            ASSERT_GE(m, 0) << "a wall face without a material";
            if (scene.materials[m].mean_absorption() > 0) {
                ++absorbing;
                ASSERT_EQ(slab_use[std::make_pair(idx, dir)], 1);
            }
        }
    }
    ASSERT_EQ(wall_faces, air.boundary_faces + 2 * air.thin_faces.size());  // both sides
    ASSERT_EQ(absorbing + d.rigid_faces, wall_faces);
    size_t slab_faces = 0;
    for (const auto& s : d.pml)
        slab_faces += s.faces();
    ASSERT_EQ(slab_faces, absorbing);
}

void expect_identical(const Decomposition& a, const Decomposition& b) {
    ASSERT_EQ(a.partitions.size(), b.partitions.size());
    for (size_t i = 0; i < a.partitions.size(); ++i) {
        ASSERT_EQ(a.partitions[i].origin, b.partitions[i].origin);
        ASSERT_EQ(a.partitions[i].size, b.partitions[i].size);
    }
    ASSERT_EQ(a.interfaces.size(), b.interfaces.size());
    for (size_t i = 0; i < a.interfaces.size(); ++i) {
        ASSERT_EQ(a.interfaces[i].lo, b.interfaces[i].lo);
        ASSERT_EQ(a.interfaces[i].left, b.interfaces[i].left);
        ASSERT_EQ(a.interfaces[i].color, b.interfaces[i].color);
    }
    ASSERT_EQ(a.pml.size(), b.pml.size());
    ASSERT_EQ(a.pml_cells(), b.pml_cells());
    ASSERT_EQ(a.rigid_faces, b.rigid_faces);
    ASSERT_EQ(a.owner, b.owner);
}

struct Room {
    Scene scene;
    TriangleMesh mesh;
    AirModel air;
};

Room make_room(const std::function<void(TriangleMesh&)>& build, Vec3 source, double h,
               double alpha) {
    Room r;
    build(r.mesh);
    r.mesh.clean();
    r.scene = test::simple_scene(source, 343.0 / (2.6 * h), alpha);
    r.air = build_air_model(r.scene, r.mesh, map_surfaces(r.scene, r.mesh),
                            make_grid(r.mesh.bounds(), h, 2));
    return r;
}

TEST(Decomposition, PowerOfTwoBoxIsOnePartition) {
    const double h = 0.125;
    Room r = make_room(
        [](TriangleMesh& m) {
            test::add_box(m, {0, 0, 0}, {4, 2, 1}, "room", true);
        },
        {1, 1, 0.5}, h, 0.2);
    const Decomposition d = decompose(r.air, r.scene);
    ASSERT_EQ(d.partitions.size(), 1u);
    EXPECT_EQ(d.partitions[0].size, (Index3{32, 16, 8}));
    EXPECT_TRUE(d.interfaces.empty());
    // Six sides, all absorbing: one slab each.
    EXPECT_EQ(d.pml.size(), 6u);
    EXPECT_EQ(d.pml_cells(), 2u * (32 * 16 + 16 * 8 + 32 * 8) * static_cast<size_t>(d.pml_depth));
    check_invariants(r.air, r.scene, d);
}

TEST(Decomposition, RigidWallsGetNoPml) {
    const double h = 0.125;
    Room r = make_room(
        [](TriangleMesh& m) {
            test::add_box(m, {0, 0, 0}, {2, 1, 1}, "room", true);
        },
        {1, 0.5, 0.5}, h, 0.0);
    const Decomposition d = decompose(r.air, r.scene);
    EXPECT_TRUE(d.pml.empty());
    EXPECT_EQ(d.rigid_faces, r.air.boundary_faces);
    check_invariants(r.air, r.scene, d);
}

TEST(Decomposition, OddBoxHasSeveralPartitionsAndConsistentInterfaces) {
    const double h = 0.1;
    Room r = make_room(
        [](TriangleMesh& m) {
            test::add_box(m, {0, 0, 0}, {2.3, 1.7, 1.1}, "room", true);
        },
        {1, 1, 0.5}, h, 0.3);
    const Decomposition d = decompose(r.air, r.scene);
    EXPECT_GT(d.partitions.size(), 4u);
    EXPECT_GT(d.interfaces.size(), 4u);
    for (int a = 0; a < 3; ++a)
        EXPECT_GT(d.interfaces_on_axis(a), 0u);
    check_invariants(r.air, r.scene, d);
    expect_identical(d, decompose(r.air, r.scene));
}

TEST(Decomposition, ThinPartitionsGetSeparateInterfaceColours) {
    // 5 cells wide along x with power-of-two sides: at most 4 + 1, so a 1-wide partition sits
    // between two interfaces.
    const double h = 0.1;
    Room r = make_room(
        [](TriangleMesh& m) {
            test::add_box(m, {0, 0, 0}, {0.5, 0.4, 0.4}, "room", true);
        },
        {0.25, 0.2, 0.2}, h, 0.3);
    DecompositionOptions o;
    o.sides = PartitionSides::PowerOfTwo;
    const Decomposition d = decompose(r.air, r.scene, o);
    EXPECT_EQ(d.thinnest_partition(), 1);
    check_invariants(r.air, r.scene, d, o.sides);
}

// Boxes whose sides (in cells) are not smooth numbers: power-of-two sides leave 1- and 2-cell
// slabs, smooth sides none (every length from 3 up is a sum of smooth lengths >= 3, e.g.
// 13 = 9 + 4, 37 = 32 + 5), and the air-line statistics `ardent info` reports say so.
TEST(Decomposition, SmoothSidesLeaveNoThinSlabsInBoxes) {
    const double h = 0.1;
    for (const Index3 n : {Index3{13, 7, 11}, Index3{37, 23, 14}, Index3{29, 19, 17},
                           Index3{43, 31, 26}, Index3{70, 67, 11}}) {
        SCOPED_TRACE(std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" +
                     std::to_string(n[2]));
        Room r = make_room(
            [&](TriangleMesh& m) {
                test::add_box(m, {0, 0, 0}, {n[0] * h, n[1] * h, n[2] * h}, "room", true);
            },
            {0.25, 0.25, 0.25}, h, 0.0);
        ASSERT_EQ(r.air.air_cells, static_cast<size_t>(n[0]) * n[1] * n[2]);
        const Decomposition smooth = decompose(r.air, r.scene);
        check_invariants(r.air, r.scene, smooth);
        EXPECT_GE(smooth.thinnest_partition(), 3);
        EXPECT_EQ(air_lines_touching_thin(smooth, r.air.grid).touching_thin, 0u);
        DecompositionOptions o;
        o.sides = PartitionSides::PowerOfTwo;
        const Decomposition pow2_sides = decompose(r.air, r.scene, o);
        check_invariants(r.air, r.scene, pow2_sides, o.sides);
        EXPECT_LE(pow2_sides.thinnest_partition(), 2);
        const AirLineStats lines = air_lines_touching_thin(pow2_sides, r.air.grid);
        EXPECT_EQ(lines.lines, static_cast<size_t>(n[0] * n[1] + n[1] * n[2] + n[0] * n[2]));
        EXPECT_GT(lines.touching_thin, 0u);
    }
}

TEST(Decomposition, FurnishedRotatedRoom) {
    const double h = 0.1;
    Room r = make_room(
        [](TriangleMesh& m) {
            test::add_box(m, {0, 0, 0}, {3.3, 2.9, 2.1}, "room", true, 2);
            test::add_box(m, {0.4, 0.5, 0}, {1.3, 1.2, 0.8}, "table");
            test::rotate(m, {1.6, 1.4, 1}, 0.3, 0.1);
        },
        {2.2, 2.0, 1.2}, h, 0.25);
    const Decomposition d = decompose(r.air, r.scene);
    check_invariants(r.air, r.scene, d);
    expect_identical(d, decompose(r.air, r.scene));
}

// Thin faces (air.h): a partition wall a few millimetres to centimetres thick with a doorway,
// and a cloud hanging below the ceiling, rotated so that their faces cross the grid's links at
// every angle; thickness and rotation from seeds. Partitions stop at the thin faces, which are
// walls (PML slabs where they absorb) on both sides.
TEST(Decomposition, ThinFacesSplitPartitions) {
    for (const unsigned seed : {331u, 332u, 333u}) {
        std::mt19937 rng(seed);
        auto uniform = [&rng](double lo, double hi) {
            return std::uniform_real_distribution<double>(lo, hi)(rng);
        };
        const double h = 0.1, thick = uniform(0.004, 0.04), rz = uniform(-0.3, 0.3);
        const double x = uniform(1.5, 1.8);
        Room r = make_room(
            [&](TriangleMesh& m) {
                test::add_box(m, {0, 0, 0}, {3.4, 2.8, 2.2}, "room", true, 2);
                test::add_box(m, {x, 0, 0}, {x + thick, 2.0, 2.2}, "partition");
                test::add_box(m, {0.4, 0.4, 1.8}, {1.3, 1.4, 1.8 + thick}, "cloud");
                test::rotate(m, {1.7, 1.4, 1.1}, rz, 0.05);
            },
            {0.8, 1.0, 1.0}, h, 0.25);
        std::printf(
            "seed %u: partition at x %.3f m, %.4f m thick, rotated %.3f rad: %zu thin "
            "faces\n",
            seed, x, thick, rz, r.air.thin_faces.size());
        ASSERT_GT(r.air.thin_faces.size(), 100u) << "seed " << seed;
        const Decomposition d = decompose(r.air, r.scene);
        check_invariants(r.air, r.scene, d);
        expect_identical(d, decompose(r.air, r.scene));
    }
}

// The box search measures cubes ahead on all cores and takes them in order (box_finder.cpp): the
// boxes must be those of one thread, whatever the number of threads. Rooms with furniture and a
// thin partition, all drawn from seeds, on 1, 2, 3 and 7 threads.
TEST(Decomposition, SameBoxesOnAnyNumberOfThreads) {
    const int threads_before = omp_get_max_threads();
    for (const unsigned seed : {411u, 412u, 413u}) {
        std::mt19937 rng(seed);
        auto uniform = [&rng](double lo, double hi) {
            return std::uniform_real_distribution<double>(lo, hi)(rng);
        };
        const Vec3 room{uniform(2.5, 4.0), uniform(2.0, 3.5), uniform(1.8, 2.6)};
        const double h = 0.04, thick = uniform(0.004, 0.03), rz = uniform(-0.3, 0.3);
        const double wall_x = uniform(0.4, 0.6) * room.x;
        std::vector<std::pair<Vec3, Vec3>> furniture;
        for (int n = 0; n < 6; ++n) {
            const Vec3 lo{uniform(0, room.x - 0.5), uniform(0, room.y - 0.5), 0};
            furniture.push_back(
                {lo, {lo.x + uniform(0.2, 0.9), lo.y + uniform(0.2, 0.9), uniform(0.3, 1.2)}});
        }
        Room r = make_room(
            [&](TriangleMesh& m) {
                test::add_box(m, {0, 0, 0}, room, "room", true, 2);
                test::add_box(m, {wall_x, 0, 0}, {wall_x + thick, 0.7 * room.y, room.z},
                              "partition");
                for (const auto& [lo, hi] : furniture)
                    test::add_box(
                        m, lo, {std::min(hi.x, room.x - 0.05), std::min(hi.y, room.y - 0.05), hi.z},
                        "table");
                test::rotate(m, {room.x / 2, room.y / 2, room.z / 2}, rz, 0.05);
            },
            {0.3 * room.x, 0.8 * room.y, 0.5 * room.z}, h, 0.25);
        std::vector<Decomposition> runs;
        for (const int threads : {1, 2, 3, 7}) {
            omp_set_num_threads(threads);
            runs.push_back(decompose(r.air, r.scene));
        }
        omp_set_num_threads(threads_before);
        std::printf(
            "seed %u: room %.2f x %.2f x %.2f m, partition %.4f m thick at x %.2f m, "
            "rotated %.3f rad: %zu air cells, %zu thin faces, %zu partitions\n",
            seed, room.x, room.y, room.z, thick, wall_x, rz, r.air.air_cells,
            r.air.thin_faces.size(), runs[0].partitions.size());
        check_invariants(r.air, r.scene, runs[0]);
        for (size_t n = 1; n < runs.size(); ++n) {
            SCOPED_TRACE("seed " + std::to_string(seed) + ", run " + std::to_string(n));
            expect_identical(runs[0], runs[n]);
        }
    }
}

TEST(Decomposition, EveryBundledScene) {
    const auto dir = test::source_dir() / "data" / "scenes";
    if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no data/scenes folder";
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty());
    for (const auto& f : files) {
        SCOPED_TRACE(f.filename().string());
        Scene s = load_scene(f);
        // The brute-force checks are O(cells log cells): keep the grids small.
        s.simulation.max_frequency = std::min(s.simulation.max_frequency, 500.0);
        const Preprocessed p = preprocess(s);
        check_invariants(p.air, p.scene, p.decomposition);
        expect_identical(p.decomposition, decompose(p.air, p.scene));
    }
}

}  // namespace
}  // namespace ardent
