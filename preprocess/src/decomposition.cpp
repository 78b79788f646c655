#include "ardent/preprocess/decomposition.h"

#include <algorithm>
#include <bit>
#include <set>

#include "box_finder.h"

namespace ardent {
namespace {

int floor_pow2(int n) {
    return n <= 0 ? 0 : static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
}

size_t rect_area(int axis, const Index3& lo, const Index3& hi) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    return static_cast<size_t>(hi[u] - lo[u]) * static_cast<size_t>(hi[v] - lo[v]);
}

// The interfaces on the far faces of partition p (the partitions above it), appended to `out`.
void partition_interfaces(const Grid& g, const Decomposition& d, int32_t p,
                          std::vector<Interface>& out) {
    const Partition& P = d.partitions[static_cast<size_t>(p)];
    for (int a = 0; a < 3; ++a) {
        const int plane = P.origin[a] + P.size[a];
        if (plane >= g.dims[a]) continue;
        const int u = (a + 1) % 3, v = (a + 2) % 3;
        std::set<int32_t> seen;
        for (int jv = P.origin[v]; jv < P.origin[v] + P.size[v]; ++jv)
            for (int ju = P.origin[u]; ju < P.origin[u] + P.size[u]; ++ju) {
                Index3 c;
                c[a] = plane;
                c[u] = ju;
                c[v] = jv;
                const int32_t q = d.owner[g.index(c)];
                if (q < 0 || !seen.insert(q).second) continue;
                const Partition& Q = d.partitions[q];
                Interface f{};
                f.axis = a;
                f.plane = plane;
                f.left = p;
                f.right = q;
                f.lo[a] = f.hi[a] = plane;
                for (int t : {u, v}) {
                    f.lo[t] = std::max(P.origin[t], Q.origin[t]);
                    f.hi[t] = std::min(P.origin[t] + P.size[t], Q.origin[t] + Q.size[t]);
                }
                f.depth_left = std::min(3, P.size[a]);
                f.depth_right = std::min(3, Q.size[a]);
                out.push_back(f);
            }
    }
}

void find_interfaces(const Grid& g, Decomposition& d) {
    // The partitions on all cores, their interfaces joined in partition order.
    const int32_t n = static_cast<int32_t>(d.partitions.size());
    std::vector<std::vector<Interface>> found(static_cast<size_t>(n));
#pragma omp parallel for schedule(dynamic, 16)
    for (int32_t p = 0; p < n; ++p)
        partition_interfaces(g, d, p, found[static_cast<size_t>(p)]);
    for (const std::vector<Interface>& f : found)
        d.interfaces.insert(d.interfaces.end(), f.begin(), f.end());
    // Colour: an interface writes depth cells into each side; on a partition thinner than six
    // cells the layers of its two opposite interfaces can overlap, so they get different colours.
    std::vector<std::vector<size_t>> by_partition(d.partitions.size());
    for (size_t i = 0; i < d.interfaces.size(); ++i) {
        Interface& f = d.interfaces[i];
        const int u = (f.axis + 1) % 3, v = (f.axis + 2) % 3;
        std::set<int> used;
        for (int32_t side : {f.left, f.right}) {
            if (d.partitions[side].size[f.axis] >= 6) continue;
            for (size_t j : by_partition[side]) {
                const Interface& o = d.interfaces[j];
                if (o.axis != f.axis) continue;
                const bool overlap = o.lo[u] < f.hi[u] && f.lo[u] < o.hi[u] && o.lo[v] < f.hi[v] &&
                                     f.lo[v] < o.hi[v];
                if (overlap) used.insert(o.color);
            }
        }
        f.color = 0;
        while (used.count(f.color))
            ++f.color;
        by_partition[f.left].push_back(i);
        by_partition[f.right].push_back(i);
    }
    std::stable_sort(d.interfaces.begin(), d.interfaces.end(),
                     [](const Interface& x, const Interface& y) {
                         return x.axis != y.axis ? x.axis < y.axis : x.color < y.color;
                     });
}

// The PML slabs of partition p, appended to `out`; the faces on rigid walls counted in `rigid`.
void partition_pml(const AirModel& air, const Scene& scene, int32_t p, const Partition& P,
                   int depth, std::vector<PmlSlab>& out, size_t& rigid) {
    const Grid& g = air.grid;
    for (int a = 0; a < 3; ++a) {
        const int u = (a + 1) % 3, v = (a + 2) % 3;
        const int nu = P.size[u], nv = P.size[v];
        for (int side : {-1, 1}) {
            const int layer = side < 0 ? P.origin[a] : P.origin[a] + P.size[a] - 1;
            // Material of the wall behind each face of this side, or -1 where air continues.
            std::vector<int> mat(static_cast<size_t>(nu) * nv, -1);
            bool any = false;
            for (int jv = 0; jv < nv; ++jv)
                for (int ju = 0; ju < nu; ++ju) {
                    Index3 c;
                    c[a] = layer;
                    c[u] = P.origin[u] + ju;
                    c[v] = P.origin[v] + jv;
                    Index3 o = c;
                    o[a] += side;
                    const size_t ci = g.index(c), oi = g.index(o);
                    // Air beyond, unless across a thin face (a wall on both sides).
                    if (air.air[oi] && !(air.blocked_links(ci) >> (2 * a + (side > 0)) & 1))
                        continue;
                    const int m = air.face_material(ci, oi);
                    const bool absorbs = m >= 0 && scene.materials[m].mean_absorption() > 0;
                    if (!absorbs) {
                        ++rigid;
                        continue;
                    }
                    mat[static_cast<size_t>(jv) * nu + ju] = m;
                    any = true;
                }
            if (!any) continue;
            // Cover each material's faces with rectangles: widest run along u, then as many
            // rows along v as repeat it.
            std::vector<uint8_t> done(mat.size(), 0);
            for (int jv = 0; jv < nv; ++jv)
                for (int ju = 0; ju < nu; ++ju) {
                    const size_t at = static_cast<size_t>(jv) * nu + ju;
                    const int m = mat[at];
                    if (m < 0 || done[at]) continue;
                    int w = 1;
                    while (ju + w < nu && mat[at + w] == m && !done[at + w])
                        ++w;
                    int hgt = 1;
                    for (; jv + hgt < nv; ++hgt) {
                        bool row_ok = true;
                        for (int x = 0; x < w && row_ok; ++x) {
                            const size_t r = static_cast<size_t>(jv + hgt) * nu + ju + x;
                            row_ok = mat[r] == m && !done[r];
                        }
                        if (!row_ok) break;
                    }
                    for (int y = 0; y < hgt; ++y)
                        for (int x = 0; x < w; ++x)
                            done[static_cast<size_t>(jv + y) * nu + ju + x] = 1;
                    PmlSlab s{};
                    s.partition = p;
                    s.axis = a;
                    s.side = side;
                    s.lo[a] = layer;
                    s.hi[a] = layer + 1;
                    s.lo[u] = P.origin[u] + ju;
                    s.hi[u] = s.lo[u] + w;
                    s.lo[v] = P.origin[v] + jv;
                    s.hi[v] = s.lo[v] + hgt;
                    s.material = m;
                    s.depth = depth;
                    out.push_back(s);
                }
        }
    }
}

// The partitions on all cores, their slabs joined in partition order.
void find_pml(const AirModel& air, const Scene& scene, Decomposition& d) {
    const int32_t n = static_cast<int32_t>(d.partitions.size());
    std::vector<std::vector<PmlSlab>> slabs(static_cast<size_t>(n));
    size_t rigid = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : rigid)
    for (int32_t p = 0; p < n; ++p)
        partition_pml(air, scene, p, d.partitions[static_cast<size_t>(p)], d.pml_depth,
                      slabs[static_cast<size_t>(p)], rigid);
    d.rigid_faces += rigid;
    for (const std::vector<PmlSlab>& s : slabs)
        d.pml.insert(d.pml.end(), s.begin(), s.end());
}

}  // namespace

