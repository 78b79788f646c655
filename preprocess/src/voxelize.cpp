#include "ardent/preprocess/voxelize.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <utility>

#include "thread_share.h"

namespace ardent {
namespace {

struct P2 {
    double x, y;
    bool operator<(const P2& o) const { return x < o.x || (x == o.x && y < o.y); }
};

double orient(P2 a, P2 b, P2 q) {
    return (b.x - a.x) * (q.y - a.y) - (b.y - a.y) * (q.x - a.x);
}

// Evaluated with the edge's endpoints in a fixed order, so the two triangles sharing an edge get
// exactly opposite values and a point on it is never counted twice or missed.
double edge_fn(P2 a, P2 b, P2 q) {
    return b < a ? -orient(b, a, q) : orient(a, b, q);
}

bool top_left(P2 a, P2 b) {
    const double dy = b.y - a.y, dx = b.x - a.x;
    return dy < 0 || (dy == 0 && dx > 0);
}

bool covers(double e, P2 a, P2 b) {
    return e > 0 || (e == 0 && top_left(a, b));
}

}  // namespace

void for_each_ray_crossing(const TriangleMesh& mesh, const RayLattice& rays,
                           const std::function<void(int, int, double, size_t)>& hit) {
    const int axis = rays.axis, u = (axis + 1) % 3, v = (axis + 2) % 3;
    const double s = rays.spacing;
    auto first = [&](double lo, double o) {
        return static_cast<int>(std::ceil((lo - o) / s - 0.5));
    };
    auto last = [&](double hi, double o) {
        return static_cast<int>(std::floor((hi - o) / s - 0.5));
    };
    for (size_t ti = 0; ti < mesh.triangles.size(); ++ti) {
        const Triangle& t = mesh.triangles[ti];
        Vec3 p[3] = {mesh.vertices[t.v[0]], mesh.vertices[t.v[1]], mesh.vertices[t.v[2]]};
        P2 q[3];
        for (int i = 0; i < 3; ++i)
            q[i] = {p[i][u], p[i][v]};
        double area = orient(q[0], q[1], q[2]);
        if (area == 0) continue;  // parallel to the rays
        if (area < 0) {
            std::swap(q[1], q[2]);
            std::swap(p[1], p[2]);
            area = -area;
        }
        // Rays within the triangle's bounding rectangle.
        const int iu0 = std::max(0, first(std::min({q[0].x, q[1].x, q[2].x}), rays.u0));
        const int iu1 = std::min(rays.nu - 1, last(std::max({q[0].x, q[1].x, q[2].x}), rays.u0));
        const int iv0 = std::max(rays.iv_lo, first(std::min({q[0].y, q[1].y, q[2].y}), rays.v0));
        const int iv1 = std::min(rays.iv_hi - 1, last(std::max({q[0].y, q[1].y, q[2].y}), rays.v0));
        for (int iv = iv0; iv <= iv1; ++iv) {
            const double cv = rays.v0 + (iv + 0.5) * s;
            for (int iu = iu0; iu <= iu1; ++iu) {
                const P2 c{rays.u0 + (iu + 0.5) * s, cv};
                const double e0 = edge_fn(q[1], q[2], c);
                const double e1 = edge_fn(q[2], q[0], c);
                const double e2 = edge_fn(q[0], q[1], c);
                if (!covers(e0, q[1], q[2]) || !covers(e1, q[2], q[0]) || !covers(e2, q[0], q[1]))
                    continue;
                hit(iu, iv, (e0 * p[0][axis] + e1 * p[1][axis] + e2 * p[2][axis]) / area, ti);
            }
        }
    }
}

namespace {

// Toggles, per ray along `axis`, the first cell beyond each crossing; a prefix XOR then gives the
// parity of every cell centre. Rows of the (u, v) plane are split between threads by v.
void rasterize_axis(const TriangleMesh& mesh, const Grid& g, int axis, std::vector<uint8_t>& flip,
                    std::vector<uint8_t>& walls) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    const int na = g.dims[axis];
    std::fill(flip.begin(), flip.end(), 0);
#pragma omp parallel
    {
        RayLattice rays{axis, g.origin[u], g.origin[v], g.h, g.dims[u], 0, g.dims[v]};
        std::tie(rays.iv_lo, rays.iv_hi) = thread_share(g.dims[v]);
        for_each_ray_crossing(mesh, rays, [&](int iu, int iv, double ta, size_t) {
            // First cell whose centre lies beyond the crossing.
            int k = static_cast<int>(std::floor((ta - g.origin[axis]) / g.h - 0.5)) + 1;
            if (k >= na) return;
            k = std::max(k, 0);
            Index3 cell;
            cell[axis] = k;
            cell[u] = iu;
            cell[v] = iv;
            flip[g.index(cell)] ^= 1;
            if (k > 0) walls[g.index(cell)] |= static_cast<uint8_t>(1 << axis);
        });
    }
}

// Adds to every cell's votes the parity of the flips before it along its x ray (a prefix XOR);
// returns how many rays end with odd parity and how many cross the surface at all.
std::pair<size_t, size_t> add_parity_x(const Grid& g, const std::vector<uint8_t>& flip,
                                       std::vector<uint8_t>& inside) {
    size_t odd = 0, hit = 0;
    const long nrays = static_cast<long>(g.dims[1]) * g.dims[2];
#pragma omp parallel for reduction(+ : odd, hit) schedule(static)
    for (long r = 0; r < nrays; ++r) {
        size_t idx = static_cast<size_t>(r) * static_cast<size_t>(g.dims[0]);
        uint8_t parity = 0, any = 0;
        for (int k = 0; k < g.dims[0]; ++k, ++idx) {
            any |= flip[idx];
            parity ^= flip[idx];
            inside[idx] = static_cast<uint8_t>(inside[idx] + parity);
        }
        odd += parity;
        hit += any;
    }
    return {odd, hit};
}

// The same along y or z, marching a whole row of x rays at once: walking one ray at a time along
// those axes touches a new cache line per cell. Threads own the planes across the march.
std::pair<size_t, size_t> add_parity_across(const Grid& g, int axis,
                                            const std::vector<uint8_t>& flip,
                                            std::vector<uint8_t>& inside) {
    const int across = axis == 1 ? 2 : 1;  // neither x nor the march
    const auto nx = static_cast<size_t>(g.dims[0]);
    size_t odd = 0, hit = 0;
#pragma omp parallel for reduction(+ : odd, hit) schedule(static)
    for (int o = 0; o < g.dims[across]; ++o) {
        std::vector<uint8_t> parity(nx, 0), any(nx, 0);
        for (int a = 0; a < g.dims[axis]; ++a) {
            Index3 c{0, 0, 0};
            c[axis] = a;
            c[across] = o;
            const size_t row = g.index(c);
            for (size_t i = 0; i < nx; ++i) {
                any[i] |= flip[row + i];
                parity[i] ^= flip[row + i];
                inside[row + i] = static_cast<uint8_t>(inside[row + i] + parity[i]);
            }
        }
        odd += static_cast<size_t>(std::count(parity.begin(), parity.end(), 1));
        hit += static_cast<size_t>(std::count(any.begin(), any.end(), 1));
    }
    return {odd, hit};
}

}  // namespace

