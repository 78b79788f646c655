#include "ardent/preprocess/decomposition.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <set>

#include "cube_levels.h"

namespace ardent {
namespace {

int floor_pow2(int n) {
    return n <= 0 ? 0 : static_cast<int>(std::bit_floor(static_cast<unsigned>(n)));
}

size_t rect_area(int axis, const Index3& lo, const Index3& hi) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    return static_cast<size_t>(hi[u] - lo[u]) * static_cast<size_t>(hi[v] - lo[v]);
}

// Greedy boxes, largest first: every free cell is bucketed by the side of the largest free cube
// anchored at it (its minimum corner), found by a 3-D dynamic programme (cube_levels.h). Buckets
// are taken from the largest power of two down, cells within a bucket in memory order; a cell whose
// cube shrank since (a neighbouring box was claimed) moves down to its new bucket. From each anchor
// the largest box with allowed sides (PartitionSides) that is all free air is claimed; ties go to
// the most cubical. Cells left with cubes of side 1 are swept last in memory order. Deterministic:
// no hashing; threads only build the buckets and runs, which do not depend on them.
class BoxFinder {
  public:
    // Runs of up to 3 cells: the coupling matrix is fitted for partitions of 4 cells and more
    // (docs/ard.md, "Partition sides").
    static constexpr int kAvoidRun = 3;
    static constexpr double kSmoothSideWeight = 0.7;
    BoxFinder(const AirModel& air, int max_side, PartitionSides sides)
        : g_(air.grid), max_side_(max_side), avoid_thin_(sides != PartitionSides::PowerOfTwo) {
        for (int n = max_side; n >= 1; --n)
            if (side_allowed(n, sides)) sides_.push_back(n);
        free_ = air.air;
        thin_ = air.thin.empty() ? nullptr : &air.thin;
        run_.assign(g_.count(), 0);
        if (thin_) {
            open_y_.assign(g_.count(), 0);
            open_z_.assign(g_.count(), 0);
        }
#pragma omp parallel for schedule(static)
        for (int k = 0; k < g_.dims[2]; ++k)
            for (int j = 0; j < g_.dims[1]; ++j) {
                int run = 0, oy = 0, oz = 0;
                for (int i = g_.dims[0] - 1; i >= 0; --i) {
                    const size_t idx = g_.index(i, j, k);
                    // A run ends at a thin face (air.h) as at a solid cell.
                    run = !free_[idx] ? 0 : x_blocked(idx + 1) ? 1 : std::min(run + 1, 1 << 30);
                    run_[idx] = run;
                    if (!thin_) continue;
                    oy = ((*thin_)[idx] & 2) ? 0 : std::min(oy + 1, 0xffff);
                    oz = ((*thin_)[idx] & 4) ? 0 : std::min(oz + 1, 0xffff);
                    open_y_[idx] = static_cast<uint16_t>(oy);
                    open_z_[idx] = static_cast<uint16_t>(oz);
                }
            }
    }

    std::vector<Partition> run() {
        std::vector<Partition> out;
        const int levels = std::bit_width(static_cast<unsigned>(max_side_));
        std::vector<std::vector<size_t>> bucket = cells_by_cube_level(g_, free_, max_side_);
        for (int b = levels - 1; b >= 1; --b) {
            // Cells demoted into this bucket while it is processed are appended and visited too.
            for (size_t n = 0; n < bucket[b].size(); ++n) {
                const size_t idx = bucket[b][n];
                if (!free_[idx]) continue;
                const Index3 c = g_.coords(idx);
                const int side = cube_side(c, 1 << (b + 1));
                if (side < 2) continue;  // left for the final sweep
                if (level(side) < static_cast<size_t>(b)) {
                    bucket[level(side)].push_back(idx);
                    continue;
                }
                Partition p = best_box(c);
                claim(p);
                out.push_back(p);
            }
            std::vector<size_t>().swap(bucket[b]);
        }
        const size_t n = g_.count();
        for (size_t idx = 0; idx < n; ++idx) {
            if (!free_[idx]) continue;
            Partition p = best_box(g_.coords(idx));
            claim(p);
            out.push_back(p);
        }
        return out;
    }