bool side_allowed(int n, PartitionSides sides) {
    if (n < 1) return false;
    if (std::has_single_bit(static_cast<unsigned>(n))) return true;
    switch (sides) {
        case PartitionSides::PowerOfTwo:
            return false;
        case PartitionSides::Smooth:
            if (n > kMaxSmoothPartitionSide) return false;
            for (int f : {2, 3, 5})
                while (n % f == 0)
                    n /= f;
            return n == 1;
    }
    return false;
}

size_t Interface::faces() const {
    return rect_area(axis, lo, hi);
}
size_t PmlSlab::faces() const {
    return rect_area(axis, lo, hi);
}

size_t Decomposition::cells_in_partitions() const {
    size_t n = 0;
    for (const auto& p : partitions)
        n += p.cells();
    return n;
}

size_t Decomposition::pml_cells() const {
    size_t n = 0;
    for (const auto& s : pml)
        n += s.faces() * static_cast<size_t>(s.depth);
    return n;
}

size_t Decomposition::interfaces_on_axis(int axis) const {
    return static_cast<size_t>(std::count_if(interfaces.begin(), interfaces.end(),
                                             [&](const Interface& f) { return f.axis == axis; }));
}

int Decomposition::colors_on_axis(int axis) const {
    int c = 0;
    for (const auto& f : interfaces)
        if (f.axis == axis) c = std::max(c, f.color + 1);
    return c;
}

