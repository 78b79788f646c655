#include "ardent/preprocess/mesh.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ardent {

std::string SurfaceGroup::label() const {
    if (node.empty()) return material.empty() ? std::string("(unnamed)") : material;
    if (material.empty() || material == node) return node;
    return node + "/" + material;
}

Box3 TriangleMesh::bounds() const {
    Box3 b;
    for (const auto& t : triangles) {
        for (uint32_t i : t.v)
            b.expand(vertices[i]);
    }
    return b;
}

double TriangleMesh::area() const {
    double a = 0;
    for (const auto& t : triangles) {
        a += 0.5 *
             norm(cross(vertices[t.v[1]] - vertices[t.v[0]], vertices[t.v[2]] - vertices[t.v[0]]));
    }
    return a;
}

double TriangleMesh::enclosed_volume() const {
    // Relative to the bounding-box centre to keep the sum well conditioned far from the origin.
    const Box3 b = bounds();
    const Vec3 c = b.empty() ? Vec3{} : (b.lo + b.hi) * 0.5;
    double v = 0;
    for (const auto& t : triangles) {
        v += dot(vertices[t.v[0]] - c, cross(vertices[t.v[1]] - c, vertices[t.v[2]] - c));
    }
    return std::abs(v) / 6.0;
}

void TriangleMesh::clean() {
    report.input_triangles = triangles.size();
    // Weld bit-identical positions so duplicates and shared edges are found by index.
    std::map<Vec3, uint32_t> index;
    std::vector<Vec3> welded;
    std::vector<uint32_t> remap(vertices.size());
    for (size_t i = 0; i < vertices.size(); ++i) {
        auto [it, inserted] = index.emplace(vertices[i], static_cast<uint32_t>(welded.size()));
        if (inserted) welded.push_back(vertices[i]);
        remap[i] = it->second;
    }
    vertices = std::move(welded);

    std::vector<Triangle> kept;
    kept.reserve(triangles.size());
    std::map<std::array<uint32_t, 3>, bool> seen;
    for (Triangle t : triangles) {
        for (auto& i : t.v)
            i = remap[i];
        const Vec3 n =
            cross(vertices[t.v[1]] - vertices[t.v[0]], vertices[t.v[2]] - vertices[t.v[0]]);
        const double scale = std::max({norm(vertices[t.v[1]] - vertices[t.v[0]]),
                                       norm(vertices[t.v[2]] - vertices[t.v[0]]), 1e-300});
        if (t.v[0] == t.v[1] || t.v[1] == t.v[2] || t.v[0] == t.v[2] ||
            norm(n) <= 1e-12 * scale * scale) {
            ++report.degenerate_removed;
            continue;
        }
        std::array<uint32_t, 3> key = t.v;
        std::sort(key.begin(), key.end());
        if (!seen.emplace(key, true).second) {
            ++report.duplicates_removed;
            continue;
        }
        kept.push_back(t);
    }
    triangles = std::move(kept);

    std::unordered_map<uint64_t, uint32_t> edge_use;
    edge_use.reserve(triangles.size() * 2);
    for (const auto& t : triangles) {
        for (int e = 0; e < 3; ++e) {
            uint64_t a = t.v[e], b = t.v[(e + 1) % 3];
            if (a > b) std::swap(a, b);
            ++edge_use[(a << 32) | b];
        }
    }
    report.boundary_edges = report.non_manifold_edges = 0;
    for (const auto& [_, n] : edge_use) {
        if (n == 1) ++report.boundary_edges;
        if (n > 2) ++report.non_manifold_edges;
    }
}

}  // namespace ardent