  private:
    // Whether a thin face blocks the link from cell idx to its neighbour at -1 along x (idx may be
    // one past a row's end: the next row's first cell, which has no such face).
    bool x_blocked(size_t idx) const {
        return thin_ && idx < thin_->size() && ((*thin_)[idx] & 1);
    }
    // Whether row r of layer z of a box anchored at s with X cells along x may join it: its runs
    // reach X, and no thin face lies between it and the row before (r > 0) or the layer below
    // (z > s[2]) over those X cells.
    bool row_joins(Index3 s, int r, int z, int X) const {
        const size_t idx = g_.index(s[0], s[1] + r, z);
        if (run_[idx] < X) return false;
        if (!thin_) return true;
        return (r == 0 || open_y_[idx] >= X) && (z == s[2] || open_z_[idx] >= X);
    }

    static size_t level(int side) {
        return static_cast<size_t>(std::bit_width(static_cast<unsigned>(side)) - 1);
    }

    // Side (below `limit`) of the largest free cube anchored at c, from the x runs. A cube of side
    // t needs every one of its t*t rows to run >= t; growing t only adds the 2t-1 rows of the new
    // layer and column to the running minimum, so the search reads O(side^2) rows, not O(side^3).
    int cube_side(Index3 c, int limit) const {
        int s = 0, shortest = std::numeric_limits<int>::max();
        while (s < limit && c[0] + s < g_.dims[0] && c[1] + s < g_.dims[1] &&
               c[2] + s < g_.dims[2]) {
            const int t = s + 1;
            for (int y = 0; y < t; ++y)  // the new layer z = s
                shortest = std::min(shortest, run_[g_.index(c[0], c[1] + y, c[2] + s)]);
            for (int z = 0; z < s; ++z)  // the new row y = s of the older layers
                shortest = std::min(shortest, run_[g_.index(c[0], c[1] + s, c[2] + z)]);
            if (shortest < t) break;
            s = t;
        }
        return s;
    }

    // Whether a box side of n cells from a free run of `free` leaves a run of 1 to kAvoidRun cells
    // behind it, which the smooth side sets avoid (docs/ard.md, "Partition sides").
    bool leaves_thin(int n, int free) const {
        return avoid_thin_ && free - n >= 1 && free - n <= kAvoidRun;
    }
    // A partition with a side that is not a power of two keeps every side within
    // kMaxSmoothPartitionSide: the CUDA backend transforms such partitions by direct sums.
    static bool shape_allowed(int x, int y, int z) {
        const bool pow2 = std::has_single_bit(static_cast<unsigned>(x)) &&
                          std::has_single_bit(static_cast<unsigned>(y)) &&
                          std::has_single_bit(static_cast<unsigned>(z));
        return pow2 || std::max({x, y, z}) <= kMaxSmoothPartitionSide;
    }
    // A side's weight in the choice of boxes: a smooth side is transformed by direct sums on the
    // GPU, whose cost grows with the side (docs/ard.md, "Partition sides"), so a box counts 0.7
    // of its volume per smooth side. Measured on the Musikverein at 1650 Hz: cells in a smooth
    // side's lines 30/25/48 % (x/y/z) unweighted, 18/21/32 % at 0.7; at 0.5 the air lines
    // crossing a partition thinner than 3 cells rose from 36 % to 65 %.
    static double side_weight(int n) {
        return std::has_single_bit(static_cast<unsigned>(n)) ? 1.0 : kSmoothSideWeight;
    }
    // The allowed side up to `free` that leaves no thin run with the largest weighted length, or 0.
    int pick_side(int free) const {
        int best = 0;
        for (int n : sides_)
            if (n <= free && !leaves_thin(n, free) && n * side_weight(n) > best * side_weight(best))
                best = n;
        return best;
    }

