#include "ardent/preprocess/air.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <limits>
#include <tuple>

#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/number_text.h"
#include "enclosed_region.h"
#include "run_components.h"
#include "thread_share.h"

namespace ardent {
namespace {

std::string fmt(Vec3 p) {
    return point_text(p.x, p.y, p.z, 2);
}

std::string fmt_m(double d) {
    return number_text(d, 2) + " m";
}

constexpr int kNeighbour[6][3] = {{-1, 0, 0}, {1, 0, 0},  {0, -1, 0},
                                  {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};

Index3 step(Index3 c, int n) {
    return {c[0] + kNeighbour[n][0], c[1] + kNeighbour[n][1], c[2] + kNeighbour[n][2]};
}

// Nearest cell centre with flag set, by brute force (only used to word an error message).
bool nearest_flagged(const Grid& g, const std::vector<uint8_t>& flag, Vec3 p, Vec3& where) {
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < flag.size(); ++i) {
        if (!flag[i]) continue;
        const Vec3 c = g.centre(g.coords(i));
        const double d = dot(c - p, c - p);
        if (d < best) {
            best = d;
            where = c;
        }
    }
    return std::isfinite(best);
}

// Snaps an emitter to the cell containing it or, failing that, the nearest flagged cell within
// one cell; otherwise says where it is and where the nearest air is.
PlacedEmitter place(const Scene& scene, const Emitter& e, const char* kind, const Grid& g,
                    const Box3& model, const std::vector<uint8_t>& flag) {
    const std::string who =
        scene.display_name() + ": " + kind + " \"" + e.name + "\" at " + fmt(e.position);
    const ErrorSubject subject{scene.display_name(), std::string(kind) + "s", e.name};
    if (!model.contains(e.position)) {
        throw InputError(who + " is outside the model, which spans x " + fmt_m(model.lo.x) +
                             " to " + fmt_m(model.hi.x) + ", y " + fmt_m(model.lo.y) + " to " +
                             fmt_m(model.hi.y) + ", z " + fmt_m(model.lo.z) + " to " +
                             fmt_m(model.hi.z),
                         subject);
    }
    const Index3 c = g.cell_of(e.position);
    double best = std::numeric_limits<double>::infinity();
    Index3 pick{};
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const Index3 n{c[0] + dx, c[1] + dy, c[2] + dz};
                if (!g.contains(n) || !flag[g.index(n)]) continue;
                const Vec3 d = g.centre(n) - e.position;
                const double dd = dot(d, d) + ((dx | dy | dz) != 0 ? 0.0 : -1.0);  // own cell first
                if (dd < best) {
                    best = dd;
                    pick = n;
                }
            }
    if (std::isfinite(best) && norm(g.centre(pick) - e.position) <= g.h) {
        return {e.name, e.position, pick, g.centre(pick)};
    }
    Vec3 near;
    if (nearest_flagged(g, flag, e.position, near)) {
        throw InputError(who +
                             " is not in the room's air: it is inside a wall or an object, or "
                             "outside the room (the nearest air is at " +
                             fmt(near) + ", " + fmt_m(norm(near - e.position)) + " away)",
                         subject);
    }
    throw InputError(who + " is not in any air: the model encloses no air at this resolution",
                     subject);
}

// Where the air seeded at `seed` first reaches the grid's edge, in the serial flood fill's order
// (breadth first, neighbours -x +x -y +y -z +z): the place an error message names. Only called
// once the air is known to leak.
Vec3 first_leak(const Grid& g, const std::vector<uint8_t>& inside,
                const std::vector<uint8_t>& walls, size_t seed) {
    std::vector<uint8_t> seen(g.count(), 0);
    std::vector<size_t> queue{seed};
    seen[seed] = 1;
    for (size_t head = 0; head < queue.size(); ++head) {
        const Index3 c = g.coords(queue[head]);
        if (g.on_edge(c)) return g.centre(c);
        for (int n = 0; n < 6; ++n) {
            const Index3 d = step(c, n);
            if (!g.contains(d)) continue;
            const size_t j = g.index(d);
            // Never through a surface: the wall bit sits on the cell at the +1 side of the pair.
            if (walls[n % 2 ? j : queue[head]] & (1 << (n / 2))) continue;
            if (inside[j] && !seen[j]) {
                seen[j] = 1;
                queue.push_back(j);
            }
        }
    }
    return g.centre(g.coords(seed));  // not reached: the caller saw the air touch the edge
}

// Volume the mesh encloses around the air, integrated exactly along vertical rays spaced half a
// cell apart: between consecutive crossings of a ray with the surface lies an interval whose
// length is exact; it counts when its crossing parity is the air's (odd inside a shell, even in a
// cavity) and air cells lie beside it. Only the transverse sampling (h/2) approximates.
double mesh_air_volume(const TriangleMesh& mesh, const AirModel& m) {
    const Grid& g = m.grid;
    const double hc = 0.5 * g.h;
    const int nx = 2 * g.dims[0], ny = 2 * g.dims[1];
    std::vector<std::vector<float>> cross(static_cast<size_t>(nx) * ny);
    const RayLattice rays{2, g.origin.x, g.origin.y, hc, nx, 0, ny};
    for_each_ray_crossing(mesh, rays, [&](int i, int j, double z, size_t) {
        cross[static_cast<size_t>(j) * nx + i].push_back(static_cast<float>(z - g.origin.z));
    });
    const int want = m.cavity ? 0 : 1;
    double volume = 0;
#pragma omp parallel for reduction(+ : volume) schedule(dynamic, 256)
    for (long c = 0; c < static_cast<long>(cross.size()); ++c) {
        auto& zs = cross[static_cast<size_t>(c)];
        if (zs.size() < 2) continue;
        std::sort(zs.begin(), zs.end());
        const int ci = static_cast<int>(c % nx) / 2, cj = static_cast<int>(c / nx) / 2;
        for (size_t k = 0; k + 1 < zs.size(); ++k) {
            if (static_cast<int>((k + 1) & 1) != want) continue;
            const double mid = 0.5 * (static_cast<double>(zs[k]) + static_cast<double>(zs[k + 1]));
            const int ck = static_cast<int>(std::floor(mid / g.h));
            bool near_air = false;
            for (int dj = -1; dj <= 1 && !near_air; ++dj)
                for (int di = -1; di <= 1 && !near_air; ++di)
                    near_air = m.is_air({ci + di, cj + dj, ck});
            if (near_air) volume += static_cast<double>(zs[k + 1] - zs[k]);
        }
    }
    return volume * hc * hc;
}

std::vector<size_t> flagged_cells(const std::vector<uint8_t>& flag) {
    std::vector<size_t> out;
    for (size_t i = 0; i < flag.size(); ++i)
        if (flag[i]) out.push_back(i);
    return out;
}

// Thickness of a region in cells: how many layers peeling it from its boundary takes.
int thickness(const Grid& g, const std::vector<size_t>& cells) {
    std::vector<uint8_t> in(g.count(), 0);
    for (size_t i : cells)
        in[i] = 1;
    std::vector<size_t> layer, next;
    for (size_t i : cells) {
        const Index3 c = g.coords(i);
        for (int n = 0; n < 6; ++n) {
            const Index3 d = step(c, n);
            if (!g.contains(d) || !in[g.index(d)]) {
                layer.push_back(i);
                break;
            }
        }
    }
    int depth = 0;
    while (!layer.empty()) {
        ++depth;
        for (size_t i : layer)
            in[i] = 2;
        next.clear();
        for (size_t i : layer) {
            const Index3 c = g.coords(i);
            for (int n = 0; n < 6; ++n) {
                const Index3 d = step(c, n);
                if (!g.contains(d)) continue;
                const size_t j = g.index(d);
                if (in[j] == 1) {
                    in[j] = 3;  // queued
                    next.push_back(j);
                }
            }
        }
        layer.swap(next);
    }
    return depth;
}

// The air's boundary: its cells and faces, the faces with no surface near either side, and the
// cells given no material (boundary air cells and non-air cells touching the air).
struct BoundaryMaterials {
    size_t boundary = 0, faces = 0, uncovered = 0;
    Box3 uncovered_box;          // the uncovered faces' centres
    std::vector<uint8_t> needs;  // per cell: boundary cell left without a material
};

// Whether the non-air cell x at c has an air face neighbour (c may lie on the grid's edge).
bool touches_air(const AirModel& m, Index3 c, size_t x, const long (&offset)[6]) {
    for (int n = 0; n < 6; ++n) {
        const int a = n / 2;
        if (n % 2 ? c[a] + 1 >= m.grid.dims[a] : c[a] == 0) continue;
        if (m.air[static_cast<size_t>(static_cast<long>(x) + offset[n])]) return true;
    }
    return false;
}

// Gives every boundary air cell and every non-air cell touching the air the material of its
// nearest surface (m.material, -1 elsewhere). Each cell writes only itself, so slabs of z planes
// run in parallel; the counts are sums and the box a minimum and maximum, the same in any order.
BoundaryMaterials assign_materials(AirModel& m, const SurfaceBand& band,
                                   const std::vector<int>& group_material) {
    const Grid& g = m.grid;
    BoundaryMaterials out;
    out.needs.assign(g.count(), 0);
    m.material.assign(g.count(), -1);
    m.wall_area.assign(g.count(), kFullArea);
    const long sy = g.dims[0], sz = sy * g.dims[1];
    const long offset[6] = {-1, 1, -sy, sy, -sz, sz};
    size_t boundary = 0, faces = 0, uncovered = 0;
#pragma omp parallel reduction(+ : boundary, faces, uncovered)
    {
        Box3 box;
#pragma omp for schedule(static)
        for (int k = 0; k < g.dims[2]; ++k)
            for (int j = 0; j < g.dims[1]; ++j)
                for (int i = 0; i < g.dims[0]; ++i) {
                    const Index3 c{i, j, k};
                    const size_t x = g.index(c);
                    // A boundary air cell, or a non-air cell touching air.
                    bool touched = !m.air[x] && touches_air(m, c, x, offset);
                    for (int n = 0; n < 6 && m.air[x]; ++n) {
                        // In range: air never touches the grid's edge.
                        const auto y = static_cast<size_t>(static_cast<long>(x) + offset[n]);
                        if (m.air[y]) continue;
                        touched = true;
                        ++faces;
                        if (band.group[y] < 0 && band.group[x] < 0) {
                            ++uncovered;
                            box.expand((g.centre(c) + g.centre(step(c, n))) * 0.5);
                        }
                    }
                    if (!touched) continue;
                    boundary += m.air[x];
                    const int32_t group = band.group[x];
                    m.material[x] =
                        group < 0
                            ? int16_t{-1}
                            : static_cast<int16_t>(group_material[static_cast<size_t>(group)]);
                    m.wall_area[x] = band.area[x];
                    out.needs[x] = m.material[x] < 0;
                }
#pragma omp critical
        for (int a = 0; a < 3; ++a) {
            out.uncovered_box.lo[a] = std::min(out.uncovered_box.lo[a], box.lo[a]);
            out.uncovered_box.hi[a] = std::max(out.uncovered_box.hi[a], box.hi[a]);
        }
    }
    out.boundary = boundary;
    out.faces = faces;
    out.uncovered = uncovered;
    return out;
}

constexpr size_t kNoFace = ~size_t{0};

// The thin face below cell `hi` along `axis` in the ordered list, or kNoFace.
size_t thin_face_index(const std::vector<ThinFace>& faces, size_t hi, int axis) {
    const auto it =
        std::lower_bound(faces.begin(), faces.end(), std::pair{hi, axis},
                         [](const ThinFace& f, std::pair<size_t, int> k) {
                             return f.cell != k.first ? f.cell < k.first : f.axis < k.second;
                         });
    return it != faces.end() && it->cell == hi && it->axis == axis
               ? static_cast<size_t>(it - faces.begin())
               : kNoFace;
}

// Keeps, of the links a surface crosses (Classification::walls), those between two air cells: the
// thin faces (air.h). Their materials come from materials_from_crossings.
void find_thin_faces(AirModel& m) {
    std::vector<uint8_t>& walls = m.classification.walls;
    const Grid& g = m.grid;
    for (size_t i = 0; i < walls.size(); ++i) {
        if (!walls[i]) continue;
        uint8_t keep = 0;
        // The bit is set only on cells with a neighbour at -1 along the axis.
        for (int a = 0; a < 3; ++a)
            if (m.air[i] && (walls[i] >> a & 1) && m.air[i - g.stride(a)]) {
                keep |= static_cast<uint8_t>(1 << a);
                m.thin_faces.push_back({i, a});
            }
        walls[i] = keep;
    }
    if (!m.thin_faces.empty()) m.thin = std::move(walls);  // released at the end anyway
}

// One crossing of the link below thin face (hi, axis), `along` cells from the - side's centre:
// each side keeps the crossing nearest to it.
void thin_face_side(AirModel& m, const TriangleMesh& mesh, const std::vector<int>& group_material,
                    uint8_t weight, size_t hi, int axis, double along,
                    std::vector<std::array<float, 2>>& best, size_t triangle) {
    const size_t f = thin_face_index(m.thin_faces, hi, axis);
    if (f == kNoFace) return;
    ThinFace* it = &m.thin_faces[f];
    const int group = static_cast<int>(mesh.triangles[triangle].group);
    const auto material = static_cast<int16_t>(group_material[static_cast<size_t>(group)]);
    const float from[2] = {static_cast<float>(along), static_cast<float>(1 - along)};
    for (int side = 0; side < 2; ++side)
        if (from[side] < best[f][static_cast<size_t>(side)]) {
            best[f][static_cast<size_t>(side)] = from[side];
            it->material[side] = material;
            it->area[side] = weight;
        }
}

// A face between an air cell and a non-air one takes the material of the surface the sound meets
// there: of the crossings of the segment between the two centres, the one nearest the air. The
// surface nearest the non-air cell's centre (assign_materials) is often another one: a panel
// thinner than a cell in front of a wall shares its cells with the wall, whose surface may lie
// nearer their centres, and the panel's faces went to the wall. A non-air cell facing air on
// several sides keeps the crossing nearest to any of its air neighbours. `best` (one float per
// cell, overwritten) holds that distance. Threads own rows of rays, and a crossing writes only
// cells on its own ray.
void materials_from_crossings(AirModel& m, const TriangleMesh& mesh,
                              const std::vector<int>& group_material, std::vector<float>& best) {
    // Per thin face and side: the distance of the crossing kept so far.
    std::vector<std::array<float, 2>> thin_best(
        m.thin_faces.size(),
        {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()});
    const Grid& g = m.grid;
    std::vector<uint8_t> weight(mesh.triangles.size());
    for (size_t t = 0; t < weight.size(); ++t) {
        const Triangle& tr = mesh.triangles[t];
        const Vec3 a = mesh.vertices[tr.v[0]];
        const Vec3 n = cross(mesh.vertices[tr.v[1]] - a, mesh.vertices[tr.v[2]] - a);
        weight[t] = staircase_area_weight(n * (1.0 / norm(n)));
    }
    std::fill(best.begin(), best.end(), std::numeric_limits<float>::infinity());
    for (int axis = 0; axis < 3; ++axis) {
        const int u = (axis + 1) % 3, v = (axis + 2) % 3, na = g.dims[axis];
        const size_t stride = g.stride(axis);
#pragma omp parallel
        {
            RayLattice rays{axis, g.origin[u], g.origin[v], g.h, g.dims[u], 0, g.dims[v]};
            std::tie(rays.iv_lo, rays.iv_hi) = thread_share(g.dims[v]);
            for_each_ray_crossing(mesh, rays, [&](int iu, int iv, double ta, size_t t) {
                // The crossing lies between the centres of cells k and k + 1 along the axis.
                const double along = (ta - g.origin[axis]) / g.h - 0.5;
                const int k = static_cast<int>(std::floor(along));
                if (k < 0 || k + 1 >= na) return;
                Index3 cell;
                cell[axis] = k;
                cell[u] = iu;
                cell[v] = iv;
                const size_t lo = g.index(cell), hi = lo + stride;
                if (m.air[lo] && m.air[hi]) {
                    thin_face_side(m, mesh, group_material, weight[t], hi, axis, along - k,
                                   thin_best, t);
                    return;
                }
                if (m.air[lo] == m.air[hi]) return;
                const size_t solid = m.air[lo] ? hi : lo;
                const double from_air = m.air[lo] ? along - k : k + 1 - along;
                const auto d = static_cast<float>(from_air);
                if (d >= best[solid]) return;
                best[solid] = d;
                const int group = static_cast<int>(mesh.triangles[t].group);
                m.material[solid] =
                    static_cast<int16_t>(group_material[static_cast<size_t>(group)]);
                m.wall_area[solid] = weight[t];
            });
        }
    }
}

}  // namespace