std::map<std::string, size_t> Decomposition::shape_counts() const {
    std::map<std::string, size_t> out;
    for (const auto& p : partitions)
        ++out[std::to_string(p.size[0]) + "x" + std::to_string(p.size[1]) + "x" +
              std::to_string(p.size[2])];
    return out;
}

double Decomposition::share_in_partitions_at_least(int side) const {
    size_t big = 0, all = 0;
    for (const auto& p : partitions) {
        all += p.cells();
        if (p.size[0] >= side && p.size[1] >= side && p.size[2] >= side) big += p.cells();
    }
    return all ? static_cast<double>(big) / static_cast<double>(all) : 0.0;
}

int Decomposition::thinnest_partition() const {
    int thinnest = 0;
    for (const auto& p : partitions) {
        const int side = std::min({p.size[0], p.size[1], p.size[2]});
        thinnest = thinnest == 0 ? side : std::min(thinnest, side);
    }
    return thinnest;
}

AirLineStats air_lines_touching_thin(const Decomposition& d, const Grid& g, int thin) {
    size_t lines = 0, touching = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        // Every grid line is counted on its own: the planes of v go to the threads.
#pragma omp parallel for schedule(static) reduction(+ : lines, touching)
        for (int jv = 0; jv < g.dims[v]; ++jv) {
            Index3 c{};
            c[v] = jv;
            for (c[u] = 0; c[u] < g.dims[u]; ++c[u]) {
                bool in_run = false, touches = false;
                for (c[axis] = 0; c[axis] <= g.dims[axis]; ++c[axis]) {
                    const int32_t o = c[axis] < g.dims[axis] ? d.owner[g.index(c)] : -1;
                    if (o < 0) {
                        if (in_run) touching += touches ? 1 : 0;
                        in_run = touches = false;
                        continue;
                    }
                    if (!in_run) ++lines;
                    in_run = true;
                    touches = touches || d.partitions[static_cast<size_t>(o)].size[axis] < thin;
                }
            }
        }
    }
    AirLineStats s;
    s.lines = lines;
    s.touching_thin = touching;
    return s;
}

Decomposition decompose(const AirModel& air, const Scene& scene,
                        const DecompositionOptions& options) {
    Decomposition d;
    d.pml_depth = options.pml_depth;
    const int max_side = options.sides == PartitionSides::PowerOfTwo
                             ? floor_pow2(options.max_partition_side)
                             : options.max_partition_side;
    d.partitions = find_boxes(air, max_side, options.sides);
    const Grid& g = air.grid;
    d.owner.assign(g.count(), -1);
    // Partitions are disjoint: each thread fills its own.
#pragma omp parallel for schedule(dynamic, 16)
    for (int32_t p = 0; p < static_cast<int32_t>(d.partitions.size()); ++p) {
        const Partition& P = d.partitions[p];
        for (int k = 0; k < P.size[2]; ++k)
            for (int j = 0; j < P.size[1]; ++j) {
                const size_t row = g.index(P.origin[0], P.origin[1] + j, P.origin[2] + k);
                std::fill_n(d.owner.begin() + static_cast<std::ptrdiff_t>(row), P.size[0], p);
            }
    }
    find_interfaces(g, d);
    find_pml(air, scene, d);
    return d;
}

}  // namespace ardent
