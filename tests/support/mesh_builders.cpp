#include "mesh_builders.h"

#include <cmath>

namespace ardent::test {

void add_box(TriangleMesh& m, Vec3 lo, Vec3 hi, const std::string& group, bool inward, int n,
             const std::function<bool(int, int, int)>& skip) {
    uint32_t g = 0;
    while (g < m.groups.size() && m.groups[g].node != group)
        ++g;
    if (g == m.groups.size()) m.groups.push_back({group, group});
    int face = 0;
    for (int axis = 0; axis < 3; ++axis) {
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int side = 0; side < 2; ++side, ++face) {
            // Outward normal along +axis for side 1; (u, v, axis) is right-handed.
            const bool flip = (side == 0) != inward;
            for (int qv = 0; qv < n; ++qv)
                for (int qu = 0; qu < n; ++qu) {
                    if (skip && skip(face, qu, qv)) continue;
                    auto corner = [&](int du, int dv) {
                        Vec3 p;
                        p[axis] = side ? hi[axis] : lo[axis];
                        p[u] = lo[u] + (hi[u] - lo[u]) * (qu + du) / n;
                        p[v] = lo[v] + (hi[v] - lo[v]) * (qv + dv) / n;
                        m.vertices.push_back(p);
                        return static_cast<uint32_t>(m.vertices.size() - 1);
                    };
                    const uint32_t a = corner(0, 0), b = corner(1, 0), c = corner(1, 1),
                                   d = corner(0, 1);
                    if (flip) {
                        m.triangles.push_back({{a, c, b}, g});
                        m.triangles.push_back({{a, d, c}, g});
                    } else {
                        m.triangles.push_back({{a, b, c}, g});
                        m.triangles.push_back({{a, c, d}, g});
                    }
                }
        }
    }
}

void rotate(TriangleMesh& m, Vec3 c, double rz, double rx) {
    for (Vec3& p : m.vertices) {
        Vec3 q = p - c;
        Vec3 r{q.x * std::cos(rz) - q.y * std::sin(rz), q.x * std::sin(rz) + q.y * std::cos(rz),
               q.z};
        q = {r.x, r.y * std::cos(rx) - r.z * std::sin(rx), r.y * std::sin(rx) + r.z * std::cos(rx)};
        p = q + c;
    }
}

Scene simple_scene(Vec3 source, double max_frequency, double alpha) {
    Scene s;
    s.name = "test";
    Material m;
    m.name = "wall";
    m.set_uniform(alpha);
    s.materials.push_back(m);
    s.surfaces.push_back({"*", "wall"});
    s.sources.push_back({"S1", source});
    s.simulation.max_frequency = max_frequency;
    s.simulation.band = "wave";  // the solvers' own band: what these tests judge
    return s;
}

}  // namespace ardent::test