bool point_inside(const TriangleMesh& mesh, Vec3 pt) {
    int votes = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        const RayLattice ray{axis, pt[u] - 0.5, pt[v] - 0.5, 1.0, 1, 0, 1};  // one ray through pt
        int crossings = 0;
        for_each_ray_crossing(mesh, ray,
                              [&](int, int, double ta, size_t) { crossings += ta > pt[axis]; });
        votes += crossings & 1;
    }
    return votes >= 2;
}

Classification classify_cells(const TriangleMesh& mesh, const Grid& g) {
    Classification out;
    const size_t n = g.count();
    out.inside.assign(n, 0);
    out.walls.assign(n, 0);
    std::vector<uint8_t> flip(n);
    for (int axis = 0; axis < 3; ++axis) {
        rasterize_axis(mesh, g, axis, flip, out.walls);
        const auto [odd, hit] = axis == 0 ? add_parity_x(g, flip, out.inside)
                                          : add_parity_across(g, axis, flip, out.inside);
        out.odd_rays[axis] = odd;
        out.rays_hit[axis] = hit;
    }
    size_t disputed = 0;
#pragma omp parallel for reduction(+ : disputed) schedule(static)
    for (long i = 0; i < static_cast<long>(n); ++i) {
        const uint8_t votes = out.inside[i];
        disputed += (votes == 1 || votes == 2);
        out.inside[i] = votes >= 2;
    }
    out.disputed_cells = disputed;
    return out;
}