AirModel build_air_model(const Scene& scene, const TriangleMesh& mesh,
                         const std::vector<int>& group_material, const Grid& g) {
    // The first source seeds the air (below); a scene built in code (the editor's, before a
    // source is placed) may have none, which the scene file's reader already refuses.
    if (scene.sources.empty())
        throw InputError(scene.display_name() + ": sources: define at least one source",
                         {scene.display_name(), "sources", {}});
    AirModel m;
    m.grid = g;
    const Box3 model = mesh.bounds();
    m.classification = classify_cells(mesh, g);
    std::vector<uint8_t>& inside = m.classification.inside;
    const std::vector<uint8_t>& walls = m.classification.walls;
    m.inside_cells = static_cast<size_t>(std::count(inside.begin(), inside.end(), 1));

    // Places the first source on a cell flagged like its position and floods the air from it;
    // returns whether the air reached the grid's edge (and where). The other sources are placed
    // once the first has settled which cells are air (below).
    std::vector<PlacedEmitter> src;
    Vec3 leak_at;
    auto seed_air = [&]() {
        src.assign(1, place(scene, scene.sources.front(), "source", g, model, inside));
        m.air.assign(g.count(), 0);
        const size_t seed = g.index(src[0].cell);
        const RunComponents parts(g, inside, 1, walls);
        const RunComponents::Extent air = parts.fill(parts.component(parts.run_at(seed)), m.air);
        m.air_cells = air.cells;
        if (air.on_edge) leak_at = first_leak(g, inside, walls, seed);
        return air.on_edge;
    };

    // The first source says which convention the model follows; `inside` then flags the cells of
    // the source's kind.
    const Emitter& first = scene.sources.front();
    if (model.contains(first.position) && !point_inside(mesh, first.position)) {
        m.cavity = true;
        for (auto& v : inside)
            v = !v;
    }
    bool leaked = seed_air();
    if (leaked && m.cavity) {
        // A source on a shell's surface (or within rounding of it) may test as outside it: read
        // the model as a shell before calling the source outside the room.
        const std::vector<PlacedEmitter> cavity_src = src;
        const Vec3 cavity_leak = leak_at;
        for (auto& v : inside)
            v = !v;
        m.cavity = false;
        bool shell_ok = false;
        try {
            shell_ok = !seed_air();
        } catch (const InputError&) {
        }
        if (!shell_ok) {
            throw InputError(
                scene.display_name() + ": source \"" + cavity_src[0].name + "\" at " +
                    fmt(cavity_src[0].position) +
                    " is not in an enclosed room: the space around it reaches the outside "
                    "of the model near " +
                    fmt(cavity_leak) +
                    " (the source is outside the room, or the mesh is not closed there)",
                {scene.display_name(), "sources", cavity_src[0].name});
        }
        leaked = false;
    }
    if (leaked) {
        throw InputError(scene.display_name() + ": geometry: the air around source \"" +
                             src[0].name + "\" leaks out of the model near " + fmt(leak_at) +
                             ": the mesh is not closed there",
                         {scene.display_name(), "geometry", src[0].name});
    }
    m.mesh_volume = mesh_air_volume(mesh, m);
    // Parity alone cannot tell the air of a shell from the inside of a thick wall, nor a cavity
    // between solids from the inside of a cabinet (and real models' normals point either way).
    // Shape can: a room is thicker than the walls around it and the objects in it. When the
    // largest enclosed region on the other side of the air's surfaces is both thicker and at least
    // half as large, the source is inside a solid and that region is the room.
    {
        const std::vector<size_t> other = largest_enclosed_neighbour(m, inside, walls, 0);
        // The air's own cells are listed only when the comparison needs them (8 bytes a cell).
        if (!other.empty() && 2 * other.size() >= m.air_cells &&
            thickness(g, other) > thickness(g, flagged_cells(m.air))) {
            const double cell3 = g.h * g.h * g.h;
            char vols[200];
            std::snprintf(vols, sizeof vols,
                          "the %.2f m^3 around it enclose a thicker space of %.2f m^3 near ",
                          static_cast<double>(m.air_cells) * cell3,
                          static_cast<double>(other.size()) * cell3);
            throw InputError(
                scene.display_name() + ": source \"" + src[0].name + "\" at " +
                fmt(src[0].position) + " is inside a wall, slab or closed object: " + vols +
                fmt(g.centre(g.coords(other.front()))) +
                ", which is more likely the room; move the source into the room's air");
        }
    }
    // Only now the other sources: placed while the first one's convention was still unsettled, a
    // source in the room's air was blamed for a first source inside a closed object (the cells
    // flagged as air were then the object's inside).
    for (size_t s = 1; s < scene.sources.size(); ++s) {
        src.push_back(place(scene, scene.sources[s], "source", g, model, inside));
        if (!m.air[g.index(src[s].cell)]) {
            throw InputError(scene.display_name() + ": source \"" + src[s].name + "\" at " +
                                 fmt(src[s].position) +
                                 " is in a room whose air is not connected to "
                                 "that of source \"" +
                                 src[0].name + "\" at " + fmt(src[0].position) +
                                 ": simulate them in separate scenes, or open a door between them",
                             {scene.display_name(), "sources", src[s].name});
        }
    }
    m.sources = std::move(src);
    for (const Emitter& e : scene.receivers) {
        PlacedEmitter p = place(scene, e, "receiver", g, model, m.air);
        m.receivers.push_back(p);
    }

    // Materials from the nearest surface within 1.5 cells of each cell centre: enough to reach
    // every boundary cell of a closed model (an air and a solid centre straddle the surface).
    SurfaceBand band = surface_band(mesh, g, 1.5);
    const BoundaryMaterials bm = assign_materials(m, band, group_material);
    find_thin_faces(m);
    materials_from_crossings(m, mesh, group_material, band.distance);
    // A thin face whose crossing was not found on its own ray (a surface grazing the centres' line)
    // takes the nearest surface's material, as a wall face without a crossing does.
    for (ThinFace& f : m.thin_faces)
        for (int side = 0; side < 2; ++side)
            if (f.material[side] < 0) {
                const size_t cell = side ? f.cell : f.cell - g.stride(f.axis);
                f.material[side] = m.material[cell];
                f.area[side] = m.wall_area[cell];
            }
    const size_t faces = bm.faces, uncovered = bm.uncovered;
    m.boundary_cells = bm.boundary;
    m.boundary_faces = faces;
    m.uncovered_faces = uncovered;
    if (faces > 0 &&
        static_cast<double>(uncovered) > kMaxUncoveredBoundaryShare * static_cast<double>(faces)) {
        char share[32];
        std::snprintf(share, sizeof share, "%.1f %%",
                      100.0 * static_cast<double>(uncovered) / static_cast<double>(faces));
        throw InputError(scene.display_name() + ": geometry: the mesh is open: " + share +
                         " of the air's boundary (" + std::to_string(uncovered) +
                         " cell faces, between " + fmt(bm.uncovered_box.lo) + " and " +
                         fmt(bm.uncovered_box.hi) +
                         ") has no surface within 1.5 cells; close the holes in the model");
    }
    // Cells next to small holes take the material of the nearest cell that has one.
    if (uncovered > 0 || std::count(bm.needs.begin(), bm.needs.end(), 1) > 0) {
        std::deque<size_t> q;
        for (size_t i = 0; i < g.count(); ++i)
            if (m.material[i] >= 0) q.push_back(i);
        std::vector<int16_t> spread = m.material;
        std::vector<uint8_t> spread_area = m.wall_area;
        while (!q.empty()) {
            const size_t i = q.front();
            q.pop_front();
            const Index3 c = g.coords(i);
            for (int k = 0; k < 6; ++k) {
                const Index3 d = step(c, k);
                if (!g.contains(d)) continue;
                const size_t j = g.index(d);
                if (spread[j] < 0) {
                    spread[j] = spread[i];
                    spread_area[j] = spread_area[i];
                    q.push_back(j);
                }
            }
        }
        for (size_t i = 0; i < g.count(); ++i)
            if (bm.needs[i]) {
                m.material[i] = spread[i];
                m.wall_area[i] = spread_area[i];
            }
    }
    std::vector<uint8_t>().swap(m.classification.inside);
    std::vector<uint8_t>().swap(m.classification.walls);
    return m;
}

const ThinFace* AirModel::thin_face(size_t a, size_t b) const {
    if (thin.empty()) return nullptr;
    const size_t hi = std::max(a, b), d = hi - std::min(a, b);
    const int axis = d == 1 ? 0 : d == grid.stride(1) ? 1 : 2;
    if (!(thin[hi] >> axis & 1)) return nullptr;
    const size_t f = thin_face_index(thin_faces, hi, axis);
    return f == kNoFace ? nullptr : &thin_faces[f];
}

}  // namespace ardent