    Partition best_box(Index3 s) {
        Partition best{s, {1, 1, 1}};
        double best_vol = 1;
        int best_aspect = 1;
        const int max_x = std::min(run_[g_.index(s)], max_side_);
        std::vector<int> rows;  // per layer: consecutive rows from s[1] whose run reaches X
        for (int X : sides_) {
            if (X > max_x || leaves_thin(X, max_x)) continue;
            rows.clear();
            int y_cap = std::min(g_.dims[1] - s[1], max_side_);
            for (int z = s[2]; z < g_.dims[2] && static_cast<int>(rows.size()) < max_side_; ++z) {
                int r = 0;
                while (r < y_cap && row_joins(s, r, z, X))
                    ++r;
                if (r == 0) break;
                rows.push_back(r);
                y_cap = r;  // later layers only matter up to this many rows
            }
            const int max_y = rows.empty() ? 0 : rows[0];
            for (int Y : sides_) {
                if (Y > max_y || leaves_thin(Y, max_y)) continue;
                int zfree = 0;
                while (zfree < static_cast<int>(rows.size()) && rows[zfree] >= Y)
                    ++zfree;
                const int Z = pick_side(zfree);
                if (Z == 0 || !shape_allowed(X, Y, Z)) continue;
                const double vol = static_cast<double>(X) * Y * Z * side_weight(X) *
                                   side_weight(Y) * side_weight(Z);
                const int aspect = std::max({X, Y, Z}) / std::min({X, Y, Z});
                if (vol > best_vol || (vol == best_vol && aspect < best_aspect)) {
                    best_vol = vol;
                    best_aspect = aspect;
                    best = {s, {X, Y, Z}};
                }
            }
        }
        return best;
    }

    void claim(const Partition& p) {
        for (int k = p.origin[2]; k < p.origin[2] + p.size[2]; ++k)
            for (int j = p.origin[1]; j < p.origin[1] + p.size[1]; ++j) {
                const size_t row = g_.index(p.origin[0], j, k);
                for (int i = 0; i < p.size[0]; ++i) {
                    free_[row + i] = 0;
                    run_[row + i] = 0;
                }
                // Runs reaching into the box now stop at its face.
                for (int i = p.origin[0] - 1, d = 1; i >= 0; --i, ++d) {
                    const size_t idx = g_.index(i, j, k);
                    if (!free_[idx] || x_blocked(idx + 1)) break;
                    run_[idx] = d;
                }
            }
    }

    const Grid& g_;
    int max_side_;
    bool avoid_thin_;
    std::vector<int> sides_;  // allowed sides, largest first
    std::vector<uint8_t> free_;
    std::vector<int> run_;
    // With thin faces: per cell, the cells along +x from it whose link to -y (-z) is open.
    const std::vector<uint8_t>* thin_ = nullptr;
    std::vector<uint16_t> open_y_, open_z_;
};

void find_interfaces(const Grid& g, Decomposition& d) {
    for (int32_t p = 0; p < static_cast<int32_t>(d.partitions.size()); ++p) {
        const Partition& P = d.partitions[p];
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
                    d.interfaces.push_back(f);
                }
        }
    }
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

void find_pml(const AirModel& air, const Scene& scene, Decomposition& d) {
    const Grid& g = air.grid;
    for (int32_t p = 0; p < static_cast<int32_t>(d.partitions.size()); ++p) {
        const Partition& P = d.partitions[p];
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
                            ++d.rigid_faces;
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
                        s.depth = d.pml_depth;
                        d.pml.push_back(s);
                    }
            }
        }
    }
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
    d.partitions = BoxFinder(air, max_side, options.sides).run();
    const Grid& g = air.grid;
    d.owner.assign(g.count(), -1);
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