double point_triangle_distance(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
    // Closest point by Voronoi regions of the triangle (Ericson, Real-Time Collision
    // Detection 5.1.5).
    const Vec3 ab = b - a, ac = c - a, ap = p - a;
    const double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) return norm(ap);
    const Vec3 bp = p - b;
    const double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return norm(bp);
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return norm(p - (a + ab * (d1 / (d1 - d3))));
    const Vec3 cp = p - c;
    const double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return norm(cp);
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return norm(p - (a + ac * (d2 / (d2 - d6))));
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0)
        return norm(p - (b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)))));
    const double denom = 1.0 / (va + vb + vc);
    return norm(p - (a + ab * (vb * denom) + ac * (vc * denom)));
}

uint8_t staircase_area_weight(Vec3 n) {
    const double l1 = std::abs(n[0]) + std::abs(n[1]) + std::abs(n[2]);
    // l1 is 1 to sqrt(3) for a unit normal; anything else (a degenerate normal) counts as flat.
    if (!(l1 >= 1)) return kFullArea;
    return static_cast<uint8_t>(std::lround(kFullArea / l1));
}

SurfaceBand surface_band(const TriangleMesh& mesh, const Grid& g, double radius_cells) {
    SurfaceBand band;
    const double r = radius_cells * g.h;
    band.radius = static_cast<float>(r);
    band.distance.assign(g.count(), std::numeric_limits<float>::infinity());
    band.group.assign(g.count(), -1);
    band.area.assign(g.count(), kFullArea);
    // Threads own slabs of z so no two write the same cell; each walks every triangle.
#pragma omp parallel
    {
        const auto [z_lo, z_hi] = thread_share(g.dims[2]);
        for (const Triangle& t : mesh.triangles) {
            const Vec3 a = mesh.vertices[t.v[0]], b = mesh.vertices[t.v[1]],
                       c = mesh.vertices[t.v[2]];
            Vec3 nrm = cross(b - a, c - a);
            const double len = norm(nrm);
            nrm = nrm * (1.0 / len);
            const uint8_t area = staircase_area_weight(nrm);
            // Walk columns along the normal's dominant axis; only a thin band of cells per
            // column can be within r of the plane.
            int w = 0;
            for (int ax = 1; ax < 3; ++ax)
                if (std::abs(nrm[ax]) > std::abs(nrm[w])) w = ax;
            const int u = (w + 1) % 3, v = (w + 2) % 3;
            Box3 bb;
            bb.expand(a);
            bb.expand(b);
            bb.expand(c);
            auto lo_idx = [&](int ax) {
                return std::max(0,
                                static_cast<int>(std::floor((bb.lo[ax] - r - g.origin[ax]) / g.h)));
            };
            auto hi_idx = [&](int ax) {
                return std::min(g.dims[ax] - 1,
                                static_cast<int>(std::floor((bb.hi[ax] + r - g.origin[ax]) / g.h)));
            };
            const int z0 = std::max(lo_idx(2), z_lo), z1 = std::min(hi_idx(2), z_hi - 1);
            if (z0 > z1) continue;
            const double reach = r / std::abs(nrm[w]);
            const double d0 = dot(nrm, a);
            for (int iv = lo_idx(v); iv <= hi_idx(v); ++iv) {
                for (int iu = lo_idx(u); iu <= hi_idx(u); ++iu) {
                    const double cu = g.origin[u] + (iu + 0.5) * g.h;
                    const double cv = g.origin[v] + (iv + 0.5) * g.h;
                    // Plane coordinate along w at this column.
                    const double pw = (d0 - nrm[u] * cu - nrm[v] * cv) / nrm[w];
                    int k0 = static_cast<int>(
                        std::floor((std::max(pw - reach, bb.lo[w] - r) - g.origin[w]) / g.h));
                    int k1 = static_cast<int>(
                        std::floor((std::min(pw + reach, bb.hi[w] + r) - g.origin[w]) / g.h));
                    k0 = std::max(k0, lo_idx(w));
                    k1 = std::min(k1, hi_idx(w));
                    for (int k = k0; k <= k1; ++k) {
                        Index3 cell;
                        cell[w] = k;
                        cell[u] = iu;
                        cell[v] = iv;
                        if (cell[2] < z0 || cell[2] > z1) continue;
                        const double d = point_triangle_distance(g.centre(cell), a, b, c);
                        if (d > r) continue;
                        const size_t idx = g.index(cell);
                        if (static_cast<float>(d) < band.distance[idx]) {
                            band.distance[idx] = static_cast<float>(d);
                            band.group[idx] = static_cast<int32_t>(t.group);
                            band.area[idx] = area;
                        }
                    }
                }
            }
        }
    }
    return band;
}

}  // namespace ardent
